"""How searchTools ranks the catalogue: BM25 over what each tool is, in the words people use.

A tool is indexed as fields of different weight: its name (split at its capitals, so
`createCalendarEvent` is "create calendar event", its verb counting less than its nouns), its
title, the words of its area (the area's title and key, and the words people use for its things:
the area's declared `words`), the phrases its area gives for it (`hints`: "recycle bin" for the
trash; they are never sent to a client), its description, and its arguments' names, descriptions,
enum values and nested fields (read from its signature: the index needs no schema built). Words
are compared by their English stems (Snowball) in their American spelling, so "scheduling" finds
what "schedule" names and "organise" what "organize" does.

A request is read the same way, without the words that say nothing ("my", "the", "please"), in
steps that do not depend on any one request (apps.catalogue.vocabulary):

1. its form: clauses cut at their punctuation; an e-mail address dropped (it says who, not what),
   a path read as "path", a file's name as a file, a web address as a domain; what follows a
   colon as the details of what precedes it; a time of day named as a thing as the meeting at it
   ("decline the 4pm"); a number dropped (it says which record or how much); a hyphenated word
   the search does not know read as its parts ("lead-gen");
2. people's phrases become the catalogue's words ("get rid of" is delete, "time off" is leave,
   "clock me out" is clock and end), a phrasal verb too around its object ("push the 1:1 back",
   "let Noor edit it"), or around a time ("take the 4th off"), "what's on" only where no record
   follows it, and none that ends in a preposition before a time ("which quotes did we send in
   June" sent them), a record's kind as a clause's verb makes one ("bill Northwind"), a person added
   to a record joins it ("add Marta to the meeting"), and a negated word its opposite where the
   catalogue has one ("hasn't paid" is unpaid);
3. what a request only mentions counts less than what it asks for: the words after a topic marker
   ("about the invoice", "saying Friday works") or a record's name ("the file called brand
   guidelines"), of what not to do ("don't post it"), of what someone is told ("notify Dev that
   ..."), of why ("so I get updates"), in a run of nouns all but the last ("the budget review
   meeting" is a meeting), and the verb of a question about what was done to records it names
   ("which quotes did we send");
4. each word also looks for the catalogue's words for the same thing (`SYNONYMS`: a diary is a
   calendar, a CV a candidate's, to scrap is to delete); a word and its synonyms count once, by
   the best of them, so saying the same thing twice does not outrank a request that says two;
5. a word the catalogue and the vocabulary do not know is read as two known words run together
   ("selfassessment", "payslip"; never a common English word: "whiteboard"), or else as the
   nearest known word one or two typing mistakes away (rapidfuzz's optimal string alignment
   distance over the index's words; of those as near, one the word is with letters left out), or
   the one its stem is a mistake from, for a little less, and only if it is no English word or one
   far rarer than the known word ("calender", not "lease");
6. the area step: the areas whose nouns the request names (their keys, titles, `words` and their
   tools' names), each noun by how few areas it names, say which areas it is about, and a tool of
   an area it names less counts less;
7. a question (as its last sentence says) is answered by a tool that reads: one that changes
   things counts less.

Then a tool that answers more of the request's words ranks higher (Lucene's "coord", softened so
that one rare word answered well is not buried under several common ones), one that says two of
the request's words in the request's order ("email signature") higher, and one whose whole name
the request says higher still. A request none of whose words finds a tool reads
each as the known words most like it, however far, and one that is like nothing gets the areas'
summaries: only an empty request finds nothing. With a model backend configured, the first twenty
may be put in order by it (apps.catalogue.rerank, off by default), never needed for the figures of
the offline search.

The weights were set against the tuning part of the request set (apps/<area>/tests/searches.py and
searches_dev.py, run by apps/catalogue/tests/test_search_quality.py): change them only with it,
and never from the held-out part (docs/catalogue.md, "How searchTools ranks").

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
from dataclasses import dataclass, field
from enum import Enum
from functools import lru_cache
from itertools import pairwise
from typing import Annotated, Literal, get_args, get_origin, get_type_hints

import snowballstemmer
from pydantic import BaseModel
from pydantic.alias_generators import to_camel
from pydantic.fields import FieldInfo
from rapidfuzz import fuzz, process
from rapidfuzz.distance import OSA

from apps.catalogue import registry
from apps.catalogue.registry import CONFIRMATION_ARGUMENT, ToolSpec
from apps.catalogue.vocabulary import (
    ASKING,
    CLAUSE_END_PHRASES,
    LAST_PARTICLES,
    NAME_MARKERS,
    NEGATIONS,
    NOT_PROHIBITING,
    PARTICLES,
    PERSON_ADDED,
    PHRASE_FILLERS,
    PHRASES,
    PROHIBITIONS,
    PURPOSE_AFTER,
    REQUESTING,
    SPEAKER,
    SPLIT_VERBS,
    STOP_WORDS,
    SYNONYMS,
    TELLING,
    TIMED_PHRASES,
    TOPIC_MARKERS,
    VERB_SENSES,
    WHEN,
    english_count,
    spelling,
)
from apps.core import areas

_STEMMER = snowballstemmer.stemmer("english")
_WORD = re.compile(r"[a-z0-9]+")
_CAPITAL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_HYPHEN = re.compile(r"(?<=[A-Za-z])-(?=[A-Za-z])")
_HYPHENATED = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)+")
_APOSTROPHE = re.compile(r"(?<=[A-Za-z])['\u2019](?=[A-Za-z])")
_CLOCK = re.compile(r"\b\d{1,2}[:.]\d{2}\b")
_TIME = re.compile(r"\d{1,2}(am|pm)|noon|midday|oclock")
_CLAUSE_END = re.compile(r"[,;.!?:]+(?=\s|$)")
_SENTENCE_END = re.compile(r"(?<=[;.!?])\s+")
# What a request names by its form rather than its words: an e-mail address says who, not what
# (dropped); a telephone number says a person's details are given; a path
# ("/Clients/Acme/brief.pdf", "Shared/Notes") is a path; a file's name ("leads.csv") a file; a web
# address ("quanta-labs.com") a domain.
_ADDRESS = re.compile(r"\S+@\S+\.\w+")
_PATH = re.compile(r"(?<![\w/])/\w[^\s]*|\b\w+(?:/\w+)+\b")
_FILE_NAME = re.compile(
    r"\b[\w-]+\.(?:pdf|docx?|xlsx?|csv|txt|md|pptx?|png|jpe?g|gif|zip|json|odt|ods|rtf|html?)\b", re.I
)
# "add Marta to the planning meeting", "put Ian Holt on the Fenwick account": a person (a name
# written with capitals) added to a record joins it, which makes nothing new (`PERSON_ADDED`).
_PERSON_ADDED = re.compile(
    r"\b(?:[Aa]dd|[Pp]ut)\s+(?=(?:[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?|\S+@\S+\.\w+)\s+(?:to|on|onto|into)\b)"
)
# "decline the 4pm", "move my 10:30 to 11": a time of day named as a thing is the meeting at it.
_TIMED_EVENT = re.compile(
    r"\b(the|my|our|your|his|her|their|this)\s+(?:\d{1,2}(?:[:.]\d{2})?\s?(?:am|pm)|\d{1,2}[:.]\d{2})"
    r"(?=\s*(?:$|[,;.!?]|(?:with|for|to|on|in|from|and|today|tomorrow)\b))",
    re.I,
)
# A word with a capital that does not start a sentence: a name.
_NAME = re.compile(r"(?<![.!?:]\s)(?<=\s)[A-Z][a-z]+\b")
# A telephone number ("+34 612 555 010", "07700 900123"): a person's details are being given.
_PHONE = re.compile(r"(?<![\w.,£$€])(?:\+\d|0\d)[\d ().-]{7,}\d\b")
_DOMAIN = re.compile(r"\b[\w-]+(?:\.[\w-]+)*\.(?:com|org|net|io|co|uk|de|fr|eu|info|biz|app|dev)\b", re.I)

# BM25: how fast repeating a word stops adding (k1), and how much a tool's length counts (b).
K1 = 1.5
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
    "argument fields": 0.25,
    "hints": 2.0,
}
# A tool that answers more of the request's words ranks higher: its score is multiplied by the
# share of the request's words it answers raised to COORD_EXPONENT (Lucene's "coord" at 1; below
# 1 a tool that answers one rare word of the request well is not buried under one that answers
# more of its common ones).
COORD_EXPONENT = 0.6
# Two words of the request said one after the other ("email signature", "phone number") that a
# tool says so too, in its name, title, hints or description: its score is multiplied by
# 1 + PAIR_BONUS for each such pair.
PAIR_BONUS = 0.2
PAIRED = ("name", "title", "hints", "description")
# How much more a tool counts when the request says its whole name.
NAME_BONUS = 1.3
# A question ("which invoices are overdue?") is answered by a tool that reads: one that changes
# things keeps this much of its score.
QUESTION_WEIGHT = 0.5
# A synonym counts a little less than the word the person used, and a word read through a typo
# less again.
SYNONYM_WEIGHT = 0.7
TYPO_WEIGHT = 0.8
# The area step: a tool of an area the request names half as much as the area it names most keeps
# 1 - AREA_WEIGHT / 2 of its score.
AREA_WEIGHT = 0.2
# A request none of whose words finds a tool reads each as the NEAR_COUNT known words most like it
# (rapidfuzz's ratio, 0-100, at least NEAR_CUTOFF), each counting NEAR_WEIGHT times its likeness.
NEAR_COUNT = 3
NEAR_CUTOFF = 60
NEAR_WEIGHT = 0.5
# A word that is also English is read as a typo of a known word only if that word is written this
# many times more often ("calender" is calendar; "lease" stays lease, not leave).
TYPO_ODDS = 50
TYPO_LONG = 8
# The words of what a request is about or says ("about the invoice", "saying Friday works") count
# this much of those of what it asks for.
TOPIC_WEIGHT = 0.4
MODIFIER_WEIGHT = 0.8
# The verb of a question about what was done to records it names ("which quotes did we send")
# counts this much.
DONE_WEIGHT = 0.5
# The words after a colon, the details of what the words before it ask for, count this much.
COLON_WEIGHT = 0.8
# How many words that say something may stand inside a phrasal verb ("push the 1:1 with Jamal
# back", "hand every customer he owns over").
SPLIT_GAP = 3
# A word written this often in English is a word of its own, never two run together ("wholesale"
# is no "whole sale", "whiteboard" no "white board", "copywriting" no "copy writing"); a rarer one
# may be ("payslip", and "timesheet" and "selfassessment", which are no words of the dictionary).
COMMON_WORD = 100_000
# Longest phrase of PHRASES, in words.
_LONGEST_PHRASE = max(len(phrase.split()) for phrase in PHRASES)


def words(text: str, known: frozenset[str] | None = None) -> list[str]:
    """The lowercase words of a text, a camelCase name split at its capitals, accents and
    apostrophes dropped ("résumé" is "resume", "hasn't" is "hasnt"); a time of day ("10am",
    "9:30") is the word "time", and a hyphenated word is one word ("to-do" is "todo"), or, given
    the words the search `known`s and it is none of them, its parts ("lead-gen" is "lead gen",
    "part-time" "part time")."""
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    if known is not None:
        text = _HYPHENATED.sub(lambda found: _hyphenated(found.group(), known), text)
    text = _APOSTROPHE.sub("", _HYPHEN.sub("", text))
    return [
        "time" if _TIME.fullmatch(word) else word
        for word in _WORD.findall(_CAPITAL.sub(" ", _CLOCK.sub(" time ", text)).lower())
    ]


def _hyphenated(word: str, known: frozenset[str]) -> str:
    joined = word.replace("-", "")
    return joined if joined.lower() in known or spelling(joined.lower()) in known else word.replace("-", " ")


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    """A word's stem, in American spelling (the index reads the same few thousand words many
    times: the cache is most of its build)."""
    return str(_STEMMER.stemWord(spelling(word)))


def stems(text: str) -> list[str]:
    return [_stem(word) for word in words(text)]


@lru_cache(maxsize=16384)
def _told(text: str) -> tuple[tuple[str, str], ...]:
    """A tool's text as its words and their stems, read once: an area's words stand in each of its
    tools, and arguments such as "limit" in most tools, and the pairs read the same text again."""
    return tuple((word, _stem(word)) for word in words(text))


def _clauses(text: str) -> list[str]:
    """A request cut where its punctuation ends a clause ("..., don't send it yet"), not inside a
    number or a name ("1,204.50", "notes.md"), with what it names by its form read as words."""
    text = _PERSON_ADDED.sub(f"{PERSON_ADDED} ", text)
    text = _TIMED_EVENT.sub(lambda found: f"{found.group(1)} meeting", text)
    text = _ADDRESS.sub(" ", text)
    text = _PHONE.sub(" phone ", text)
    text = _PATH.sub(lambda found: " path " if _is_path(found.group()) else found.group(), text)
    text = _FILE_NAME.sub(lambda found: f"{found.group()} file", text)
    text = _DOMAIN.sub(" domain ", text)
    return [part for part in _CLAUSE_END.split(text) if part.strip()]


def _detailed(text: str) -> list[tuple[str, float]]:
    """The clauses of a request, each with how much its words count: after a colon come the
    details of what the words before it ask for ("set a follow-up on the deal: send the revised
    quote", "new task: prepare the board pack"), which count COLON_WEIGHT of them."""
    asked, colon, details = text.partition(": ")
    if not colon or not any(word not in STOP_WORDS for word in words(asked)):
        return [(clause, 1.0) for clause in _clauses(text)]
    return [(clause, 1.0) for clause in _clauses(asked)] + [
        (clause, COLON_WEIGHT) for clause in _clauses(details)
    ]


def _is_path(text: str) -> bool:
    """ "/Finance/2024" or "Shared/Notes" is a path; "and/or" and "3/4/2025" are not."""
    return text.startswith("/") or any(part[:1].isupper() for part in text.split("/"))


def _phrased(said: list[str], known: frozenset[str]) -> list[tuple[str, float]]:
    """The words of a clause, each with how much it counts: people's phrases read as the
    catalogue's word, a phrasal verb too when its object stands inside it ("push the 1:1 back"),
    a word after a negation also as its opposite where the catalogue has one ("not paid" is also
    "unpaid"), and the words of what a request is about or says ("about the invoice", "saying
    Friday works") counting less than those of what it asks for."""
    out: list[str] = []
    # Words a phrase stands for: each is what the request asks for, none a modifier.
    phrased: set[int] = set()
    skip: set[int] = set()
    i = 0
    while i < len(said):
        if i in skip:
            i += 1
            continue
        found = _phrase_at(said, i)
        if found is not None:
            length, phrase = found
            phrased.update(range(len(out), len(out) + len(phrase.split())))
            out += phrase.split()
            i += length
        else:
            split = _split_phrase(said, i)
            if split is None:
                out.append(said[i])
            else:
                end, meant = split
                phrased.update(range(len(out), len(out) + len(meant.split())))
                out += meant.split()
                skip.add(end)
            i += 1
    # A record's kind as a clause's verb makes one ("bill Northwind for 10 hours" invoices them);
    # before a number it names one ("invoice 332 is paid").
    if out and out[0] in VERB_SENSES and 0 not in phrased and not (out[1:2] and out[1].isdigit()):
        sense = VERB_SENSES[out[0]].split()
        phrased = {at + len(sense) - 1 for at in phrased} | set(range(len(sense)))
        out = [*sense, *out[1:]]
    weighted: list[tuple[str, float]] = []
    # A clause that says what not to do ("..., don't post it") names no tool as much as the rest.
    weight = TOPIC_WEIGHT if _prohibits(out) else 1.0
    modifiers = _modifiers(out, known, phrased)
    done_verbs = _done_verbs(out, known)
    for position, word in enumerate(out):
        named = word in NAME_MARKERS and position > 0 and out[position - 1] in known
        # What someone is told ("notify Dev that the deal changed owner") and why a request is made
        # ("follow the task so I get updates") are no more than what it is about.
        told = word == "that" and any(other in TELLING for other in out[max(0, position - 4) : position - 1])
        purpose = word == "so" and out[position + 1 : position + 2] and out[position + 1] in PURPOSE_AFTER
        if word in TOPIC_MARKERS or (named and out[position - 1] not in STOP_WORDS) or told or purpose:
            # The marker itself says what follows is a topic (or a record's name: "the file
            # called brand guidelines"), not which tool is meant.
            weight = TOPIC_WEIGHT
            continue
        done = position in done_verbs
        weighted.append(
            (
                word,
                weight * (MODIFIER_WEIGHT if position in modifiers else 1.0) * (DONE_WEIGHT if done else 1.0),
            )
        )
        # The negated word is one of the next two that say something ("hasn't been paid").
        after = [other for other in out[position + 1 : position + 4] if other not in STOP_WORDS][:2]
        if word in NEGATIONS:
            weighted += [(f"un{other}", weight) for other in after if f"un{other}" in known]
    return weighted


def _done_verbs(out: list[str], known: frozenset[str]) -> set[int]:
    """The position of the verb of a question about what was done to records it has named ("which
    quotes did we send", "which invoices have we approved"): it says which of them, not what to do."""
    for position in range(2, len(out)):
        if (
            out[position - 2] in _DONE_AUXILIARIES
            and out[position - 1] in _DOERS
            and any(word in known and word not in STOP_WORDS for word in out[: position - 2])
        ):
            return {position}
    return set()


_DONE_AUXILIARIES = frozenset(["did", "have", "has", "had"])
_DOERS = frozenset(["we", "i", "you", "they", "he", "she"])


def _prohibits(out: list[str]) -> bool:
    """Whether a clause says what not to do: "don't post it", "do not send it", "never email
    them", not "don't forget to invoice them"."""
    if out[:2] == ["do", "not"]:
        out = ["dont", *out[2:]]
    return bool(out) and out[0] in PROHIBITIONS and not (out[1:2] and out[1] in NOT_PROHIBITING)


def _phrase_at(said: list[str], start: int) -> tuple[int, str] | None:
    """The longest of people's phrases that starts at `start` (a pronoun inside it too: "clock me
    out"), as how many words it takes and what it means; one that asks for what is on a day
    ("what's on") only where no word that says something follows it in its clause ("what's on
    quote 31" asks for the quote)."""
    for length in range(min(_LONGEST_PHRASE, len(said) - start), 1, -1):
        # Read in American spelling, as PHRASES is written ("organisation chart").
        taken = [spelling(word) for word in said[start : start + length]]
        key = " ".join(taken)
        phrase = PHRASES.get(key)
        if phrase is None and length > 2 and taken[1] in PHRASE_FILLERS:
            key = " ".join([taken[0], *taken[2:]])
            phrase = PHRASES.get(key)
        if phrase is None:
            continue
        if key in CLAUSE_END_PHRASES and any(word not in STOP_WORDS for word in said[start + length :]):
            continue
        if (
            taken[-1] in _TIME_PREPOSITIONS
            and key not in CLAUSE_END_PHRASES
            and _starts_a_time(said[start + length :])
        ):
            continue
        return length, phrase
    return None


# A phrase that ends in one of these is none where a time follows: "which quotes did we send in
# June" sent them, "send in the return" submits it.
_TIME_PREPOSITIONS = frozenset(["in", "on", "at", "by", "over", "through"])
_BEFORE_A_TIME = frozenset(["the", "this", "next", "last", "early", "late", "mid", "end", "of", "a"])


def _starts_a_time(rest: list[str]) -> bool:
    """Whether the words `rest` start with a time ("June", "the 4th", "early next week", "2024")."""
    for word in rest[:4]:
        if _is_when(word):
            return True
        if word not in _BEFORE_A_TIME:
            return False
    return False


def _modifiers(out: list[str], known: frozenset[str], phrased: set[int]) -> set[int]:
    """The positions of the nouns that say what kind of a thing the noun after them is ("the
    budget review meeting" is a meeting): in a run of words that say something, every known word
    but the last, save the clause's first (its verb, most often)."""
    found: set[int] = set()
    run: list[int] = []
    first = True
    for position, word in enumerate([*out, "."]):
        if (
            word in STOP_WORDS
            or word in TOPIC_MARKERS
            or word in NAME_MARKERS
            or word in NEGATIONS
            or word == "."
        ):
            known_run = [at for at in run if out[at] in known and at not in phrased]
            found.update(known_run[:-1])
            run = []
            continue
        if first:
            first = False
            continue
        run.append(position)
    return found


def _split_phrase(said: list[str], start: int) -> tuple[int, str] | None:
    """A phrasal verb whose object stands inside it ("hand every customer he owns over", "let Noor
    edit"): the position of its last word and what it means, or None."""
    verb = said[start]
    for end in range(start + 2, len(said)):
        word = said[end]
        between = said[start + 1 : end]
        if sum(other not in STOP_WORDS for other in between) > SPLIT_GAP:
            return None
        if word in SPLIT_VERBS.get(verb, {}):
            # "let me see the invoice" asks to be shown it, "let Noor see it" to share it.
            return None if between[0] in SPEAKER else (end, SPLIT_VERBS[verb][word])
        particle = word in PARTICLES or (word in LAST_PARTICLES and end == len(said) - 1)
        # "take the 4th off" asks for leave, "take Josh off the invite" to remove him: what stands
        # inside is a time when it names nothing but days and numbers.
        timed = any(_is_when(other) for other in between) and all(
            other in STOP_WORDS or _is_when(other) for other in between
        )
        meant = TIMED_PHRASES.get(f"{verb} {word}") if timed else None
        if meant is None and particle:
            meant = PHRASES.get(f"{verb} {word}")
        if meant is not None:
            return end, meant
    return None


def _is_when(word: str) -> bool:
    return word.isdigit() or word == "time" or word in WHEN


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
    # Two words one after the other in a tool's name, title, hints or description (their stems,
    # the words that say nothing left out) -> the tools that say them so
    pairs: dict[tuple[str, str], frozenset[str]]
    # What words the index does not know were read as (a name, a typo), as _typo found: people
    # write the same names and slips again, and each costs a pass over the known words.
    typos: dict[str, str | None] = field(default_factory=dict)


def _fields(spec: ToolSpec) -> dict[str, str]:
    area = areas.get(spec.area)
    area_words, hints = [spec.area], ""
    if area is not None:
        area_words += [str(area.title), area.words]
        hints = area.hints.get(spec.name, "")
    arguments, text, inside = _arguments(spec)
    verb, *rest = words(spec.name)
    return {
        "verb": verb,
        "name": " ".join(rest),
        "title": spec.title,
        "area": " ".join(area_words),
        "description": spec.description,
        "arguments": " ".join(arguments),
        "argument text": " ".join(text),
        "argument fields": " ".join(inside),
        "hints": hints,
    }


def _arguments(spec: ToolSpec) -> tuple[list[str], list[str], list[str]]:
    """A tool's argument names as an agent writes them; what their descriptions and enum values
    say ("status: draft, approved, void"), nested ones too; and the fields of its object arguments
    ("changes": title, dueAt, schedule). Read from the function's signature, as its input schema
    is, so that the index needs no schema built (the registry builds them on first use)."""
    hints = get_type_hints(spec.function, include_extras=True)
    names = [to_camel(parameter) for parameter in spec.parameters]
    if spec.needs_confirmation:
        names.append(CONFIRMATION_ARGUMENT)
    text: list[str] = []
    inside: list[str] = []
    seen: set[type] = set()
    for parameter in spec.parameters:
        _read_type(hints[parameter], text, inside, seen)
    return names, text, inside


def _read_type(hint: object, text: list[str], inside: list[str], seen: set[type]) -> None:
    origin = get_origin(hint)
    if origin is Annotated:
        base, *metadata = get_args(hint)
        text += [item.description for item in metadata if isinstance(item, FieldInfo) and item.description]
        _read_type(base, text, inside, seen)
    elif origin is Literal:
        text += [value for value in get_args(hint) if isinstance(value, str)]
    elif origin is not None:
        for argument in get_args(hint):
            _read_type(argument, text, inside, seen)
    elif isinstance(hint, type) and issubclass(hint, Enum):
        text += [member.value for member in hint if isinstance(member.value, str)]
    elif isinstance(hint, type) and issubclass(hint, BaseModel) and hint not in seen:
        seen.add(hint)
        for name, field in hint.model_fields.items():
            inside.append(field.serialization_alias or field.alias or name)
            if field.description:
                text.append(field.description)
            _read_type(field.annotation, text, inside, seen)


def _build(specs: Iterable[ToolSpec]) -> _Index:
    counts: dict[str, dict[str, float]] = {}
    postings: dict[str, set[str]] = defaultdict(set)
    named: dict[str, frozenset[str]] = {}
    area: dict[str, str] = {}
    used: Counter[str] = Counter()
    nouns: dict[str, set[str]] = defaultdict(set)
    paired: dict[tuple[str, str], set[str]] = defaultdict(set)
    for spec in specs:
        named[spec.name] = frozenset(stems(spec.name))
        area[spec.name] = spec.area
        for stem in stems(spec.name)[1:]:
            nouns[stem].add(spec.area)
        bag: dict[str, float] = defaultdict(float)
        fields = _fields(spec)
        for part, text in fields.items():
            # Read once, clause by clause where its pairs are read too.
            pieces = _CLAUSE_END.split(text) if part in PAIRED and part != "name" else [text]
            for piece in pieces:
                told = [(word, stem) for word, stem in _told(piece) if stem not in _INDEX_STOP_STEMS]
                for word, stem in told:
                    bag[stem] += WEIGHTS[part]
                    used[word] += 1
                if part in PAIRED:
                    for pair in pairwise(stem for _word, stem in told):
                        paired[pair].add(spec.name)
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
        pairs={pair: frozenset(names) for pair, names in paired.items()},
    )


