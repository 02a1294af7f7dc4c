"""Imports of records, declared by each area (docs/area-kit.md, "Imports").

An area whose records people bring in from a spreadsheet declares, in its `transfer` module
(autodiscovered at start-up, like `privacy`), which kinds can be imported, their columns, and how
a row becomes a record: through the area's own create service, so that every rule, history and
audit of a record made by hand applies to an imported one too.

```python
# apps/contacts/transfer.py
transfer.importable(
    transfer.Importable(
        kind="contact",
        label=_("Contact"),
        permission=ContactsPerm.CREATE,
        columns=(Column("firstName", "first_name"), Column("email", "email"), ...),
        check=check,  # (actor, fields) -> None: refuses a row as the create would, writing nothing
        create=create,  # (actor, fields) -> id: the record made by the area's create service
        keys=keys,  # fields -> what makes two rows one record ("email:ada@example.org")
        existing=existing,  # (actor, keys) -> {key: id} of the records the actor sees already
        create_many=create_many,  # (actor, [fields]) -> [id]: a batch made at once (optional)
    )
)
```

A row's values reach `check` and `create` as the area's service fields (the column's `field`),
each the cell's text (stripped) or what the column's `parse` made of it; a cell left empty is not
given. The Platform area's tools (validateDataImport, commitDataImport, bulkImportContacts) read
the file, check every row, find duplicates and keep the plan; committing it makes the rows in
batches of `BATCH`, each in its own transaction (the plan keeps how many are done, so a commit
cut short is finished by the next, never made twice): through `create_many` when the area gives
it, else `create` row by row.

`create_many` is the area's create service for many rows at once (Contacts'
`contacts_create_many`): the same cleaning and checks as `create` (the same functions, not a
copy), the same defaults, history, audit rows and duplicates flagged, what `create` tells other
areas told too, each table written with one INSERT. It runs in the caller's transaction and
answers the ids in the rows' order; a refused row is `RowRefused` (its index and the refusal),
and the caller's transaction is undone.
"""

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from django.db.models import F, Func, Value
from django.db.models.functions import Lower, Trim
from django.utils.translation import gettext_lazy as _

from apps.core import clean
from apps.core.errors import AppError, invalid
from apps.core.permissions import PermissionEnum

# The rows a commit makes in one transaction (and one `create_many`).
BATCH = 500


class RowRefused(Exception):
    """A row of a `create_many` batch refused: its index in the batch, and the refusal."""

    def __init__(self, index: int, error: AppError) -> None:
        super().__init__(index, error)
        self.index = index
        self.error = error


@dataclass(frozen=True)
class Column:
    # As a file's header names it (camelCase); a header is matched without case, spaces,
    # underscores or hyphens ("First name", "first_name" and "firstName" are one column).
    name: str
    # The area's service field its value goes to.
    field: str
    description: str = ""
    # The cell's text made into the field's value; an AppError it raises (`invalid`) is the row's
    # problem in this column.
    parse: Callable[[str], Any] | None = None


@dataclass(frozen=True)
class Importable:
    kind: str
    label: Any
    # Who may import these records: the area's permission to create one.
    permission: PermissionEnum
    columns: tuple[Column, ...]
    check: Callable[[Any, dict[str, Any]], None]
    create: Callable[[Any, dict[str, Any]], int]
    keys: Callable[[dict[str, Any]], list[str]]
    existing: Callable[[Any, set[str]], dict[str, int]]
    # What a duplicate key's prefix means, for the answers ("email" -> the e-mail address).
    description: str = ""
    # A batch of rows made at once (see the module's docstring); None: `create` for each row.
    create_many: Callable[[Any, list[dict[str, Any]]], list[int]] | None = None
    # The kind of custom fields its records hold (apps.core.customfields: "contacts"): a file may
    # then give their values in `cf:<key>` columns, checked and written as the create tools do.
    custom_fields: str = ""

    @property
    def area(self) -> str:
        return self.permission.value.split(".", 1)[0]

    def column(self, header: str) -> Column | None:
        wanted = squeeze(header)
        return next((column for column in self.columns if squeeze(column.name) == wanted), None)

    def column_of_field(self, field: str) -> str:
        """The column a service field comes from (a problem named by its field), or the field."""
        wanted = squeeze(field)
        for column in self.columns:
            if squeeze(column.field) == wanted or squeeze(column.name) == wanted:
                return column.name
        return field


def squeeze(name: str) -> str:
    return "".join(character for character in name.lower() if character.isalnum())


_importables: dict[str, Importable] = {}


def importable(declared: Importable) -> Importable:
    """Registers a kind that can be imported (once per kind)."""
    if declared.kind in _importables and _importables[declared.kind] is not declared:
        raise ValueError(f"the import of {declared.kind!r} is declared twice")
    if len({squeeze(column.name) for column in declared.columns}) != len(declared.columns):
        raise ValueError(f"the import of {declared.kind!r} names a column twice")
    _importables[declared.kind] = declared
    return declared


def importables() -> list[Importable]:
    return sorted(_importables.values(), key=lambda declared: declared.kind)


