"""How searchTools ranks the catalogue: BM25 over what each tool is, in the words people use.

A tool is indexed as fields of different weight: its name (split at its capitals, so
`createCalendarEvent` is "create calendar event", its verb counting less than its nouns), its
title, the words of its area (the area's title and key, and the words people use for its things:
the area's declared `words`), the phrases its area gives for it (`hints`: "recycle bin" for the
trash; they are never sent to a client), its description, and its arguments' names and
descriptions. Words are compared by their English stems (Snowball) in their American spelling, so
"scheduling" finds what "schedule" names and "organise" what "organize" does.

A request is read the same way, without the words that say nothing ("my", "the", "please"), in
four steps that do not depend on any one request (apps.catalogue.vocabulary):

1. people's phrases become the catalogue's words ("get rid of" is delete, "time off" is leave,
   "clock me out" is clock and end), and a negated word its opposite where the catalogue has one
   ("hasn't paid" is unpaid);
2. each word also looks for the catalogue's words for the same thing (`SYNONYMS`: a diary is a
   calendar, a CV a candidate's, to scrap is to delete); a word and its synonyms count once, by
   the best of them, so saying the same thing twice does not outrank a request that says two;
3. a word the catalogue and the vocabulary do not know is read as two known words run together
   ("selfassessment"), or else as the nearest known word one or two typing mistakes away
   (rapidfuzz's optimal string alignment distance over the index's words), for a little less, and
   only if it is no English word or one far rarer than the known word ("calender", not "lease");
4. the area step: the areas whose nouns the request names (their keys, titles, `words` and their
   tools' names), each noun by how few areas it names, say which areas it is about, and a tool of
   an area it names less counts less.

Then a tool that answers more of the request's words ranks higher (Lucene's "coord"), and one
whose whole name the request says higher still. With a model backend configured, the first twenty
may be put in order by it (apps.catalogue.rerank, off by default), never needed for the figures of
the offline search.

The weights were set against the tuning part of the request set (apps/<area>/tests/searches.py,
run by apps/catalogue/tests/test_search_quality.py): change them only with it, and never from the
held-out part (docs/catalogue.md, "How searchTools ranks").

The index is built once per registry version; a search reads only the tools that share a stem with
the request.
"""

from __future__ import annotations

import math
import re
import threading
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import snowballstemmer
from rapidfuzz import process
from rapidfuzz.distance import OSA

from apps.catalogue import registry
from apps.catalogue.registry import ToolSpec
from apps.catalogue.vocabulary import (
    NEGATIONS,
    PHRASE_FILLERS,
    PHRASES,
    STOP_WORDS,
    SYNONYMS,
    english_count,
    spelling,
)
from apps.core import areas

_STEMMER = snowballstemmer.stemmer("english")
_WORD = re.compile(r"[a-z0-9]+")
_CAPITAL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_HYPHEN = re.compile(r"(?<=[A-Za-z])-(?=[A-Za-z])")
_APOSTROPHE = re.compile(r"(?<=[A-Za-z])['\u2019](?=[A-Za-z])")
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
    "argument text": 0.05,
    "hints": 2.0,
}
# How much more a tool counts when the request says its whole name.
NAME_BONUS = 1.3
# A synonym counts a little less than the word the person used, and a word read through a typo
# less again.
SYNONYM_WEIGHT = 0.7
TYPO_WEIGHT = 0.8
# The area step: a tool of an area the request names half as much as the area it names most keeps
# 1 - AREA_WEIGHT / 2 of its score.
AREA_WEIGHT = 0.2
# A word that is also English is read as a typo of a known word only if that word is written this
# many times more often ("calender" is calendar; "lease" stays lease, not leave).
TYPO_ODDS = 50
# Longest phrase of PHRASES, in words.
_LONGEST_PHRASE = max(len(phrase.split()) for phrase in PHRASES)


def words(text: str) -> list[str]:
    """The lowercase words of a text, a camelCase name split at its capitals, accents and
    apostrophes dropped ("résumé" is "resume", "hasn't" is "hasnt"); a time of day ("10am",
    "9:30") is the word "time", and a hyphenated word is one word ("to-do" is "todo")."""
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    text = _APOSTROPHE.sub("", _HYPHEN.sub("", text))
    return [
        "time" if _TIME.fullmatch(word) else word
        for word in _WORD.findall(_CAPITAL.sub(" ", _CLOCK.sub(" time ", text)).lower())
    ]


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    """A word's stem, in American spelling (the index reads the same few thousand words many
    times: the cache is most of its build)."""
    return str(_STEMMER.stemWord(spelling(word)))


def stems(text: str) -> list[str]:
    return [_stem(word) for word in words(text)]