_STOP_STEMS = frozenset(_stem(word) for word in STOP_WORDS)
# A request's "get" says nothing ("get me the invoice"), but a tool's verb "get" is what "show",
# "open" and "fetch" look for.
_INDEX_STOP_STEMS = _STOP_STEMS - {"get"}
# The stems of the tools where a request that names nothing the catalogue knows can start.
_STARTING_STEMS = frozenset(_stem(word) for word in ("summary", "overview", "dashboard"))
# At most this many words' readings are kept per index.
_TYPOS_KEPT = 10_000
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
    if word not in index.typos:
        if len(index.typos) >= _TYPOS_KEPT:
            index.typos.clear()
        index.typos[word] = _read_typo(word, index)
    return index.typos[word]


def _read_typo(word: str, index: _Index) -> str | None:
    """The known word `word` is most likely a mistyping of: one edit away (a letter wrong, missing,
    extra, or two swapped), two for a word of eight letters or more, and, if `word` is English
    too, far more often written; a word of three letters only if it is no English word ("snd", not
    "fee"); else the known word its stem is a mistyping of ("cliets", whose stem "cliet" is one
    letter from "client"). None if there is none."""
    if len(word) < 3 or word.isdigit():
        return None
    written = english_count(word)
    if len(word) == 3 and written:
        return None
    limit = 2 if len(word) >= TYPO_LONG else 1
    meant = _nearest(word, index, limit)
    if meant is None:
        stem = _stem(word)
        if stem == word or len(stem) < 4 or written:
            return None
        meant = _nearest(stem, index, 1)
        if meant is None:
            return None
    if written and english_count(meant) < written * TYPO_ODDS:
        return None
    return meant


