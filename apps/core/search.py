"""The text search every area's list and search tools share: each word of the query must be
found, anywhere, in one of the given fields (case-insensitive), at most `words` words; and the
filters their list tools share (`narrowed`: a tag, an owner)."""

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


def narrowed(rows: Any, *, tag: str | None = None, owner_email: str | None = None) -> Any:
    """The filters list tools share: `rows` with this tag (as tags are kept: lower case, single
    spaces; in the `tags` array) and/or owned by the person with this e-mail address (`owner`)."""
    if tag:
        rows = rows.filter(tags__contains=[" ".join(tag.split()).lower()])
    if owner_email:
        rows = rows.filter(owner__email=owner_email.strip().lower())
    return rows
