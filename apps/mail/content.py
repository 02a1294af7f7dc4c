"""Untrusted mail content made safe to show and to give an agent.

- HTML is sanitised with nh3 to a fixed set of tags; remote images (tracking pixels) are removed,
  counted in `blocked`; only inline (cid:) and data: images stay.
- Agents get text: the plain-text part, or the sanitised HTML as Markdown (markdownify), with the
  quoted history trimmed (`trim_quoted`).
"""

import re
from dataclasses import dataclass
from email.message import EmailMessage, Message
from typing import Any

import nh3
from markdownify import markdownify

from apps.core import clean

TAGS = {
    "a", "b", "blockquote", "br", "caption", "code", "div", "em", "h1", "h2", "h3", "h4", "h5", "h6",
    "hr", "i", "img", "li", "ol", "p", "pre", "s", "span", "strong", "sub", "sup", "table", "tbody",
    "td", "tfoot", "th", "thead", "tr", "u", "ul",
}  # fmt: skip
ATTRIBUTES = {
    "a": {"href", "title"},
    "img": {"src", "alt", "title", "width", "height"},
    "td": {"colspan", "rowspan"},
}
ATTRIBUTES["th"] = ATTRIBUTES["td"]
KEPT_IMAGES = ("cid:", "data:image/")

# Where quoted history starts in a reply written by the common clients.
QUOTE_HEADER = re.compile(
    r"^(On .{0,200}wrote:|Le .{0,200}a écrit ?:|Am .{0,200}schrieb .{0,80}:|-{2,} ?Original Message ?-{2,}"
    r"|-{2,} ?Forwarded message ?-{2,}|From: .+)\s*$",
    re.IGNORECASE,
)


@dataclass
class Body:
    text: str
    html: str
    blocked: int
    attachments: list[dict[str, Any]]


def sanitise(html: str) -> tuple[str, int]:
    """The HTML with only safe tags and attributes, and how many remote images it lost."""
    blocked = 0

    def keep(tag: str, attribute: str, value: str) -> str | None:
        nonlocal blocked
        if tag == "img" and attribute == "src" and not value.lower().startswith(KEPT_IMAGES):
            blocked += 1
            return None
        return value

    cleaned = nh3.clean(
        html,
        tags=TAGS,
        attributes=ATTRIBUTES,
        attribute_filter=keep,
        url_schemes={"http", "https", "mailto", "cid", "data"},
        link_rel="noopener noreferrer nofollow",
        strip_comments=True,
    )
    # An image without a source is nothing to show.
    cleaned = re.sub(r"<img(?![^>]*\ssrc=)[^>]*>", "", cleaned)
    return cleaned, blocked


def to_markdown(html: str) -> str:
    text = markdownify(html, heading_style="ATX", strip=["img"])
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def trim_quoted(text: str) -> tuple[str, bool]:
    """The text up to its quoted history (a reply's "On ... wrote:" and what follows, or a
    trailing block of "> " lines); and whether anything was trimmed."""
    lines = text.splitlines()
    for index, line in enumerate(lines):
        if index and QUOTE_HEADER.match(line.strip()):
            return "\n".join(lines[:index]).rstrip(), True
    end = len(lines)
    while end and (lines[end - 1].startswith(">") or not lines[end - 1].strip()):
        end -= 1
    if end < len(lines) and any(line.startswith(">") for line in lines[end:]):
        return "\n".join(lines[:end]).rstrip(), True
    return text.strip(), False


def body_of(message: EmailMessage) -> Body:
    """The readable parts of a parsed message (policy.default): its text (plain, or HTML as
    Markdown), its sanitised HTML, and its attachments' names, types and sizes."""
    plain = message.get_body(preferencelist=("plain",))
    rich = message.get_body(preferencelist=("html",))
    html, blocked = ("", 0)
    if rich is not None:
        html, blocked = sanitise(_content(rich))
    text = _content(plain) if plain is not None else (to_markdown(html) if html else "")
    attachments = []
    for part in message.iter_attachments():
        payload = part.get_payload(decode=True)
        attachments.append(
            {
                "name": storable(part.get_filename() or "")[:255],
                "type": storable(part.get_content_type())[:255],
                "size": len(payload) if isinstance(payload, bytes) else 0,
            }
        )
    return Body(text=storable(text), html=storable(html), blocked=blocked, attachments=attachments)


def header(message: Message, name: str) -> str:
    """The header `name` of a received message as one line of storable text, "" when it has none.
    Python's header parser raises on some values a sender may write (`From: a@[` is an
    AttributeError, `To: "` an IndexError): such a header is then read as it was written."""
    try:
        value = str(message.get(name, "") or "")
    except Exception:  # whatever the parser raises: the raw value below
        value = next((str(raw) for key, raw in message.raw_items() if key.lower() == name.lower()), "")
    return storable(" ".join(value.split()))


def headers(message: Message) -> dict[str, str]:
    """Every header of a received message (lower-case names, the first of each), as `header` reads it."""
    found: dict[str, str] = {}
    for key, _raw in message.raw_items():
        found.setdefault(key.lower(), header(message, key))
    return found


def storable(value: str) -> str:
    """`value` as a store keeps it (`clean.storable`), without control characters either: a
    sender writes what they like."""
    return clean.storable(value, controls=True)


def _content(part: Any) -> str:
    try:
        content = part.get_content()
    except (LookupError, ValueError, AssertionError):
        payload = part.get_payload(decode=True) or b""
        content = payload.decode("utf-8", errors="replace")
    return content if isinstance(content, str) else content.decode("utf-8", errors="replace")