def _nearest(word: str, index: _Index, limit: int) -> str | None:
    """The known word fewest edits from `word`; of those as near, one `word` is with letters left
    out ("respnd" is respond rather than resend: a letter is dropped more often than one is
    mistyped), else the commonest; None if none is `limit` edits or fewer away."""
    found = process.extract(word, index.known, scorer=OSA.distance, score_cutoff=limit, limit=None)
    if not found:
        return None
    nearest = min(distance for _known, distance, _position in found)
    tied = [(str(known), position) for known, distance, position in found if distance == nearest]
    tied.sort(key=lambda pair: (not _left_out(word, pair[0]), pair[1]))
    return tied[0][0]


def _left_out(word: str, known: str) -> bool:
    """Whether `word` is `known` with some of its letters left out."""
    letters = iter(known)
    return len(word) < len(known) and all(letter in letters for letter in word)


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


@dataclass
class _Group:
    """A word of the request: the stems that may stand for it, each with how much it counts, and
    how much the word counts among the request's words (less for what the request is about)."""

    stems: dict[str, float]
    weight: float = 1.0


def _groups(query: str, index: _Index) -> list[_Group]:
    """Per word of the request, the stems that may stand for it and how much each counts."""
    groups: list[_Group] = []
    seen: set[str] = set()
    names = _names(query)
    said = [
        (word, weight * told)
        for clause, told in _detailed(query)
        for word, weight in _phrased(words(clause, index.surface), index.surface)
    ]
    for word, weight in said:
        stem = _stem(word)
        # A negation has said what it negates ("hasn't paid" is unpaid), and is no mistyping.
        if word in STOP_WORDS or word in NEGATIONS or stem in _STOP_STEMS or stem in seen or word.isdigit():
            continue
        seen.add(stem)
        if stem in index.postings or stem in index.synonyms:
            group = _group(word, 1.0, index)
        elif english_count(word) < COMMON_WORD and (parts := _compound(word, index)):
            # "selfassessment" (from "self-assessment"): its two known words, each on its own.
            for part in parts:
                if _stem(part) not in seen and part not in STOP_WORDS:
                    seen.add(_stem(part))
                    groups.append(_Group(_group(part, 1.0, index), weight))
            continue
        else:
            meant = None if word in names else _typo(word, index)
            group = {stem: 1.0} if meant is None else _group(meant, TYPO_WEIGHT, index)
        _add(groups, _Group(group, weight))
    return groups