def get(kind: str) -> Importable | None:
    return _importables.get(kind)


def keys_of(declared: Importable, rows: Iterable[dict[str, Any]]) -> set[str]:
    return {key for row in rows for key in declared.keys(row)}


# --- exports ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Exportable:
    """A kind whose records people export as a spreadsheet: the records the actor may read
    (`rows`, through `restrict`), each as the cells of `columns` (a header and the value of a
    record; written as text, dates in ISO 8601)."""

    kind: str
    label: Any
    # Who may export them: the area's permission to view one.
    permission: PermissionEnum
    columns: tuple[tuple[str, Callable[[Any], Any]], ...]
    rows: Callable[[Any], Any]
    # The fields a query's words are looked for in (apps.core.search.matching).
    search: tuple[str, ...] = ()

    @property
    def area(self) -> str:
        return self.permission.value.split(".", 1)[0]


_exportables: dict[str, Exportable] = {}


def exportable(declared: Exportable) -> Exportable:
    """Registers a kind that can be exported (once per kind)."""
    if declared.kind in _exportables and _exportables[declared.kind] is not declared:
        raise ValueError(f"the export of {declared.kind!r} is declared twice")
    _exportables[declared.kind] = declared
    return declared


def exportables() -> list[Exportable]:
    return sorted(_exportables.values(), key=lambda declared: declared.kind)


def get_exportable(kind: str) -> Exportable | None:
    return _exportables.get(kind)


# --- cells as an area's tools take them ---------------------------------------------------------
# A tool's arguments are checked by their types before its service sees them (a priority is one of
# four words, a title at most 200 characters); an imported row reaches the service without them,
# so its columns parse their cells to the same bounds. Each refusal is the row's problem in the
# column (`invalid` naming the field).


def limited(field: str, limit: int) -> Callable[[str], str]:
    """Text of at most `limit` characters (the tool's `max_length`)."""

    def parse(text: str) -> str:
        if len(text) > limit:
            raise invalid(field, _("at most {limit} characters"), limit=limit)
        return text

    return parse


def choice(field: str, choices: Iterable[str]) -> Callable[[str], str]:
    """One of `choices`, in any case."""
    allowed = tuple(choices)

    def parse(text: str) -> str:
        value = text.strip().lower()
        if value not in allowed:
            raise invalid(
                field, _("{text!r} is not one of: {allowed}"), text=text, allowed=", ".join(allowed)
            )
        return value

    return parse


def day(field: str) -> Callable[[str], date]:
    """A date, YYYY-MM-DD (what an export writes)."""

    def parse(text: str) -> date:
        try:
            found = date.fromisoformat(text.strip())
        except ValueError:
            raise invalid(field, _("{text!r} is not a date (YYYY-MM-DD)"), text=text) from None
        return clean.in_years(found, field=field)

    return parse


def moment(field: str) -> Callable[[str], datetime]:
    """A date and time in ISO 8601 (what an export writes), or a date alone (its midnight); one
    without a zone is read in the workspace's."""

    def parse(text: str) -> datetime:
        try:
            found = datetime.fromisoformat(text.strip())
        except ValueError:
            raise invalid(
                field, _("{text!r} is not a date and time (YYYY-MM-DD or YYYY-MM-DDTHH:MM)"), text=text
            ) from None
        # Far out of the years, the time moved to UTC or to the row's zone is no datetime.
        return clean.in_years(found, field=field)

    return parse


def listed(text: str) -> list[str]:
    """Several values in one cell, separated by commas or semicolons (an export's "; ")."""
    return [part.strip() for part in text.replace(";", ",").split(",") if part.strip()]


def squeezed(text: Any) -> str:
    """A name as two rows are compared by: case and runs of spaces aside."""
    return " ".join(str(text or "").lower().split())


@dataclass(frozen=True)
class SameName:
    """Two rows are one record when they give the same `field` (case and runs of spaces aside),
    and a row repeats a record among `rows(actor)` (what the importer sees and the area calls the
    same: open deals, tasks still to do) with that name: an Importable's `keys` and `existing`.
    The database's side is squeezed as the row's is, so "Acme  Ltd" is "acme ltd"."""

    field: str
    rows: Callable[[Any], Any]

    def key(self, value: Any) -> str:
        return f"{self.field}:{squeezed(value)}"

    def keys(self, fields: dict[str, Any]) -> list[str]:
        return [self.key(fields[self.field])] if squeezed(fields.get(self.field)) else []

    def existing(self, actor: Any, wanted: set[str]) -> dict[str, int]:
        prefix = f"{self.field}:"
        names = [key.removeprefix(prefix) for key in wanted if key.startswith(prefix)]
        if not names:
            return {}
        spaced = Func(
            Trim(Lower(F(self.field))), Value(r"\s+"), Value(" "), Value("g"), function="REGEXP_REPLACE"
        )
        rows = self.rows(actor).annotate(squeezed_name=spaced).filter(squeezed_name__in=names)
        found: dict[str, int] = {}
        for pk, value in rows.order_by("id").values_list("pk", self.field):
            found.setdefault(self.key(value), pk)
        return found
