"""What the kit knows of custom fields (the fields a workspace adds to a kind of record, and their
values), without importing the area that keeps them: the Platform area fills this interface at
start-up (`apps.platform.fields.install`).

The catalogue's tools take and give the values through it (`apps.catalogue.customfields`: the
`customFields` argument of a kind's create and update tools, and the values in its get tool's
answer); a read that must stay one statement reads them with the record (`annotate`), and notes
what it read (`seen`) for the answer.
"""

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Protocol, TypeVar

from django.db.models import Model, QuerySet
from django.db.models.expressions import BaseExpression


class CustomFields(Protocol):
    def clean(self, kind: str, values: dict[str, Any], *, creating: bool) -> Any:
        """The values checked against the kind's fields, before anything is written: an unknown
        or archived field, a value of the wrong type, a required one cleared (or, `creating`, left
        out) is refused with the field's key. The answer is only for `write`."""
        ...

    def write(self, kind: str, record_id: int, cleaned: Any) -> None:
        """Writes what `clean` answered for the record (null clearing a value)."""
        ...

    def read(self, kind: str, record_id: int) -> dict[str, Any]:
        """The record's values of the kind's live (not archived) fields, by key."""
        ...

    def merge(self, kind: str, into: int, sources: list[int]) -> list[str]:
        """Copies to the record `into` the values of `sources` (the first source holding one
        first) for the fields it holds none of, as a merge fills a record's empty fields; the
        sources keep theirs. Answers the keys copied."""
        ...

    def values(self, kind: str) -> BaseExpression:
        """The same, as an expression of a query of the kind's records (their `pk`): a JSON object,
        or null when the record holds none."""
        ...


Q = TypeVar("Q", bound=QuerySet[Any])
_fields: CustomFields | None = None
# The values reads made with their records (`seen`), by kind and record id, while a tool's answer
# is made (`reading`).
_read: ContextVar[dict[tuple[str, int], dict[str, Any]] | None] = ContextVar(
    "custom_fields_read", default=None
)
ANNOTATION = "custom_field_values"


def register(fields: CustomFields) -> None:
    global _fields
    _fields = fields


def fields() -> CustomFields:
    if _fields is None:
        raise LookupError("no custom fields are installed (apps.platform registers them)")
    return _fields


def annotate(rows: Q, kind: str) -> Q:
    """The records with their values (`ANNOTATION`), in the same statement."""
    return rows.annotate(**{ANNOTATION: fields().values(kind)})


def seen(kind: str, record: Model) -> None:
    """Notes the values read with the record (`annotate`), for the answer being made."""
    noted = _read.get()
    if noted is not None and hasattr(record, ANNOTATION):
        noted[(kind, record.pk)] = getattr(record, ANNOTATION) or {}


@contextmanager
def reading() -> Iterator[dict[tuple[str, int], dict[str, Any]]]:
    """While an answer is made: the values its reads noted (`seen`)."""
    noted: dict[tuple[str, int], dict[str, Any]] = {}
    token = _read.set(noted)
    try:
        yield noted
    finally:
        _read.reset(token)
