"""Designs and generated images (createDesign, refineDesign, generateDesignImage, deleteDesignAsset).
Each write checks the actor's permission itself and logs ids only.

A design is drawn from a size preset and the brand kit: its background, a headline, a body and the
kit's main logo, laid out `center`, `left` or `top`; it is rendered twice, as an SVG (the text as
text, the logo embedded) and as a PNG (Pillow), both stored in Files in /Marketing/Designs as the
maker's files, private when the design is. refineDesign renders a new version and keeps the
earlier one's files and spec in its history. generateDesignImage has the metered model backend
draw an image (an OpenAI-compatible Images API), kept as a PNG labelled AI-made."""

import io
import logging
import re
import textwrap
from dataclasses import dataclass
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from django.db import transaction
from django.utils.translation import gettext as _

from apps.core import clean, modelcalls, records
from apps.core.actors import Actor, actor_id, require
from apps.core.errors import AppError, invalid
from apps.files import api as files
from apps.marketing import brand, errors
from apps.marketing.models import DesignAsset
from apps.marketing.permissions import MarketingPerm
from apps.marketing.proposals import model_failure

logger = logging.getLogger(__name__)
Kind = DesignAsset.Kind
# name: (width, height) in pixels; A4 at 150 dpi.
PRESETS = {
    "instagram-square": (1080, 1080),
    "instagram-portrait": (1080, 1350),
    "story": (1080, 1920),
    "og-image": (1200, 630),
    "facebook-cover": (1640, 624),
    "a4-poster": (1240, 1754),
}
LAYOUTS = ("center", "left", "top")
# A design's spec: headline, body, background, textColour, accent (colours), layout, logo.
COLOURS = {"background": "background", "text_colour": "textColour", "accent": "accent"}
FOLDER = "/Marketing/Designs"
IMAGE_SIZES = ("1024x1024", "1536x1024", "1024x1536")
AI_LABEL = "Image generated with AI."


def _colour(value: Any, field: str) -> str:
    colour = clean.text(value, field=field, limit=7)
    if not brand.COLOUR.fullmatch(colour):
        raise invalid(field, _("{colour!r} is not a colour like #1F4E79"), colour=colour[:20])
    return colour.upper()


def spec_of(given: dict[str, Any], before: dict[str, Any] | None = None) -> dict[str, Any]:
    """The design's spec: `given` over `before` (or the brand kit's defaults), checked."""
    primary, accent, light, _dark = brand.colours()[:4]
    spec: dict[str, Any] = dict(
        before
        or {"headline": "", "body": "", "background": primary, "textColour": light, "accent": accent}
        | {"layout": "center", "logo": True}
    )
    if "headline" in given:
        spec["headline"] = clean.text(given["headline"], field="headline", limit=120)
    if "body" in given:
        spec["body"] = clean.long_text(given["body"] or "", field="body", limit=500)
    for name, key in COLOURS.items():
        if given.get(name):
            spec[key] = _colour(given[name], key)
    if given.get("layout"):
        if given["layout"] not in LAYOUTS:
            raise invalid("layout", _("one of {layouts}"), layouts=", ".join(LAYOUTS))
        spec["layout"] = given["layout"]
    if given.get("logo") is not None:
        spec["logo"] = bool(given["logo"])
    if not spec["headline"]:
        raise invalid("headline", _("is required and cannot be empty"))
    return spec


# --- rendering --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Rendered:
    svg: bytes
    png: bytes


def _font(name: str, size: int, *, bold: bool = False) -> Any:
    from PIL import ImageFont

    base = name.replace(" ", "")
    for candidate in ([f"{base}-Bold.ttf"] if bold else []) + [f"{base}.ttf"]:
        try:
            return ImageFont.truetype(candidate, size)
        except OSError:
            continue
    return ImageFont.load_default(size=size)


def _logo(actor: Actor) -> bytes | None:
    """The kit's main logo as a PNG, if there is one the actor may see and it is an image."""
    from PIL import Image, UnidentifiedImageError

    for file_id in brand.kit().logo_file_ids[:1]:
        try:
            data = files.file_bytes(files.file(actor=actor, file_id=int(file_id)))
            with Image.open(io.BytesIO(data)) as image:
                image.thumbnail((400, 400))
                out = io.BytesIO()
                image.convert("RGBA").save(out, format="PNG")
                return out.getvalue()
        except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError):
            return None
        except AppError:  # not found, or not the actor's to see: no logo
            logger.info("design: logo file %s not readable", file_id)
            return None
    return None


def _lines(text: str, width: int, size: int) -> list[str]:
    most = max(8, int(width / (size * 0.55)))
    return [line for paragraph in text.splitlines() for line in textwrap.wrap(paragraph, most) or [""]]


