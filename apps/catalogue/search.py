"""How searchTools ranks the catalogue: BM25 over what each tool is, in the words people use.

A tool is indexed as fields of different weight: its name (split at its capitals, so
`createCalendarEvent` is "create calendar event", its verb counting less than its nouns), its
title, the words of its area (the area's title and key, and the words people use for its things:
the area's declared `words`), the phrases its area gives for it (`hints`: "recycle bin" for the
trash; they are never sent to a client), its description and its argument names. Words are
compared by their English stems (Snowball), so "scheduling" finds what "schedule" names. A request
is read the same way, without the words that say nothing ("my", "the", "please"), and each of its
words also looks for the catalogue's words for the same thing (`SYNONYMS`: a diary is a calendar,
a client a contact, to book is to create). A word and its synonyms count once, by the best of
them, so saying the same thing twice does not outrank a request that says two things. A tool that
answers more of the request's words ranks higher, and one whose whole name the request says higher
still.

The weights were set against the evaluation set (apps/<area>/tests/searches.py, run by
apps/catalogue/tests/test_search_quality.py): change them only with it.

The index is built once per registry version; a search reads only the tools that share a stem with
the request.
"""

from __future__ import annotations

import math
import re
import threading
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import snowballstemmer

from apps.catalogue import registry
from apps.catalogue.registry import ToolSpec
from apps.catalogue.vocabulary import STOP_WORDS, SYNONYMS
from apps.core import areas

_STEMMER = snowballstemmer.stemmer("english")
_WORD = re.compile(r"[a-z0-9]+")
_CAPITAL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_HYPHEN = re.compile(r"(?<=[A-Za-z])-(?=[A-Za-z])")
_CLOCK = re.compile(r"\b\d{1,2}[:.]\d{2}\b")
_TIME = re.compile(r"\d{1,2}(am|pm)|noon|midday")

# BM25: how fast repeating a word stops adding (k1), and how much a tool's length counts (b).
K1 = 2.0
B = 0.75
# How much a word counts in each part of a tool.
WEIGHTS = {
    "verb": 1.5,
    "name": 4.0,
    "title": 2.0,
    "area": 1.0,
    "description": 0.5,
    "arguments": 0.25,
    "hints": 2.0,
}
# How much more a tool counts when the request says its whole name.
NAME_BONUS = 1.3
# A synonym counts a little less than the word the person used.
SYNONYM_WEIGHT = 0.8


def words(text: str) -> list[str]:
    """The lowercase words of a text, a camelCase name split at its capitals; a time of day
    ("10am", "9:30") is the word "time", and a hyphenated word is one word ("to-do" is "todo")."""
    return [
        "time" if _TIME.fullmatch(word) else word
        for word in _WORD.findall(_CAPITAL.sub(" ", _CLOCK.sub(" time ", _HYPHEN.sub("", text))).lower())
    ]


def stems(text: str) -> list[str]:
    return [_STEMMER.stemWord(word) for word in words(text)]


def _stem(word: str) -> str:
    return str(_STEMMER.stemWord(word))


@dataclass(frozen=True)
class _Index:
    # tool name -> stem -> weighted count
    counts: dict[str, dict[str, float]]
    lengths: dict[str, float]
    average: float
    # stem -> names of the tools that have it
    postings: dict[str, frozenset[str]]
    synonyms: dict[str, tuple[str, ...]]
    # tool name -> the stems of its name ("search", "contact")
    named: dict[str, frozenset[str]]


def _fields(spec: ToolSpec) -> dict[str, str]:
    area = areas.get(spec.area)
    area_words, hints = [spec.area], ""
    if area is not None:
        area_words += [str(area.title), area.words]
        hints = area.hints.get(spec.name, "")
    arguments = spec.definition.get("inputSchema", {}).get("properties", {})
    verb, *rest = words(spec.name)
    return {
        "verb": verb,
        "name": " ".join(rest),
        "title": spec.title,
        "area": " ".join(area_words),
        "description": spec.description,
        "arguments": " ".join(arguments),
        "hints": hints,
    }


