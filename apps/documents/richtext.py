"""The rich text of documents: sanitised HTML.

Agents write Markdown (CommonMark with tables and strikethrough, through markdown-it-py), HTML,
or plain text; whatever comes in is cleaned by nh3 (the Ammonia sanitiser) down to the tags
below, with links limited to http, https and mailto and marked `rel="noopener noreferrer"`.
Scripts, styles, event handlers, images and iframes never get in, so the HTML can be shown as it
is in the settings pages and rendered to PDF.
"""

import html
from html.parser import HTMLParser

import nh3
from markdown_it import MarkdownIt

BLOCK_TAGS = {
    "p", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "blockquote", "pre", "hr", "table",
    "thead", "tbody", "tr", "th", "td", "br", "div",
}  # fmt: skip
INLINE_TAGS = {"a", "b", "strong", "i", "em", "u", "s", "del", "code", "sub", "sup", "span", "mark"}
TAGS = BLOCK_TAGS | INLINE_TAGS
ATTRIBUTES = {
    "a": {"href", "title"},
    "th": {"colspan", "rowspan"},
    "td": {"colspan", "rowspan"},
    "ol": {"start"},
}
URL_SCHEMES = {"http", "https", "mailto"}
FORMATS = ("markdown", "html", "text")

_markdown = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable(["table", "strikethrough"])


def sanitise(value: str) -> str:
    return nh3.clean(
        value,
        tags=TAGS,
        attributes=ATTRIBUTES,
        url_schemes=URL_SCHEMES,
        link_rel="noopener noreferrer",
        strip_comments=True,
    ).strip()


def to_html(content: str, fmt: str) -> str:
    """Sanitised HTML of `content` written as markdown, html or text."""
    if fmt == "markdown":
        rendered = _markdown.render(content)
    elif fmt == "text":
        paragraphs = [block.strip() for block in content.replace("\r\n", "\n").split("\n\n")]
        rendered = "".join(
            f"<p>{html.escape(block).replace(chr(10), '<br>')}</p>" for block in paragraphs if block
        )
    else:
        rendered = content
    return sanitise(rendered)


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.prefix: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "li":
            self.parts.append("\n- ")
        elif tag in {"td", "th"}:
            self.parts.append("\t")
        elif tag == "tr" or tag == "br":
            self.parts.append("\n")
        elif tag in BLOCK_TAGS:
            self.parts.append("\n\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in BLOCK_TAGS and tag not in {"li", "td", "th", "br"}:
            self.parts.append("\n\n")

    def handle_data(self, data: str) -> None:
        # Whitespace between tags is layout of the HTML, not text.
        if data.strip() or (self.parts[-1:] and not self.parts[-1].endswith(("\n", "\t", "- "))):
            self.parts.append(data if data.strip() else " ")


def to_text(body_html: str) -> str:
    """Plain text of sanitised HTML: blocks as paragraphs, list items as "- ", cells by tabs."""
    parser = _Text()
    parser.feed(body_html)
    parser.close()
    lines = [line.rstrip() for line in "".join(parser.parts).split("\n")]
    text, blank = [], 0
    for line in lines:
        blank = blank + 1 if not line.strip() else 0
        if blank <= 1:
            text.append(line.strip(" ").removeprefix("\t"))
    return "\n".join(text).strip()
