"""The text search every area's list and search tools share: each word of the query must be
found, anywhere, in one of the given fields (case-insensitive), at most `words` words; the
filters their list tools share (`narrowed`: a tag, an owner); and tags as every area keeps them."""

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from django.db.models import Q
from django.utils.translation import gettext as _

from apps.core.errors import invalid

MAX_WORDS = 8
# A record's tags (an array field `tags`): at most so many, of at most so many characters each.
MAX_TAGS = 30
MAX_TAG = 50


def words(query: str | None, *, limit: int = MAX_WORDS) -> list[str]:
    """The query's words. A NUL character separates words: no PostgreSQL text can hold one, so a
    word with it would make the database refuse the search (a page's `?q=` is not checked by a
    tool's input model)."""
    return (query or "").replace("\x00", " ").split()[:limit]


def matching(
    rows: Any,
    query: str | None,
    fields: Sequence[str],
    *,
    limit: int = MAX_WORDS,
    also: Callable[[str], Q] | None = None,
) -> Any:
    """`rows` that hold every word of `query` in at least one of `fields` (all rows for an empty
    query). A field ending in `[]` is an array of words matched whole, lower-cased ("tags[]").
    `also(word)` is one more place a word may be found, when it is not a plain field: what the
    actor may see of related records (`holds` over a `restrict`ed queryset), never all of them."""
    for word in words(query, limit=limit):
        match = holds(word, fields)
        if also is not None:
            match |= also(word)
        rows = rows.filter(match)
    return rows


def holds(word: str, fields: Sequence[str]) -> Q:
    """The rows holding `word` in at least one of `fields` (as `matching` reads them)."""
    match = Q()
    for field in fields:
        if field.endswith("[]"):
            match |= Q(**{f"{field[:-2]}__contains": [word.lower()]})
        else:
            match |= Q(**{f"{field}__icontains": word})
    return match


def narrowed(rows: Any, *, tag: str | None = None, owner_email: str | None = None) -> Any:
    """The filters list tools share: `rows` with this tag (as tags are kept: lower case, single
    spaces; in the `tags` array) and/or owned by the person with this e-mail address (`owner`)."""
    if tag:
        rows = rows.filter(tags__contains=[kept(tag)])
    if owner_email:
        rows = rows.filter(owner__email=owner_email.strip().lower())
    return rows


def kept(tag: Any) -> str:
    """A tag as tags are kept: lower case, single spaces."""
    return " ".join(str(tag).split()).lower()


def tags(values: Iterable[Any] | None, *, field: str = "tags") -> list[str]:
    """`values` as tags are kept, each once, in their order (empty ones left out); at most
    MAX_TAGS of at most MAX_TAG characters each, or the field is invalid."""
    cleaned = list(dict.fromkeys(tag for tag in map(kept, values or []) if tag))
    for tag in cleaned:
        if len(tag) > MAX_TAG:
            raise invalid(
                field, _("{start!r}… is longer than {most} characters"), start=tag[:20], most=MAX_TAG
            )
    if len(cleaned) > MAX_TAGS:
        raise invalid(field, _("at most {most} tags"), most=MAX_TAGS)
    return cleaned
