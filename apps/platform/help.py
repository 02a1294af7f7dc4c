"""The service's own help (searchHelpArticles): the project's documentation, `docs/*.md`, cut into
articles at its headings and ranked by BM25 over the articles' words, compared by English stems as
searchTools compares a request with the catalogue (apps.catalogue.search.stems).

The index is built once per process and again only when a page changed (its files' sizes and
modification times); a search reads only the articles that share a stem with the request. A page
meant for the service's operators alone says so in its first lines (`<!-- audience: operators -->`)
and is never indexed: nobody in a workspace finds it.

A page is linked where the service serves it (none is served yet: `SERVED` maps a page to the URL
name of the page that would show it); otherwise the answer gives its path in the project, with the
article's anchor as a Markdown renderer makes it.
"""

from __future__ import annotations

import math
import re
import threading
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

from apps.catalogue.search import stems
from apps.catalogue.vocabulary import STOP_WORDS

OPERATORS_ONLY = re.compile(r"<!--\s*audience:\s*operators\s*-->", re.IGNORECASE)
# The pages the service serves, by file name: the URL name of the page showing it.
SERVED: dict[str, str] = {}
# BM25's constants, and how much a word of the article's headings counts beside its text.
K1 = 1.2
B = 0.75
TITLE_WEIGHT = 3
SNIPPET_CHARACTERS = 240

_HEADING = re.compile(r"^(#{1,4})\s+(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_MARKUP = re.compile(r"[`*>#]+|\[([^\]]*)\]\([^)]*\)")
_STOP = frozenset(stem for word in STOP_WORDS for stem in stems(word))


@dataclass(frozen=True)
class Article:
    page: str  # the file's name, "gateway.md"
    page_title: str
    title: str  # the heading path: "The message gateway > Budgets"
    anchor: str
    text: str  # the article's text, its markup tidied


@dataclass(frozen=True)
class Found:
    article: Article
    score: float
    snippet: str


def docs_dir() -> Path:
    return Path(settings.BASE_DIR) / "docs"


def slug(heading: str) -> str:
    """The anchor a Markdown renderer (GitHub's) gives a heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _plain(text: str) -> str:
    text = _MARKUP.sub(lambda found: found.group(1) or "", text.replace("|", " "))
    return re.sub(r"\s+", " ", re.sub(r"(?m)^[\s:-]*-{3,}[\s:-]*$", " ", text)).strip()


def articles_of(page: str, source: str) -> list[Article]:
    """A page's articles: one per heading of levels 1 to 4, with the text up to the next heading
    (headings inside fenced code are code). A page meant for operators alone has none."""
    if OPERATORS_ONLY.search("\n".join(source.splitlines()[:5])):
        return []
    articles: list[Article] = []
    path: dict[int, str] = {}
    heading, fenced = "", False
    lines: list[str] = []
    page_title = ""

    def close() -> None:
        body = _plain("\n".join(lines))
        if heading and body:
            articles.append(
                Article(
                    page=page,
                    page_title=page_title,
                    title=" > ".join(path[level] for level in sorted(path)),
                    anchor=slug(heading),
                    text=body,
                )
            )

    for line in source.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
        found = None if fenced else _HEADING.match(line)
        if found is None:
            lines.append(line)
            continue
        close()
        level, heading, lines = len(found.group(1)), _plain(found.group(2)), []
        page_title = page_title or heading
        path = {deeper: text for deeper, text in path.items() if deeper < level} | {level: heading}
    close()
    return articles


class _Index:
    def __init__(self, articles: list[Article]) -> None:
        self.articles = articles
        self.terms: list[Counter[str]] = []
        self.lengths: list[float] = []
        self.postings: dict[str, list[int]] = {}
        for number, article in enumerate(articles):
            terms: Counter[str] = Counter()
            for stem in stems(article.text):
                terms[stem] += 1
            for stem in stems(article.title):
                terms[stem] += TITLE_WEIGHT
            self.terms.append(terms)
            self.lengths.append(sum(terms.values()))
            for stem in terms:
                self.postings.setdefault(stem, []).append(number)
        self.average = sum(self.lengths) / len(self.lengths) if self.lengths else 1.0

    def search(self, query: str) -> list[tuple[float, Article]]:
        asked = [stem for stem in dict.fromkeys(stems(query)) if stem not in _STOP] or list(
            dict.fromkeys(stems(query))
        )
        scores: dict[int, float] = {}
        count = len(self.articles)
        for stem in asked:
            holding = self.postings.get(stem, [])
            if not holding:
                continue
            idf = math.log(1 + (count - len(holding) + 0.5) / (len(holding) + 0.5))
            for number in holding:
                frequency = self.terms[number][stem]
                norm = K1 * (1 - B + B * self.lengths[number] / self.average)
                scores[number] = scores.get(number, 0.0) + idf * frequency * (K1 + 1) / (frequency + norm)
        ranked = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
        return [(round(score, 3), self.articles[number]) for number, score in ranked]


_lock = threading.Lock()
_built: tuple[tuple[tuple[str, int, int], ...], _Index] | None = None


def _signature(folder: Path) -> tuple[tuple[str, int, int], ...]:
    return tuple(
        (path.name, path.stat().st_size, path.stat().st_mtime_ns) for path in sorted(folder.glob("*.md"))
    )


def index() -> _Index | None:
    """The index of the documentation (None: the project's docs are not where the service runs)."""
    global _built
    folder = docs_dir()
    if not folder.is_dir():
        return None
    signature = _signature(folder)
    with _lock:
        if _built is None or _built[0] != signature:
            articles = [
                article
                for name, _size, _mtime in signature
                for article in articles_of(name, (folder / name).read_text(encoding="utf-8"))
            ]
            _built = (signature, _Index(articles))
        return _built[1]


def snippet(text: str, query: str) -> str:
    """About SNIPPET_CHARACTERS of `text` around the first of the request's words it holds."""
    asked = {stem for stem in stems(query) if stem not in _STOP}
    start = 0
    for found in re.finditer(r"[A-Za-z][\w'-]*", text):
        if any(stem in asked for stem in stems(found.group())):
            start = found.start()
            break
    begin = max(0, text.rfind(" ", 0, max(0, start - SNIPPET_CHARACTERS // 4)) + 1) if start else 0
    cut = text[begin : begin + SNIPPET_CHARACTERS]
    if begin + SNIPPET_CHARACTERS < len(text):
        cut = cut.rsplit(" ", 1)[0] + " …"
    return ("… " if begin else "") + cut


def search(query: str, *, limit: int) -> list[Found] | None:
    built = index()
    if built is None:
        return None
    return [
        Found(article=article, score=score, snippet=snippet(article.text, query))
        for score, article in built.search(query)[:limit]
    ]
