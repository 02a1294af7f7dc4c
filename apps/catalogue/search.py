"""How searchTools ranks the catalogue: BM25 over what each tool is, in the words people use.

A tool is indexed as fields of different weight: its name (split at its capitals, so
`createCalendarEvent` is "create calendar event"), its title, the words of its area (the area's
title and key, and the words people use for its things, declared as the area's `words`), its
description and its argument names. Words are compared by their English stems (Snowball), so
"scheduling" finds what "schedule" names. A request is read the same way, without the words that
say nothing ("my", "the", "please"), and each of its words also looks for the catalogue's words
for the same thing (`SYNONYMS`: a diary is a calendar, a client a contact, to book is to create).
A word and its synonyms count once, by the best of them, so saying the same thing twice does not
outrank a request that says two things.

The index is built once per registry version; a search reads only the tools that share a stem
with the request.
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
from apps.core import areas

_STEMMER = snowballstemmer.stemmer("english")
_WORD = re.compile(r"[a-z0-9]+")
_CAPITAL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_CLOCK = re.compile(r"\b\d{1,2}[:.]\d{2}\b")
_TIME = re.compile(r"\d{1,2}(am|pm)|noon|midday")

# BM25's usual constants: how fast repeating a word stops adding, and how much length counts.
K1 = 1.2
B = 0.75
# How much a word counts in each part of a tool.
WEIGHTS = {"name": 3.0, "title": 2.0, "area": 1.5, "description": 1.0, "arguments": 0.5}
# A synonym counts a little less than the word the person used.
SYNONYM_WEIGHT = 0.8

# Words that say nothing of which tool is meant.
_SAYS_NOTHING = """
a an the my our your their his her its me us we i you it they them this that these those to
of in on at for from by with about into onto as and or but so if then than please can could
would will shall should may might must do does did be is are was were been am have has had
just also some any all each there here up out over off again want wanted need needs like let
lets what whats which who whom whose when where how why get got gets let's pls thanks
hey hi ok okay now today tomorrow yesterday next last week weeks month day days monday
tuesday wednesday thursday friday saturday sunday am pm morning afternoon evening tonight
"""
STOP_WORDS = frozenset(_SAYS_NOTHING.split())

# The words people use, and the words the catalogue uses for the same thing. Keys and values are
# plain words (stemmed when read); an area adds its own nouns through its declaration's `words`.
SYNONYMS: dict[str, tuple[str, ...]] = {
    # doing
    "add": ("create", "new"),
    "new": ("create",),
    "make": ("create",),
    "put": ("create", "add"),
    "book": ("create", "event"),
    "set": ("create", "update"),
    "setup": ("create",),
    "start": ("create", "start"),
    "write": ("create", "document"),
    "draft": ("draft",),
    "log": ("create", "record"),
    "record": ("create",),
    "register": ("create",),
    "open": ("get", "read"),
    "show": ("get", "list"),
    "see": ("get", "list"),
    "view": ("get", "list"),
    "look": ("search", "get"),
    "find": ("search", "get"),
    "lookup": ("search", "get"),
    "fetch": ("get",),
    "display": ("get", "list"),
    "read": ("get", "read"),
    "check": ("get", "check"),
    "pull": ("get", "list"),
    "browse": ("list",),
    "everything": ("list",),
    "everyone": ("list",),
    "change": ("update",),
    "edit": ("update",),
    "modify": ("update",),
    "amend": ("update",),
    "fix": ("update",),
    "correct": ("update",),
    "rename": ("rename", "update"),
    "reschedule": ("update", "event"),
    "postpone": ("update",),
    "push": ("update", "move"),
    "bring": ("update", "move"),
    "shift": ("update", "move"),
    "transfer": ("move", "owner"),
    "relocate": ("move",),
    "move": ("move", "update"),
    "file": ("file", "move"),
    "remove": ("delete", "remove"),
    "erase": ("delete",),
    "drop": ("delete", "remove"),
    "cancel": ("delete", "cancel"),
    "bin": ("delete", "trash"),
    "scrap": ("delete",),
    "discard": ("delete",),
    "trash": ("delete", "trash"),
    "recycle": ("trash",),
    "undelete": ("restore",),
    "recover": ("restore",),
    "undo": ("restore", "revert"),
    "back": ("restore", "revert"),
    "duplicate": ("copy", "duplicate"),
    "clone": ("copy",),
    "merge": ("merge", "duplicate"),
    "combine": ("combine", "merge"),
    "send": ("send", "email", "share"),
    "forward": ("send", "email"),
    "mail": ("email",),
    "email": ("email",),
    "invite": ("invite", "attendee"),
    "share": ("share",),
    "give": ("share", "access"),
    "grant": ("share", "access"),
    "access": ("share", "access"),
    "unshare": ("share", "revoke"),
    "link": ("link", "attach"),
    "connect": ("link",),
    "tie": ("link",),
    "associate": ("link",),
    "attach": ("attach", "link"),
    "upload": ("upload", "save", "file"),
    "save": ("save", "create"),
    "store": ("save",),
    "download": ("download",),
    "export": ("export",),
    "print": ("export", "pdf"),
    "pdf": ("pdf", "export"),
    "free": ("availability", "free"),
    "busy": ("availability",),
    "available": ("availability",),
    "availability": ("availability",),
    "slot": ("availability", "free"),
    "tag": ("tag", "label"),
    "label": ("label", "tag"),
    "mark": ("mark", "update"),
    "tick": ("check", "checklist"),
    "pause": ("pause",),
    "hold": ("pause",),
    "resume": ("resume",),
    "continue": ("resume",),
    "run": ("start", "run"),
    "kick": ("start",),
    "rerun": ("rerun",),
    "repeat": ("recur", "schedule"),
    "every": ("schedule", "recur"),
    "weekly": ("schedule", "recur"),
    "daily": ("schedule", "recur"),
    "monthly": ("schedule", "recur"),
    "recurring": ("recur", "schedule"),
    "skip": ("skip",),
    "reorder": ("reorder",),
    "rearrange": ("reorder",),
    "sort": ("reorder",),
    "watch": ("watch", "follow"),
    "follow": ("watch",),
    "subscribe": ("watch",),
    "unsubscribe": ("unwatch",),
    "unwatch": ("unwatch",),
    "notify": ("notify", "notification"),
    "alert": ("notification", "notify"),
    "remind": ("notification", "notify"),
    "reminder": ("notification",),
    "ping": ("notify", "notification"),
    "unread": ("unread", "notification"),
    "history": ("history", "activity"),
    "changed": ("history",),
    "happened": ("history", "activity"),
    "audit": ("history",),
    "versions": ("version",),
    "previous": ("version",),
    "older": ("version",),
    "owner": ("owner",),
    "reassign": ("owner", "assign"),
    "handover": ("owner", "transfer"),
    "hand": ("owner",),
    "assign": ("assign", "owner"),
    "credit": ("credit",),
    "rating": ("credit",),
    "bureau": ("credit",),
    "dedupe": ("duplicate", "merge"),
    "twice": ("duplicate",),
    "same": ("duplicate",),
    "rsvp": ("respond", "invitation"),
    "accept": ("respond",),
    "decline": ("respond",),
    "reply": ("respond",),
    "timezone": ("zone",),
    "path": ("path",),
    # things
    "diary": ("calendar", "event"),
    "agenda": ("calendar", "event"),
    "schedule": ("calendar", "event", "schedule"),
    "appointment": ("event",),
    "appt": ("event",),
    "meeting": ("event",),
    "call": ("event",),
    "standup": ("event",),
    "lunch": ("event",),
    "dinner": ("event",),
    "session": ("event",),
    "occurrence": ("occurrence", "event"),
    "instance": ("occurrence",),
    "attendee": ("attendee",),
    "guest": ("attendee",),
    "participant": ("attendee",),
    "customer": ("contact",),
    "client": ("contact",),
    "person": ("contact",),
    "people": ("contact",),
    "lead": ("contact",),
    "prospect": ("contact",),
    "supplier": ("contact",),
    "vendor": ("contact",),
    "address": ("contact", "address"),
    "addressbook": ("contact",),
    "phone": ("contact", "phone"),
    "number": ("phone",),
    "company": ("organisation", "account"),
    "companies": ("organisation", "account"),
    "firm": ("organisation", "account"),
    "business": ("organisation", "account"),
    "organization": ("organisation",),
    "household": ("group", "account"),
    "family": ("group", "account"),
    "team": ("department",),
    "division": ("department",),
    "unit": ("department",),
    "org": ("department", "organisation"),
    "chart": ("tree", "department"),
    "hierarchy": ("tree",),
    "structure": ("tree",),
    "todo": ("task",),
    "to-do": ("task",),
    "job": ("task",),
    "chore": ("task",),
    "errand": ("task",),
    "workflow": ("task",),
    "checklist": ("checklist", "step"),
    "card": ("card", "step"),
    "column": ("column", "board"),
    "board": ("board",),
    "kanban": ("board", "column"),
    "stage": ("step",),
    "subtask": ("step",),
    "item": ("step", "item"),
    "template": ("template",),
    "doc": ("document",),
    "docs": ("document",),
    "note": ("document",),
    "notes": ("document",),
    "memo": ("document",),
    "writeup": ("document",),
    "report": ("document",),
    "page": ("document",),
    "wiki": ("document",),
    "policy": ("document",),
    "attachment": ("attach", "file"),
    "attachments": ("attach", "file"),
    "spreadsheet": ("file",),
    "image": ("file",),
    "photo": ("file",),
    "picture": ("file",),
    "scan": ("file",),
    "pdfs": ("file",),
    "directory": ("folder",),
    "dir": ("folder",),
    "content": ("content", "text"),
    "contents": ("content", "text"),
    "text": ("content", "text"),
    "inside": ("content",),
    "says": ("content",),
    "tool": ("tool",),
}


def words(text: str) -> list[str]:
    """The lowercase words of a text, a camelCase name split at its capitals; a time of day
    ("10am", "9:30") is the word "time"."""
    return [
        "time" if _TIME.fullmatch(word) else word
        for word in _WORD.findall(_CAPITAL.sub(" ", _CLOCK.sub(" time ", text)).lower())
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


def _fields(spec: ToolSpec) -> dict[str, str]:
    area = areas.get(spec.area)
    area_words = [spec.area]
    if area is not None:
        area_words += [str(area.title), area.words]
    arguments = spec.definition.get("inputSchema", {}).get("properties", {})
    return {
        "name": spec.name,
        "title": spec.title,
        "area": " ".join(area_words),
        "description": spec.description,
        "arguments": " ".join(arguments),
    }


def _build(specs: Iterable[ToolSpec]) -> _Index:
    counts: dict[str, dict[str, float]] = {}
    postings: dict[str, set[str]] = defaultdict(set)
    for spec in specs:
        bag: Counter[str] = Counter()
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
    # A tool that answers more of the request's words is the better answer (Lucene's "coord").
    for name in scores:
        scores[name] *= matched[name] / len(groups)
    ranked = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
    return [(score, wanted[name]) for name, score in ranked]
