"""The text search every area's list and search tools share: each word of the query must be
found, anywhere, in one of the given fields (case-insensitive), at most `words` words."""

from collections.abc import Sequence
from typing import Any

from django.db.models import Q

MAX_WORDS = 8


def words(query: str | None, *, limit: int = MAX_WORDS) -> list[str]:
    return [word for word in (query or "").split() if word][:limit]


def matching(rows: Any, query: str | None, fields: Sequence[str], *, limit: int = MAX_WORDS) -> Any:
    """`rows` that hold every word of `query` in at least one of `fields` (all rows for an empty
    query). A field ending in `[]` is an array of words matched whole, lower-cased ("tags[]")."""
    for word in words(query, limit=limit):
        match = Q()
        for field in fields:
            if field.endswith("[]"):
                match |= Q(**{f"{field[:-2]}__contains": [word.lower()]})
            else:
                match |= Q(**{f"{field}__icontains": word})
        rows = rows.filter(match)
    return rows
