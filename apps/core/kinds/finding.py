"""The workspace-wide search: one query over every record kind a person may see.

A kind is searched through the fields its declaration names (`Kind.search`), among the rows
`Model.objects.restrict(actor)` gives: a record is found, named and counted only for those who
could open it, and a kind whose area they may not see is not asked at all.

What is found is what the areas' own search tools find (`apps.core.search.matching`: every word
of the query in one of the fields, anywhere, without case). What comes first is what PostgreSQL's
full-text search ranks highest ('simple' configuration, each word of the query a prefix): a word
that starts a word of the record more than one inside a word, and in a short field (a name, a
subject, an address) more than in a long text (notes, a body). One query per kind gives its best
rows and how many there are in all.

    finding.search(actor, "acme invoice", kinds=["contact", "sales_document"], limit=5)
"""

import operator
from collections.abc import Collection
from dataclasses import dataclass
from functools import reduce
from typing import Any

from django.contrib.postgres.search import SearchQuery, SearchRank, SearchVector
from django.core.exceptions import FieldDoesNotExist
from django.db import models
from django.db.models import Count, Window
from django.utils.translation import gettext as _

from apps.core import search as text_search
from apps.core.actors import Actor
from apps.core.errors import NotSearched
from apps.core.kinds import Kind, kind_named, kinds

# The rows of each kind shown at most, and by default.
MAX_LIMIT = 50
LIMIT = 5
MAX_QUERY = 200


@dataclass(frozen=True)
class Hit:
    """One record found, as its kind names it."""

    kind: Kind
    id: int
    title: str
    url: str  # its page (a path), "" where it has none
    rank: float


@dataclass(frozen=True)
class Found:
    """The records of one kind found: the best few and how many in all."""

    kind: Kind
    total: int
    hits: list[Hit]


def searched() -> list[Kind]:
    """The installed kinds the search reads (those that declare `search` fields)."""
    return [kind for kind in kinds() if kind.search]


def search(
    actor: Actor, query: str, *, kinds: Collection[str] | None = None, limit: int = LIMIT
) -> list[Found]:
    """The records `actor` may see that hold every word of `query`, by kind: each kind's `limit`
    best first, the kinds with the best record first. `kinds`: only these (keys; an unknown one
    is UNKNOWN_ENTITY_TYPE, one the search does not read a validation error)."""
    chosen = searched() if kinds is None else [_searched_kind(key) for key in dict.fromkeys(kinds)]
    words = text_search.words(query[:MAX_QUERY])
    if not words:
        return []
    limit = max(1, min(limit, MAX_LIMIT))
    found = [group for kind in chosen if (group := _search_kind(actor, kind, words, limit)) is not None]
    return sorted(found, key=lambda group: (-group.hits[0].rank, group.kind.name))


def _searched_kind(key: str) -> Kind:
    kind = kind_named(key)
    if not kind.search:
        raise NotSearched(
            kind=key,
            known=", ".join(kind.key for kind in searched()) or _("none"),
            details={"kinds": [_("not searched")]},
        )
    return kind


def may_search(actor: Actor, kind: Kind) -> bool:
    """Whether `actor` may see records of `kind` at all (its area's permission to view)."""
    return bool(kind.model_class.access.may(actor, "view"))  # type: ignore[attr-defined]


def _search_kind(actor: Actor, kind: Kind, words: list[str], limit: int) -> Found | None:
    model = kind.model_class
    if not may_search(actor, kind):
        return None
    rows = text_search.matching(model.objects.restrict(actor, "view"), " ".join(words), kind.search)  # type: ignore[attr-defined]
    short, long = _fields_by_length(kind)
    vectors = [
        SearchVector(*paths, config="simple", weight=weight)
        for paths, weight in ((short, "A"), (long, "B"))
        if paths
    ]
    rank = SearchRank(reduce(operator.add, vectors), _prefixes(words))
    best = list(
        rows.annotate(search_rank=rank, search_total=Window(Count("pk")))
        # Long texts are read for the rank alone: the rows do not bring them back.
        .defer(*long)
        .order_by("-search_rank", "-pk")[:limit]
    )
    if not best:
        return None
    hits = [
        Hit(kind, row.pk, kind.title_of(row), kind.url(row) if kind.url else "", float(row.search_rank))
        for row in best
    ]
    return Found(kind=kind, total=best[0].search_total, hits=hits)


def _prefixes(words: list[str]) -> SearchQuery:
    """Every word of the query as the start of a word of the record. Each is quoted, so nothing
    in it is read as tsquery syntax; PostgreSQL splits it as it splits the record ("o'brien" is
    "o" followed by "brien") and leaves out what holds no word at all."""
    quoted = " & ".join("'" + word.replace("\\", "\\\\").replace("'", "''") + "':*" for word in words)
    return SearchQuery(quoted, search_type="raw", config="simple")


def _fields_by_length(kind: Kind) -> tuple[list[str], list[str]]:
    """The kind's search fields: the short ones (names, subjects, addresses) and the long texts."""
    short: list[str] = []
    long: list[str] = []
    for path in kind.search:
        field = search_field(kind.model_class, path)
        (long if isinstance(field, models.TextField) else short).append(path)
    return short, long


def search_field(model: type[models.Model], name: str) -> "models.Field[Any, Any]":
    """The text field `name` of `model`; a ValueError says why it is not one the search reads.
    Only the record's own fields: one of a related record would find it by what the reader may
    not see of that one (a private contact's name, on a deal they see)."""
    try:
        field = model._meta.get_field(name)
    except FieldDoesNotExist:
        raise ValueError(f"{model._meta.label} has no field {name!r} of its own") from None
    if not isinstance(field, models.CharField | models.TextField):
        raise ValueError(f"{model._meta.label}.{name} is not a text field")
    return field


def search_problems(kind: Kind) -> list[str]:
    """What is wrong with a kind's `search` fields: one that is not a text field of the record,
    or one more sensitive than the record (its access's `fields`), which the search would read
    for people who may not."""
    model = kind.model_class
    restricted = set(getattr(getattr(model, "access", None), "fields", {}) or {})
    problems = []
    for path in kind.search:
        try:
            search_field(model, path)
        except ValueError as error:
            problems.append(f"record kind {kind.key!r} searches {path!r}: {error}")
            continue
        if path in restricted:
            problems.append(f"record kind {kind.key!r} searches {path!r}, which its access restricts")
    return problems