def _build(specs: Iterable[ToolSpec]) -> _Index:
    counts: dict[str, dict[str, float]] = {}
    postings: dict[str, set[str]] = defaultdict(set)
    named: dict[str, frozenset[str]] = {}
    for spec in specs:
        named[spec.name] = frozenset(stems(spec.name))
        bag: dict[str, float] = defaultdict(float)
        for field, text in _fields(spec).items():
            for stem in stems(text):
                if stem not in _STOP_STEMS:
                    bag[stem] += WEIGHTS[field]
        counts[spec.name] = dict(bag)
        for stem in bag:
            postings[stem].add(spec.name)
    lengths = {name: sum(bag.values()) for name, bag in counts.items()}
    average = sum(lengths.values()) / len(lengths) if lengths else 1.0
    synonyms = {
        _stem(word): tuple(dict.fromkeys(_stem(alternative) for alternative in alternatives))
        for word, alternatives in SYNONYMS.items()
    }
    return _Index(
        counts=counts,
        lengths=lengths,
        average=average or 1.0,
        postings={stem: frozenset(names) for stem, names in postings.items()},
        synonyms=synonyms,
        named=named,
    )


_STOP_STEMS = frozenset(_stem(word) for word in STOP_WORDS)
_lock = threading.Lock()
_cached: tuple[int, _Index] | None = None


def _index() -> _Index:
    """The index of every registered tool, rebuilt when the registry changes."""
    global _cached
    version = registry.version()
    cached = _cached
    if cached is not None and cached[0] == version:
        return cached[1]
    with _lock:
        if _cached is None or _cached[0] != version:
            _cached = (version, _build(registry.all_tools()))
        return _cached[1]


def _groups(query: str, index: _Index) -> list[dict[str, float]]:
    """Per word of the request, the stems that may stand for it and how much each counts."""
    groups: list[dict[str, float]] = []
    seen: set[str] = set()
    for word in words(query):
        stem = _stem(word)
        if word in STOP_WORDS or stem in _STOP_STEMS or stem in seen:
            continue
        seen.add(stem)
        group = {stem: 1.0}
        for alternative in index.synonyms.get(stem, ()):
            group.setdefault(alternative, SYNONYM_WEIGHT)
        # "add a new ...": a word that says only what another already said counts once.
        if any(group.keys() <= other.keys() for other in groups):
            continue
        groups = [other for other in groups if not other.keys() <= group.keys()]
        groups.append(group)
    return groups


def rank(specs: Sequence[ToolSpec], query: str) -> list[tuple[float, ToolSpec]]:
    """The tools of `specs` that share a word with `query`, best first, with their scores."""
    index = _index()
    groups = _groups(query, index)
    if not groups:
        return []
    wanted = {spec.name: spec for spec in specs}
    total = len(index.counts)
    scores: dict[str, float] = defaultdict(float)
    matched: Counter[str] = Counter()
    for group in groups:
        best: dict[str, float] = {}
        for stem, weight in group.items():
            names = index.postings.get(stem, frozenset())
            if not names:
                continue
            idf = math.log(1 + (total - len(names) + 0.5) / (len(names) + 0.5))
            for name in names:
                if name not in wanted:
                    continue
                count = index.counts[name][stem]
                norm = K1 * (1 - B + B * index.lengths[name] / index.average)
                score = weight * idf * count * (K1 + 1) / (count + norm)
                if score > best.get(name, 0.0):
                    best[name] = score
        for name, score in best.items():
            scores[name] += score
            matched[name] += 1
    # A tool that answers more of the request's words is the better answer (Lucene's "coord"),
    # and one whose whole name the request says ("search contacts") the best of its neighbours.
    said = {stem for group in groups for stem in group}
    for name in scores:
        scores[name] *= matched[name] / len(groups)
        if index.named[name] <= said:
            scores[name] *= NAME_BONUS
    ranked = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
    return [(score, wanted[name]) for name, score in ranked]
