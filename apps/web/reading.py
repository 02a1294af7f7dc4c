"""A fetched page's text: HTML's main text as Markdown (trafilatura, its links made absolute), its
title and date of publication; plain text as it is; a PDF's text through the Files area's
extraction (apps.files.api.text_of). The characters are those the server named, else UTF-8 when
the bytes are valid UTF-8, else those charset-normalizer finds."""

from dataclasses import dataclass, field

import charset_normalizer
import lxml.html  # type: ignore[import-untyped]
import trafilatura
from lxml.etree import ParserError  # type: ignore[import-untyped]

from apps.files import api as files
from apps.web.fetching import Fetched

MAX_LINKS = 50


@dataclass
class Page:
    title: str
    text: str
    published: str = ""
    links: list[dict[str, str]] = field(default_factory=list)


def decoded(body: bytes, charset: str) -> str:
    if charset:
        try:
            return body.decode(charset, errors="replace")
        except LookupError:
            pass
    try:
        # Without a charset named, a body that is valid UTF-8 is UTF-8 (the web's own, and what
        # a guess takes for UTF-16 when it holds a NUL): the guess is for the rest.
        return body.decode("utf-8")
    except UnicodeDecodeError:
        pass
    best = charset_normalizer.from_bytes(body).best()
    return str(best) if best is not None else body.decode("utf-8", errors="replace")


def _links(html: str, url: str) -> list[dict[str, str]]:
    try:
        document = lxml.html.fromstring(html, base_url=url)
    except (ParserError, ValueError):
        return []
    document.make_links_absolute(url, handle_failures="discard")
    found: list[dict[str, str]] = []
    seen: set[str] = set()
    for anchor in document.iter("a"):
        href = (anchor.get("href") or "").split("#", 1)[0]
        if not href.startswith(("http://", "https://")) or href in seen:
            continue
        seen.add(href)
        found.append({"url": href[:2000], "text": " ".join(anchor.text_content().split())[:200]})
        if len(found) >= MAX_LINKS:
            break
    return found


def _html(html: str, url: str) -> Page:
    text = trafilatura.extract(
        html, url=url, output_format="markdown", include_links=True, include_tables=True, favor_recall=True
    )
    metadata = trafilatura.extract_metadata(html, default_url=url)
    title = (metadata.title if metadata is not None else None) or ""
    published = (metadata.date if metadata is not None else None) or ""
    if not text:  # no main text found: the page's whole text, at least
        text = trafilatura.html2txt(html) or ""
    return Page(title=title[:300], text=text.strip(), published=published[:40], links=_links(html, url))


def read(fetched: Fetched) -> Page:
    if fetched.content_type == files.PDF:
        return Page(title="", text=files.text_of(fetched.body, files.PDF))
    text = decoded(fetched.body, fetched.charset)
    if fetched.content_type in {"text/html", "application/xhtml+xml"}:
        return _html(text, fetched.url)
    return Page(title="", text=text.strip())