def _names(query: str) -> set[str]:
    """The words written with a capital inside a sentence ("which account is Clara Voss part of"):
    names, which are never read as a mistyping of a known word ("Voss" is no "loss")."""
    return {found.lower() for found in _NAME.findall(query)}


def _add(groups: list[_Group], group: _Group) -> None:
    """ "add a new ...": a word that says only what another already said counts once, each of their
    stems by the most either gives it, the word by the most either counts."""
    wider = next((other for other in groups if group.stems.keys() <= other.stems.keys()), None)
    if wider is not None:
        for alike, weight in group.stems.items():
            wider.stems[alike] = max(wider.stems[alike], weight)
        wider.weight = max(wider.weight, group.weight)
        return
    for other in [other for other in groups if other.stems.keys() <= group.stems.keys()]:
        for alike, weight in other.stems.items():
            group.stems[alike] = max(group.stems[alike], weight)
        group.weight = max(group.weight, other.weight)
        groups.remove(other)
    groups.append(group)


def _near(query: str, index: _Index) -> list[_Group]:
    """For a request none of whose words finds a tool: each word that says something read as the
    known words nearest it, however far, for little ("payrol specialst")."""
    groups: list[_Group] = []
    for word in dict.fromkeys(words(query)):
        if len(word) < 3 or word.isdigit() or word in STOP_WORDS:
            continue
        found = process.extract(
            word, index.known, scorer=fuzz.ratio, limit=NEAR_COUNT, score_cutoff=NEAR_CUTOFF
        )
        stems: dict[str, float] = {}
        for meant, similarity, _position in found:
            for stem, weight in _group(str(meant), NEAR_WEIGHT * similarity / 100, index).items():
                stems[stem] = max(stems.get(stem, 0.0), weight)
        if stems:
            groups.append(_Group(stems))
    return groups


