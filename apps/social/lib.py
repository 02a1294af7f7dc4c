"""What a post's text is on each network: the text with its links after it, its length as the
network counts it (Mastodon: characters, any URL as 23, a remote mention as its user name;
Bluesky: graphemes), and the places of its
links (Bluesky's facets: UTF-8 byte ranges)."""

import re
from dataclasses import dataclass

from wcwidth import iter_graphemes

# What Mastodon counts a URL as, whatever its length (its URL shortener's length).
MASTODON_URL_LENGTH = 23
# A URL in text, without the punctuation that ends a sentence after it (curly quotes too).
URL = re.compile(r"https?://[^\s<>\"]+[^\s<>\".,;:!?)\]'\u2019\u201d]")


def web_link(url: str) -> str:
    """`url` when it is an http(s) address, else "": what a network answers as a post's or a
    profile's address is linked to on the settings page, and a `javascript:` one would run there."""
    url = url.strip()
    return url if url.lower().startswith(("https://", "http://")) else ""


def compose(text: str, links: list[str]) -> str:
    """The text as posted: the links not already in it follow it, each on a line of its own."""
    text = text.strip()
    extra = [link for link in links if link not in text]
    return "\n\n".join(part for part in (text, "\n".join(extra)) if part)


def graphemes(text: str) -> int:
    """User-perceived characters (Unicode extended grapheme clusters), as Bluesky counts them."""
    return sum(1 for _ in iter_graphemes(text))


# A remote mention (@name@instance): Mastodon counts its user name alone (its compose counter).
MENTION = re.compile(r"(^|[^/\w])@([a-z0-9_]+)@[a-z0-9.-]+[a-z0-9]+", re.IGNORECASE)


def mastodon_length(text: str) -> int:
    counted, last = [], 0
    for begin, end in urls(text):
        counted += [text[last:begin], "x" * MASTODON_URL_LENGTH]
        last = end
    return len(MENTION.sub(r"\1@\2", "".join([*counted, text[last:]])))


@dataclass(frozen=True)
class Span:
    start: int  # UTF-8 bytes
    end: int
    url: str


def urls(text: str) -> list[tuple[int, int]]:
    """Where each URL of the text starts and ends (characters). A closing parenthesis after one is
    its own while it closes one the URL opened (`.../Kestrel_(bird)`), not a sentence's."""
    found = []
    for match in URL.finditer(text):
        end = match.end()
        while (
            end < len(text)
            and text[end] == ")"
            and text[match.start() : end].count("(") > text[match.start() : end].count(")")
        ):
            end += 1
        found.append((match.start(), end))
    return found


def is_link(value: str) -> bool:
    """Whether `value` is one http(s) URL, whole."""
    return urls(value) == [(0, len(value))]


def link_spans(text: str) -> list[Span]:
    """Every URL of the text with its UTF-8 byte range (Bluesky's richtext facets)."""
    spans = []
    for begin, end in urls(text):
        start = len(text[:begin].encode())
        spans.append(Span(start, start + len(text[begin:end].encode()), text[begin:end]))
    return spans
