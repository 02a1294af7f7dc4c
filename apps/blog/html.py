"""A post's and a comment's HTML made safe on save (nh3, the Rust ammonia sanitiser): scripts,
styles, event handlers, `javascript:` links and unknown tags go; what a blog post is written with
stays. A post may also be given as Markdown (markdown-it-py, raw HTML in it sanitised the same way).
Links in comments carry `rel="ugc nofollow"` (the public wrote them)."""

import re
from dataclasses import dataclass

import nh3
from markdown_it import MarkdownIt

POST_TAGS = {
    "a", "abbr", "b", "h1", "blockquote", "br", "caption", "cite", "code", "dd", "del", "details", "dl", "dt",
    "em", "figcaption", "figure", "h2", "h3", "h4", "h5", "h6", "hr", "i", "img", "ins", "kbd", "li",
    "mark", "ol", "p", "pre", "q", "s", "small", "span", "strong", "sub", "summary", "sup", "table",
    "tbody", "td", "tfoot", "th", "thead", "tr", "u", "ul",
}  # fmt: skip
POST_ATTRIBUTES = {
    "a": {"href", "title", "hreflang"},
    "img": {"src", "alt", "title", "width", "height", "loading"},
    "td": {"colspan", "rowspan"},
    "th": {"colspan", "rowspan", "scope"},
    "abbr": {"title"},
    "q": {"cite"},
    "blockquote": {"cite"},
}
COMMENT_TAGS = {"a", "p", "br", "em", "strong", "code", "blockquote"}
SCHEMES = {"http", "https", "mailto"}


@dataclass(frozen=True)
class Clean:
    html: str
    # Something was taken out (a script, a handler, a tag or attribute not allowed).
    removed: bool


def post_html(text: str, *, markdown: bool = False) -> Clean:
    source = MarkdownIt("commonmark", {"html": True}).enable("table").render(text) if markdown else text
    cleaned = nh3.clean(
        source,
        tags=POST_TAGS,
        attributes=POST_ATTRIBUTES,
        url_schemes=SCHEMES,
        link_rel="noopener noreferrer",
    ).strip()
    return Clean(cleaned, _differs(source, cleaned))


def _differs(source: str, cleaned: str) -> bool:
    """Something of `source` was taken out: the cleaned HTML, cleaned again with nothing allowed
    beyond it, is what it was, so compare the visible text and the tags named."""
    lowered = source.lower()
    if any(bad in lowered for bad in ("<script", "javascript:", "<iframe", "<style", "<object", "<embed")):
        return True
    handlers = re.search(r"<[^>]+\son[a-z]+\s*=", source, flags=re.IGNORECASE)
    if handlers:
        return True
    given = {name.lower() for name in re.findall(r"<\s*([a-zA-Z][a-zA-Z0-9]*)", source)}
    return bool(given - POST_TAGS)


def comment_html(text: str) -> str:
    """A comment's text (plain, or with a few tags) as safe HTML, its links `ugc nofollow`."""
    return nh3.clean(
        text.strip(),
        tags=COMMENT_TAGS,
        attributes={"a": {"href"}},
        url_schemes={"http", "https"},
        link_rel="ugc nofollow noopener",
    ).strip()


def text_of(html: str) -> str:
    """The visible text of sanitised HTML (for excerpts, feeds' summaries and search)."""
    return " ".join(nh3.clean(html, tags=set()).split())