def _areas_meant(groups: list[_Group], index: _Index) -> dict[str, float]:
    """How much the request is about each area: per word, the areas whose nouns it names, each
    word counting by how few areas it names ("invoice" says more than "list")."""
    about: dict[str, float] = defaultdict(float)
    for group in groups:
        best: dict[str, float] = {}
        for stem, weight in group.stems.items():
            keys, says = index.area_stems.get(stem, (frozenset(), 0.0))
            for key in keys:
                best[key] = max(best.get(key, 0.0), weight * says)
        for key, score in best.items():
            about[key] += score * group.weight
    return about


def _asks(query: str) -> bool:
    """Whether the request is a question ("which invoices are overdue?", "who's coming"), not a
    request to do something put as one ("can you add ...?", "how do I ...")."""
    # Its last sentence says: "is the room free at 11? book it" asks for a booking.
    last = _SENTENCE_END.split(query.strip())[-1]
    said = words(last)
    if not said or said[0] in REQUESTING:
        return False
    # "we're organising a conference" says what is done, as "were the invoices sent" does not.
    if said[0] == "were" and _APOSTROPHE.search(last.split()[0]) and not last.rstrip().endswith("?"):
        return False
    if said[0] == "how" and said[1:2] in (["do"], ["can"], ["should"]):
        return False
    return said[0] in ASKING or last.rstrip().endswith("?")