def _phrased(said: list[str], known: frozenset[str]) -> list[str]:
    """The words of a request with people's phrases read as the catalogue's word, and a word after
    a negation as its opposite where the catalogue has one ("not paid" is also "unpaid")."""
    out: list[str] = []
    i = 0
    while i < len(said):
        for length in range(min(_LONGEST_PHRASE, len(said) - i), 1, -1):
            taken = said[i : i + length]
            phrase = PHRASES.get(" ".join(taken))
            # "clock me out": the phrase with a pronoun inside it.
            if phrase is None and length > 2 and taken[1] in PHRASE_FILLERS:
                phrase = PHRASES.get(" ".join([taken[0], *taken[2:]]))
            if phrase is not None:
                out += phrase.split()
                i += length
                break
        else:
            out.append(said[i])
            i += 1
    negated: list[str] = []
    for position, word in enumerate(out):
        negated.append(word)
        # The negated word is one of the next two that say something ("hasn't been paid").
        after = [other for other in out[position + 1 : position + 4] if other not in STOP_WORDS][:2]
        if word in NEGATIONS:
            negated += [f"un{other}" for other in after if f"un{other}" in known]
    return negated


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
    # tool name -> its area's key
    area: dict[str, str]
    # stem -> the areas whose nouns it is (its title, key, `words` and its tools' names), and how
    # much it says which area is meant (log of areas over those it names)
    area_stems: dict[str, tuple[frozenset[str], float]]
    # The words a typo is read as: those of the index and of the vocabulary, the most used first
    # (a tie goes to the commoner word).
    known: tuple[str, ...]
    # The same words, as a set, with the vocabulary's (for negations).
    surface: frozenset[str]


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
        "argument text": " ".join(_argument_text(arguments)),
        "hints": hints,
    }


def _argument_text(properties: dict[str, object]) -> Iterable[str]:
    """The descriptions and enum values of a tool's arguments, nested ones too: what they take
    often says what the tool does ("status: draft, approved, void")."""
    for schema in properties.values():
        if not isinstance(schema, dict):
            continue
        description = schema.get("description")
        if isinstance(description, str):
            yield description
        for value in schema.get("enum", ()):
            if isinstance(value, str):
                yield value
        items = schema.get("items")
        if isinstance(items, dict):
            yield from _argument_text({"items": items})
        nested = schema.get("properties")
        if isinstance(nested, dict):
            yield from _argument_text(nested)


def _build(specs: Iterable[ToolSpec]) -> _Index:
    counts: dict[str, dict[str, float]] = {}
    postings: dict[str, set[str]] = defaultdict(set)
    named: dict[str, frozenset[str]] = {}
    area: dict[str, str] = {}
    used: Counter[str] = Counter()
    nouns: dict[str, set[str]] = defaultdict(set)
    for spec in specs:
        named[spec.name] = frozenset(stems(spec.name))
        area[spec.name] = spec.area
        for stem in stems(spec.name)[1:]:
            nouns[stem].add(spec.area)
        bag: dict[str, float] = defaultdict(float)
        for field, text in _fields(spec).items():
            for word in words(text):
                stem = _stem(word)
                if stem not in _INDEX_STOP_STEMS:
                    bag[stem] += WEIGHTS[field]
                    used[word] += 1
        counts[spec.name] = dict(bag)
        for stem in bag:
            postings[stem].add(spec.name)
    lengths = {name: sum(bag.values()) for name, bag in counts.items()}
    average = sum(lengths.values()) / len(lengths) if lengths else 1.0
    for key in set(area.values()):
        declared = areas.get(key)
        said = f"{key} {declared.title} {declared.words}" if declared is not None else key
        for stem in stems(said):
            nouns[stem].add(key)
    count = len(set(area.values())) or 1
    area_stems = {
        stem: (frozenset(keys), math.log(1 + count / len(keys)))
        for stem, keys in nouns.items()
        if stem not in _STOP_STEMS
    }
    # Words of one stem ("remind", "reminder") share their alternatives.
    alike: dict[str, dict[str, None]] = defaultdict(dict)
    for word, alternatives in SYNONYMS.items():
        alike[_stem(word)].update(dict.fromkeys(_stem(alternative) for alternative in alternatives))
    synonyms = {stem: tuple(alternatives) for stem, alternatives in alike.items()}
    vocabulary = set(SYNONYMS) | set(PHRASES.values())
    for word in vocabulary:
        used[word] += 0
    known = tuple(
        word
        for word, _count in sorted(used.items(), key=lambda item: (-item[1], item[0]))
        if len(word) >= 3 and not word.isdigit()
    )
    return _Index(
        counts=counts,
        lengths=lengths,
        average=average or 1.0,
        postings={stem: frozenset(names) for stem, names in postings.items()},
        synonyms=synonyms,
        named=named,
        area=area,
        area_stems=area_stems,
        known=known,
        surface=frozenset(used) | vocabulary,
    )


