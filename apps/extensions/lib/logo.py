"""An extension's logo: a PNG (read by Pillow: its format, dimensions and size checked) or an SVG
rebuilt from a strict allowlist with lxml (defused: no entities, no network, no DTD). What is not
on the list goes: scripts, `on*` handlers, `<foreignObject>`, styles, and every reference that is
not to a fragment of the same document."""

from __future__ import annotations

import io
import re
from typing import Any

from django.utils.translation import gettext_lazy as _
from lxml import etree  # type: ignore[import-untyped]
from PIL import Image, UnidentifiedImageError

MAX_BYTES = 256 * 1024
MAX_SIDE = 1024
MIN_SIDE = 32
SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"
ELEMENTS = {
    "svg", "g", "path", "rect", "circle", "ellipse", "line", "polyline", "polygon", "title", "desc",
    "defs", "linearGradient", "radialGradient", "stop", "clipPath", "mask", "use", "symbol", "text", "tspan",
}  # fmt: skip
ATTRIBUTES = {
    "viewBox", "width", "height", "x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "r", "rx", "ry", "d",
    "points",
    "fill", "fill-opacity", "fill-rule", "stroke", "stroke-width", "stroke-linecap", "stroke-linejoin",
    "stroke-opacity", "stroke-dasharray", "opacity", "transform", "id", "offset", "stop-color",
    "stop-opacity",
    "gradientUnits", "gradientTransform", "clip-path", "clip-rule", "mask", "preserveAspectRatio",
    "font-size", "font-family", "font-weight", "text-anchor", "href", "version",
}  # fmt: skip
# Paint and references: only to an element of the same document.
LOCAL_REF = re.compile(r"^#[\w.-]+$")
URL_VALUE = re.compile(r"url\(\s*(?!['\"]?#)[^)]*\)", re.I)


class Refused(ValueError):
    """The logo's problem, in words a person reads (a translatable text)."""

    def __init__(self, problem: Any) -> None:
        super().__init__(str(problem))
        self.problem = problem


def _local(tag: Any) -> tuple[str, str]:
    if not isinstance(tag, str):
        return "", ""
    if tag.startswith("{"):
        namespace, _brace, name = tag[1:].partition("}")
        return namespace, name
    return "", tag


def sanitise_svg(data: bytes) -> tuple[bytes, int]:
    """The SVG rebuilt from what the allowlist keeps, and how many things were removed."""
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)
    try:
        root = etree.fromstring(data, parser)
    except etree.XMLSyntaxError as error:
        raise Refused(_("the SVG is not well-formed XML")) from error
    if _local(root.tag) != (SVG_NS, "svg"):
        raise Refused(_("the file is not an SVG image"))
    removed = 0
    for element in list(root.iter()):
        namespace, name = _local(element.tag)
        if element is not root and (namespace != SVG_NS or name not in ELEMENTS):
            parent = element.getparent()
            if parent is not None:
                parent.remove(element)
                removed += 1
            continue
        for attribute in list(element.attrib):
            attr_ns, attr_name = _local(attribute)
            value = element.attrib[attribute]
            keep = attr_ns in ("", XLINK_NS) and attr_name in ATTRIBUTES
            if keep and attr_name == "href":
                keep = bool(LOCAL_REF.match(value.strip()))
            if keep and URL_VALUE.search(value):
                keep = False
            if not keep:
                del element.attrib[attribute]
                removed += 1
    for node in root.xpath("//comment() | //processing-instruction()"):
        node.getparent().remove(node)
    cleaned = etree.tostring(root, encoding="utf-8", xml_declaration=False)
    return cleaned, removed


def check_png(data: bytes) -> tuple[int, int]:
    try:
        with Image.open(io.BytesIO(data)) as image:
            if image.format != "PNG":
                raise Refused(_("the file is not a PNG image"))
            width, height = image.size
            image.verify()
    except (UnidentifiedImageError, OSError, SyntaxError) as error:
        raise Refused(_("the file is not a PNG image")) from error
    if not (MIN_SIDE <= width <= MAX_SIDE and MIN_SIDE <= height <= MAX_SIDE):
        raise Refused(_("a PNG logo is between 32 and 1024 pixels a side"))
    return width, height


def checked(data: bytes) -> tuple[bytes, str, int]:
    """The logo to keep, its type (png or svg) and how many things sanitising removed."""
    if len(data) > MAX_BYTES:
        raise Refused(_("the file is too large"))
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        check_png(data)
        return data, "png", 0
    head = data[:512].lstrip().lower()
    if head.startswith((b"<?xml", b"<svg", b"<!--")):
        cleaned, removed = sanitise_svg(data)
        return cleaned, "svg", removed
    raise Refused(_("only PNG and SVG logos are taken"))