def render(spec: dict[str, Any], width: int, height: int, *, logo: bytes | None) -> Rendered:
    """The design as an SVG and a PNG of `width` x `height`."""
    import base64

    from PIL import Image, ImageDraw

    kit = brand.kit()
    margin = width // 12
    band = margin // 3  # the accent colour's strip along the bottom
    head_size, body_size = max(24, width // 14), max(16, width // 32)
    usable = width - 2 * margin
    heads = _lines(spec["headline"], usable, head_size)
    bodies = _lines(spec["body"], usable, body_size) if spec["body"] else []
    block = len(heads) * head_size * 1.2 + (body_size * 0.8 if bodies else 0) + len(bodies) * body_size * 1.4
    top = margin * 2 if spec["layout"] == "top" else (height - block) / 2
    anchor_x = margin if spec["layout"] == "left" else width / 2
    svg_anchor, pil_anchor = ("start", "la") if spec["layout"] == "left" else ("middle", "ma")
    picture = Image.new("RGB", (width, height), spec["background"])
    draw = ImageDraw.Draw(picture)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label={quoteattr(spec["headline"])}>',
        f'<rect width="100%" height="100%" fill="{spec["background"]}"/>',
        f'<rect x="0" y="{height - band}" width="100%" height="{band}" fill="{spec["accent"]}"/>',
    ]
    draw.rectangle((0, height - band, width, height), fill=spec["accent"])
    y = top
    for size, lines, font_name, bold, gap in (
        (head_size, heads, kit.heading_font, True, 1.2),
        (body_size, bodies, kit.body_font, False, 1.4),
    ):
        font = _font(font_name, size, bold=bold)
        weight = ' font-weight="bold"' if bold else ""
        for line in lines:
            draw.text((anchor_x, y), line, fill=spec["textColour"], font=font, anchor=pil_anchor)
            parts.append(
                f'<text x="{anchor_x:.0f}" y="{y + size:.0f}" font-family={quoteattr(font_name)} '
                f'font-size="{size}"{weight} fill="{spec["textColour"]}" '
                f'text-anchor="{svg_anchor}">{escape(line)}</text>'
            )
            y += size * gap
        y += body_size * 0.8
    if logo is not None and spec["logo"]:
        with Image.open(io.BytesIO(logo)) as mark:
            side = max(48, width // 8)
            mark.thumbnail((side, side))
            x, ly = width - margin - mark.width, margin // 2
            picture.paste(mark, (x, ly), mark if mark.mode == "RGBA" else None)
            encoded = base64.b64encode(logo).decode()
            parts.append(
                f'<image x="{x}" y="{ly}" width="{mark.width}" height="{mark.height}" '
                f'href="data:image/png;base64,{encoded}"/>'
            )
    parts.append("</svg>")
    out = io.BytesIO()
    picture.save(out, format="PNG", optimize=True)
    return Rendered(svg="\n".join(parts).encode(), png=out.getvalue())


# --- writes -----------------------------------------------------------------------------------------


def file_stem(name: str) -> str:
    """A design's name as a file's: without the characters Files refuses in names."""
    return re.sub(r'[/\\:*?"<>|\x00-\x1f]+', "-", name).strip(" .-") or "design"


def _store(actor: Actor, asset: DesignAsset, rendered: Rendered) -> None:
    folder = files.folder_ensure(actor=actor, path=FOLDER)
    stem = f"{file_stem(asset.name)} v{asset.version}"
    for suffix, mime, data, field in (
        ("svg", "image/svg+xml", rendered.svg, "svg_file_id"),
        ("png", "image/png", rendered.png, "png_file_id"),
    ):
        made = files.file_create(
            actor=actor,
            name=f"{stem}.{suffix}",
            content=data,
            folder=folder,
            mime_type=mime,
            origin=f"marketing design {asset.pk}",
            visibility=asset.visibility,
        )
        setattr(asset, field, made.pk)


def check_design(*, preset: str, fields: dict[str, Any]) -> dict[str, Any]:
    if preset not in PRESETS:
        raise invalid("preset", _("one of {presets}"), presets=", ".join(PRESETS))
    return spec_of(fields)


def create(*, actor: Actor, name: str, preset: str, fields: dict[str, Any], visibility: str) -> DesignAsset:
    require(actor, MarketingPerm.EDIT)
    spec = check_design(preset=preset, fields=fields)
    width, height = PRESETS[preset]
    asset = DesignAsset(
        created_by_id=actor_id(actor),
        owner_id=actor_id(actor),
        kind=Kind.DESIGN,
        preset=preset,
        width=width,
        height=height,
        spec=spec,
        visibility=visibility or "workspace",
    )
    asset.name = records.unique_name(asset, name or spec["headline"][:60], what=_("design"), limit=120)
    rendered = render(spec, width, height, logo=_logo(actor))
    with transaction.atomic():
        asset.save()
        _store(actor, asset, rendered)
        asset.save(update_fields=["svg_file_id", "png_file_id"])
    logger.info("marketing design %s created", asset.pk)
    return asset


def refine(*, actor: Actor, asset: DesignAsset, fields: dict[str, Any], preset: str = "") -> DesignAsset:
    """A new version of `asset` with `fields` changed (the earlier one kept in its history)."""
    require(actor, MarketingPerm.EDIT)
    if asset.kind != Kind.DESIGN:
        raise invalid(
            "designId",
            _("asset {id} is a generated image, not a design: make a design with createDesign"),
            id=asset.pk,
        )
    if preset and preset not in PRESETS:
        raise invalid("preset", _("one of {presets}"), presets=", ".join(PRESETS))
    spec = spec_of(fields, asset.spec)
    width, height = PRESETS[preset] if preset else (asset.width, asset.height)
    rendered = render(spec, width, height, logo=_logo(actor))
    with transaction.atomic():
        asset.history = [
            *asset.history,
            {"version": asset.version, "spec": asset.spec, "preset": asset.preset,
             "pngFileId": asset.png_file_id, "svgFileId": asset.svg_file_id},
        ]  # fmt: skip
        asset.version += 1
        asset.spec, asset.preset, asset.width, asset.height = spec, preset or asset.preset, width, height
        _store(actor, asset, rendered)
        asset.save()
    logger.info("marketing design %s: version %s", asset.pk, asset.version)
    return asset


@dataclass(frozen=True)
class Generated:
    asset: DesignAsset
    model: str
    cost_micro_usd: int


def generate(
    *, actor: Actor, api_key_id: int | None, name: str, prompt: str, size: str, visibility: str
) -> Generated:
    require(actor, MarketingPerm.EDIT)
    from PIL import Image, UnidentifiedImageError

    tool = "generateDesignImage"
    if size not in IMAGE_SIZES:
        raise invalid("size", _("one of {sizes}"), sizes=", ".join(IMAGE_SIZES))
    asset = DesignAsset(
        created_by_id=actor_id(actor),
        owner_id=actor_id(actor),
        kind=Kind.IMAGE,
        prompt=prompt,
        ai_generated=True,
        visibility=visibility or "workspace",
    )
    asset.name = records.unique_name(asset, name or prompt[:60], what=_("design"), limit=120)
    try:
        drawing = modelcalls.provider().draw(api_key_id=api_key_id, prompt=prompt, size=size, purpose=tool)
    except modelcalls.ModelCallError as error:
        raise model_failure(error, tool) from None
    try:
        Image.MAX_IMAGE_PIXELS = 40_000_000
        with Image.open(io.BytesIO(drawing.data)) as image:
            image.load()
            picture = image.convert("RGBA" if image.mode in ("RGBA", "LA", "P") else "RGB")
    except (UnidentifiedImageError, OSError, Image.DecompressionBombError, ValueError):
        raise errors.MarketingModelCallFailed(tool=tool, problem="its image could not be read") from None
    out = io.BytesIO()
    picture.save(out, format="PNG", optimize=True)  # no metadata carried over
    folder = files.folder_ensure(actor=actor, path=FOLDER)
    with transaction.atomic():
        asset.width, asset.height = picture.width, picture.height
        asset.save()
        made = files.file_create(
            actor=actor,
            name=f"{file_stem(asset.name)}.png",
            content=out.getvalue(),
            folder=folder,
            mime_type="image/png",
            description=AI_LABEL,
            origin=f"marketing image {asset.pk}",
            visibility=asset.visibility,
        )
        asset.png_file_id = made.pk
        asset.save(update_fields=["png_file_id"])
    logger.info("marketing image %s generated", asset.pk)
    return Generated(asset, drawing.model, drawing.cost_micro_usd)


def file_ids(asset: DesignAsset) -> list[int]:
    """Every file of the asset in Files: this version's and the earlier ones'."""
    found = [asset.png_file_id, asset.svg_file_id]
    for version in asset.history:
        found += [version.get("pngFileId"), version.get("svgFileId")]
    return sorted({int(value) for value in found if value})


def delete(*, actor: Actor, asset: DesignAsset) -> list[int]:
    """To the trash, with its files (every version's) to Files' trash; the files' ids."""
    require(actor, MarketingPerm.DELETE)
    with transaction.atomic():
        asset.trash(actor)
        trashed = files.trash_with(file_ids(asset), actor=actor)
    logger.info("marketing design asset %s deleted with %s files", asset.pk, len(trashed))
    return trashed


def check_restore(asset: DesignAsset) -> None:
    if asset.deleted_at is None:
        raise invalid("restore", _("design asset {id} is not in the trash"), id=asset.pk)


def restore(*, actor: Actor, asset: DesignAsset) -> list[int]:
    """Back from the trash with its files (those still in Files' trash); the files' ids restored."""
    require(actor, MarketingPerm.DELETE)
    check_restore(asset)
    with transaction.atomic():
        asset.untrash()
        restored = files.restore_with(file_ids(asset))
    logger.info("marketing design asset %s restored with %s files", asset.pk, len(restored))
    return restored