_STOP_STEMS = frozenset(_stem(word) for word in STOP_WORDS)
# A request's "get" says nothing ("get me the invoice"), but a tool's verb "get" is what "show",
# "open" and "fetch" look for.
_INDEX_STOP_STEMS = _STOP_STEMS - {"get"}
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


def warm() -> None:
    """Build the index now (at start-up) rather than in the first request's time."""
    _index()


def _typo(word: str, index: _Index) -> str | None:
    """The known word `word` is most likely a mistyping of: one edit away (a letter wrong, missing,
    extra, or two swapped), two for a word of eight letters or more, and, if `word` is English
    too, far more often written; None if there is none."""
    if len(word) < 4 or word.isdigit():
        return None
    limit = 2 if len(word) >= 8 else 1
    found = process.extractOne(word, index.known, scorer=OSA.distance, score_cutoff=limit)
    if found is None:
        return None
    meant, written = str(found[0]), english_count(word)
    if written and english_count(meant) < written * TYPO_ODDS:
        return None
    return meant


def _compound(word: str, index: _Index) -> tuple[str, str] | None:
    """An unknown word written as two known ones ("selfassessment", "timesheet"): the split whose
    shorter half is longest."""
    splits = [
        (word[:cut], word[cut:])
        for cut in range(3, len(word) - 2)
        if _known(word[:cut], index) and _known(word[cut:], index)
    ]
    return max(splits, key=lambda halves: min(map(len, halves)), default=None)


def _known(word: str, index: _Index) -> bool:
    stem = _stem(word)
    return stem in index.postings or stem in index.synonyms


def _group(word: str, weight: float, index: _Index) -> dict[str, float]:
    stem = _stem(word)
    group = {stem: weight}
    for alternative in index.synonyms.get(stem, ()):
        group.setdefault(alternative, weight * SYNONYM_WEIGHT)
    return group


def _groups(query: str, index: _Index) -> list[dict[str, float]]:
    """Per word of the request, the stems that may stand for it and how much each counts."""
    groups: list[dict[str, float]] = []
    seen: set[str] = set()
    for word in _phrased(words(query), index.surface):
        stem = _stem(word)
        if word in STOP_WORDS or stem in _STOP_STEMS or stem in seen:
            continue
        seen.add(stem)
        if stem in index.postings or stem in index.synonyms:
            group = _group(word, 1.0, index)
        elif parts := _compound(word, index):
            # "selfassessment" (from "self-assessment"): its two known words, each on its own.
            for part in parts:
                if _stem(part) not in seen and part not in STOP_WORDS:
                    seen.add(_stem(part))
                    groups.append(_group(part, 1.0, index))
            continue
        else:
            meant = _typo(word, index)
            group = {stem: 1.0} if meant is None else _group(meant, TYPO_WEIGHT, index)
        # "add a new ...": a word that says only what another already said counts once, each of
        # their stems by the most either gives it.
        wider = next((other for other in groups if group.keys() <= other.keys()), None)
        if wider is not None:
            for alike, weight in group.items():
                wider[alike] = max(wider[alike], weight)
            continue
        for other in [other for other in groups if other.keys() <= group.keys()]:
            for alike, weight in other.items():
                group[alike] = max(group[alike], weight)
            groups.remove(other)
        groups.append(group)
    return groups


def _areas_meant(groups: list[dict[str, float]], index: _Index) -> dict[str, float]:
    """How much the request is about each area: per word, the areas whose nouns it names, each
    word counting by how few areas it names ("invoice" says more than "list")."""
    about: dict[str, float] = defaultdict(float)
    for group in groups:
        best: dict[str, float] = {}
        for stem, weight in group.items():
            keys, says = index.area_stems.get(stem, (frozenset(), 0.0))
            for key in keys:
                best[key] = max(best.get(key, 0.0), weight * says)
        for key, score in best.items():
            about[key] += score
    return about


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
    about = _areas_meant(groups, index)
    top = max(about.values(), default=0.0)
    for name in scores:
        scores[name] *= matched[name] / len(groups)
        if index.named[name] <= said:
            scores[name] *= NAME_BONUS
        if top:
            scores[name] *= 1 - AREA_WEIGHT + AREA_WEIGHT * about.get(index.area[name], 0.0) / top
    ranked = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
    return [(score, wanted[name]) for name, score in ranked]