def rank(specs: Sequence[ToolSpec], query: str) -> list[tuple[float, ToolSpec]]:
    """The tools of `specs` for `query`, best first, with their scores: those that share a word
    with it; if none does, those nearest its words; if none is near, where any request can start
    (the areas' summaries and overviews). Only a request that says nothing at all finds nothing."""
    if not query.strip():
        return []
    index = _index()
    wanted = {spec.name: spec for spec in specs}
    asks = _asks(query)
    ranked = _ranked(wanted, _groups(query, index), index, asks, _pairs(query, index)) or _ranked(
        wanted, _near(query, index), index, asks
    )
    if ranked:
        return ranked
    starts = [spec for spec in specs if index.named[spec.name] & _STARTING_STEMS]
    return [(0.0, spec) for spec in sorted(starts, key=lambda spec: spec.name)]


def _pairs(query: str, index: _Index) -> Counter[str]:
    """Per tool, how many pairs of the request's words (one after the other, in one clause) it says
    in the same order."""
    found: Counter[str] = Counter()
    for clause in _clauses(query):
        said: list[str] = []
        meant: list[set[str]] = []
        for word, _weight in _phrased(words(clause, index.surface), index.surface):
            stem = _stem(word)
            if word in STOP_WORDS or word in NEGATIONS or stem in _STOP_STEMS:
                continue
            # A word that says only what an earlier one said ("add a new client") is left out, as
            # it is counted once: the pairs are those of "add a client".
            alike = set(_group(word, 1.0, index))
            if any(alike <= earlier for earlier in meant):
                continue
            meant.append(alike)
            said.append(stem)
        for pair in dict.fromkeys(pairwise(said)):
            found.update(index.pairs.get(pair, ()))
    return found


def _ranked(
    wanted: dict[str, ToolSpec],
    groups: list[_Group],
    index: _Index,
    asks: bool,
    pairs: Counter[str] | None = None,
) -> list[tuple[float, ToolSpec]]:
    if not groups:
        return []
    total = len(index.counts)
    scores: dict[str, float] = defaultdict(float)
    matched: dict[str, float] = defaultdict(float)
    for group in groups:
        best: dict[str, float] = {}
        for stem, weight in group.stems.items():
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
            scores[name] += score * group.weight
            matched[name] += group.weight
    # A tool that answers more of the request's words is the better answer (Lucene's "coord"),
    # and one whose whole name the request says ("search contacts") the best of its neighbours.
    said = {stem for group in groups for stem in group.stems}
    about = _areas_meant(groups, index)
    top = max(about.values(), default=0.0)
    count = sum(group.weight for group in groups)
    for name in scores:
        scores[name] *= (matched[name] / count) ** COORD_EXPONENT
        if index.named[name] <= said:
            scores[name] *= NAME_BONUS
        if top:
            scores[name] *= 1 - AREA_WEIGHT + AREA_WEIGHT * about.get(index.area[name], 0.0) / top
        if pairs and pairs[name]:
            scores[name] *= 1 + PAIR_BONUS * pairs[name]
        if asks and not wanted[name].read_only:
            scores[name] *= QUESTION_WEIGHT
    ranked = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
    return [(score, wanted[name]) for name, score in ranked]
