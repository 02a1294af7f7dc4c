"""Data imports (docs/catalogue.md, "Imports"): a CSV or XLSX file's rows checked against what an
area declares of its kind (apps.core.transfer), kept as a plan under a token, and committed by
that token, once.

- `validate` reads the file, matches its header to the kind's columns (an unknown column is
  refused, nothing the file holds is dropped silently), checks every row as the area's create
  service would (each problem named by row and column), and finds duplicates: rows repeating an
  earlier row of the file, and rows naming a record the person already sees. It writes only the
  plan: the rows to make, the problems and the duplicates.
- `commit` checks the plan's rows again as the area's create would (the world may have changed
  since the validation: a row refused then stops the commit before it writes any, and says
  which), then makes them in batches of `transfer.BATCH` through the area's `create_many` (or
  its create service row by row), each batch in its own transaction that also advances the
  plan's `done_rows`. A commit cut short (a crash, a lost connection, a row refused by a race
  within a batch) leaves the batches before it made and the plan saying so: the same commit
  again makes the rest, never a row twice, even after the plan's 24 hours. Two commits at once
  take the batches in turn (the plan is locked for each). Rows whose record was made since the
  validation are left out. A committed plan answers a second commit with what the first made
  (`again`), making nothing.
- `at_once` is both for one call (bulkImportContacts): under the caller's key, or the file's
  digest, so the same file sent twice is imported once.
"""

import hashlib
import logging
import secrets
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from apps.core import transfer, workspaces
from apps.core.actors import Actor, require
from apps.core.errors import AppError
from apps.core.transfer import Column, Importable
from apps.files import api as files
from apps.platform import errors, fields, tables
from apps.platform.models import CustomField, DataImport

logger = logging.getLogger(__name__)

LIFETIME = timedelta(hours=24)
# Problems and duplicates an answer lists (the counts are of all of them).
LISTED = 500
INLINE_SOURCE = "inline CSV"


@dataclass(frozen=True)
class Source:
    data: bytes
    name: str


def source_of(actor: Actor, *, file_id: int | None, csv_text: str | None) -> Source:
    """The file to import: a file of the Files area the actor may see, or CSV text given inline."""
    if (file_id is None) == (not csv_text):
        raise errors.NoImportSource()
    if file_id is not None:
        found = files.file(actor=actor, file_id=file_id)
        return Source(files.file_bytes(found), found.name)
    return Source(str(csv_text).encode("utf-8"), INLINE_SOURCE)


def importable_of(kind: str) -> Importable:
    """The kind declared by an area the workspace has installed; the kinds listed follow them."""
    installed = [item for item in transfer.importables() if workspaces.has_area(item.area)]
    declared = transfer.get(kind)
    if declared is None or declared not in installed:
        known = ", ".join(item.kind for item in installed) or "none"
        raise errors.UnknownImportKind(kind=kind, known=known)
    return declared


def digest_of(kind: str, data: bytes) -> str:
    return hashlib.sha256(kind.encode() + b"\x00" + data).hexdigest()


def problems_of(error: AppError, declared: Importable, row: int, column: str = "") -> list[dict[str, Any]]:
    """A row's refusal as problems by column: each field its details name, or the one field."""
    if isinstance(error.details, dict) and error.details:
        return [
            errors_row(
                row,
                declared.column_of_field(str(field)),
                " ".join(map(str, texts)) if isinstance(texts, list) else str(texts),
            )
            for field, texts in error.details.items()
        ]
    field = str(error.data.get("field", "")) if isinstance(error.data, dict) else ""
    named = declared.column_of_field(field) if field else column
    return [errors_row(row, named, str(error.message))]


# A custom field's column (`cf:<key>`), for a kind that declares its custom fields.
CUSTOM = "cf:"


def _column(declared: Importable, name: str) -> Column | None:
    """The column a header names: the kind's own, or a custom field's."""
    if declared.custom_fields and name[: len(CUSTOM)].lower() == CUSTOM and name[len(CUSTOM) :].strip():
        named = CUSTOM + name[len(CUSTOM) :].strip().lower()
        return Column(named, named)
    return declared.column(name)


@dataclass
class _Custom:
    """The kind's custom fields, read once for a file: a row's `cf:<key>` cells are checked and
    written as the create tools check and write `customFields` (apps.platform.fields)."""

    kind: fields.Kind | None
    by_key: dict[str, CustomField]

    @classmethod
    def of(cls, declared: Importable) -> "_Custom":
        if not declared.custom_fields:
            return cls(None, {})
        kind = fields.kind_of(declared.custom_fields)
        return cls(kind, fields.fields_by_key(kind))

    def split(self, values: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
        """The area's own fields, and the custom fields' cells by key."""
        own = {name: value for name, value in values.items() if not name.startswith(CUSTOM)}
        return own, {name[len(CUSTOM) :]: value for name, value in values.items() if name.startswith(CUSTOM)}

    def clean(self, texts: dict[str, str]) -> dict[CustomField, Any]:
        if self.kind is None or not (texts or self.by_key):
            return {}
        values = fields.values_of_text(self.by_key, texts)
        return fields.values_clean(self.kind, values, creating=True, fields=self.by_key)


def _checked(
    actor: Actor, declared: Importable, custom: _Custom, values: dict[str, Any], row: int
) -> list[Any]:
    """A row's problems as the area's create (and the custom fields' checks) would find them."""
    own, texts = custom.split(values)
    try:
        declared.check(actor, own)
    except AppError as error:
        return problems_of(error, declared, row)
    try:
        custom.clean(texts)
    except AppError as error:
        key = error.data.get("key", "") if isinstance(error.data, dict) else ""
        return [errors_row(row, f"{CUSTOM}{key}" if key else "", str(error.message))]
    return []


def _columns(declared: Importable, header: list[str]) -> list[Column | None]:
    known = ", ".join(column.name for column in declared.columns)
    if declared.custom_fields:
        known += f", {CUSTOM}<key> (a custom field: listCustomFields)"
    if not header:
        raise errors.ImportHasNoHeader(kind=declared.kind, known=known)
    columns: list[Column | None] = []
    unknown: list[str] = []
    seen: set[str] = set()
    for title in header:
        if not title:
            columns.append(None)  # an unnamed column; a value under it is a row's problem
            continue
        column = _column(declared, title)
        if column is None:
            unknown.append(repr(title))
        elif column.name in seen:
            raise errors.ImportColumnTwice(column=title)
        else:
            seen.add(column.name)
        columns.append(column)
    if unknown:
        raise errors.UnknownImportColumns(kind=declared.kind, unknown=", ".join(unknown), known=known)
    return columns


def _cells(columns: list[Column | None], cells: list[str]) -> dict[str, str]:
    """A row's non-empty cells by column name; "" for a value under no column."""
    found: dict[str, str] = {}
    for position, cell in enumerate(cells):
        if not cell:
            continue
        column = columns[position] if position < len(columns) else None
        found[column.name if column is not None else ""] = cell
    return found


def _values(
    declared: Importable, cells: dict[str, str], row: int
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The service fields of a row's cells, or its problems."""
    values: dict[str, Any] = {}
    found: list[dict[str, Any]] = []
    for name, cell in cells.items():
        column = _column(declared, name) if name else None
        if column is None:
            found.append(errors_row(row, "", str(errors.ValueWithoutColumn(value=cell[:50]).message)))
            continue
        if column.parse is None:
            values[column.field] = cell
            continue
        try:
            values[column.field] = column.parse(cell)
        except AppError as error:
            found.extend(problems_of(error, declared, row, column.name))
    return values, found


# A problem's words at most (a refusal may quote the cell, up to the 131,072 characters a CSV cell
# holds); the answers list problems within ANSWERED characters, so that an answer with its token
# always fits what a client takes (apps.catalogue.dispatch.MAX_RESULT_TOKENS).
PROBLEM_CHARS = 300
ANSWERED = 40_000


def errors_row(row: int, column: str, problem: str) -> dict[str, Any]:
    if len(problem) > PROBLEM_CHARS:
        problem = problem[: PROBLEM_CHARS - 1] + "…"
    return {"row": row, "column": column[:PROBLEM_CHARS], "problem": problem}


def listed(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The first of `items` an answer lists: at most LISTED, within ANSWERED characters."""
    found: list[dict[str, Any]] = []
    size = 0
    for item in items[:LISTED]:
        size += sum(len(str(value)) + 20 for value in item.values())
        if size > ANSWERED:
            break
        found.append(item)
    return found


def validate(actor: Actor, *, kind: str, source: Source, key: str = "") -> DataImport:
    """Checks the file's every row and keeps the plan (see the module's docstring)."""
    declared = importable_of(kind)
    require(actor, declared.permission)
    header, table = tables.read(source.data, name=source.name)
    columns = _columns(declared, header)
    custom = _Custom.of(declared)
    problems: list[dict[str, Any]] = []
    invalid = 0
    checked: list[tuple[int, dict[str, str], dict[str, Any]]] = []
    for row, cells in enumerate(table, start=2):
        given = _cells(columns, cells)
        if not given:
            continue
        values, found = _values(declared, given, row)
        if not found:
            found = _checked(actor, declared, custom, values, row)
        if found:
            invalid += 1
            problems.extend(found)
        else:
            checked.append((row, given, values))
    if not checked and not invalid:
        raise errors.ImportHasNoRows()
    duplicates: list[dict[str, Any]] = []
    first_row: dict[str, int] = {}
    unique: list[tuple[int, dict[str, str], dict[str, Any]]] = []
    for row, given, values in checked:
        keys = declared.keys(values)
        again = next((one for one in keys if one in first_row), None)
        if again is not None:
            duplicates.append({"row": row, "key": again, "ofRow": first_row[again], "existingId": None})
            continue
        for found_key in keys:
            first_row[found_key] = row
        unique.append((row, given, values))
    held = declared.existing(actor, transfer.keys_of(declared, (values for _r, _g, values in unique)))
    rows: list[dict[str, Any]] = []
    for row, given, values in unique:
        hit = next((key for key in declared.keys(values) if key in held), None)
        if hit is not None:
            duplicates.append({"row": row, "key": hit, "ofRow": None, "existingId": held[hit]})
        else:
            rows.append({"row": row, "cells": given})
    duplicates.sort(key=lambda duplicate: duplicate["row"])
    now = timezone.now()
    # The person's plans that expired uncommitted go as a new one comes.
    DataImport.objects.filter(
        created_by=actor.pk, status=DataImport.Status.VALIDATED, done_rows=0, expires_at__lte=now
    ).delete()
    plan = DataImport.objects.create(
        token=secrets.token_urlsafe(24),
        kind=declared.kind,
        created_by_id=actor.pk,
        expires_at=now + LIFETIME,
        key=key,
        digest=digest_of(declared.kind, source.data),
        source=source.name[:300],
        total_rows=len(checked) + invalid,
        rows=rows,
        problems=problems,
        duplicates=duplicates,
        invalid_rows=invalid,
    )
    logger.info(
        "import %s of %s validated by %s: %s rows, %s invalid, %s duplicates",
        plan.pk,
        plan.kind,
        actor.pk,
        plan.total_rows,
        invalid,
        len(duplicates),
    )
    return plan


def commit(
    actor: Actor, *, token: str, skip_invalid: bool = False, batch: int = transfer.BATCH
) -> tuple[DataImport, bool]:
    """Makes the plan's rows (see the module's docstring); True when it was committed before."""
    plan = DataImport.objects.filter(token=token, created_by=actor.pk).first()
    if plan is None:
        raise errors.ImportNotFound(token=token)
    if plan.status == DataImport.Status.COMMITTED:
        return plan, True
    # A commit cut short finishes whenever it is asked to: half an import must not stay so.
    if not plan.done_rows and plan.expires_at <= timezone.now():
        raise errors.ImportExpired(token=token, expired=plan.expires_at.isoformat(timespec="seconds"))
    if plan.invalid_rows and not skip_invalid:
        first = plan.problems[0]
        raise errors.ImportHasErrors(
            invalid=plan.invalid_rows,
            token=token,
            row=first["row"],
            column=first["column"],
            problem=first["problem"],
        )
    declared = importable_of(plan.kind)
    require(actor, declared.permission)
    first = plan.done_rows
    custom = _Custom.of(declared)
    rows = _rows_to_make(actor, declared, plan, custom)
    made_here = False
    while True:
        with transaction.atomic():
            # The plan locked for the batch: a second commit running at once waits, then goes on
            # after it. Its rows are read once, above; they do not change.
            plan = DataImport.objects.select_for_update().defer("rows").get(pk=plan.pk)
            if plan.status == DataImport.Status.COMMITTED:
                return plan, not made_here
            done = plan.done_rows
            chunk = rows[done - first : done - first + batch]
            _make(actor, declared, plan, chunk, custom)
            plan.done_rows = done + len(chunk)
            saved = ["created_ids", "skipped", "done_rows"]
            if plan.done_rows - first >= len(rows):
                plan.status = DataImport.Status.COMMITTED
                plan.committed_at = timezone.now()
                # What was imported is in the records now; the plan keeps only what the answer says.
                plan.rows = []
                saved += ["status", "committed_at", "rows"]
            plan.save(update_fields=saved)
            made_here = True
        if plan.status == DataImport.Status.COMMITTED:
            break
    logger.info(
        "import %s of %s committed by %s: %s made", plan.pk, plan.kind, actor.pk, len(plan.created_ids)
    )
    return plan, False


def _rows_to_make(
    actor: Actor, declared: Importable, plan: DataImport, custom: _Custom
) -> list[tuple[int, dict[str, Any]]]:
    """The plan's rows not made yet, each read and checked again as the area's create would (the
    world may have changed since the validation): a row refused now stops the commit before it
    writes anything of them."""
    rows: list[tuple[int, dict[str, Any]]] = []
    for entry in plan.rows[plan.done_rows :]:
        values, found = _values(declared, entry["cells"], entry["row"])
        if not found:
            found = _checked(actor, declared, custom, values, entry["row"])
        if found:
            if plan.done_rows:
                raise errors.ImportRowRefusedPartway(**found[0], done=plan.done_rows)
            raise errors.ImportRowRefused(**found[0])
        rows.append((entry["row"], values))
    return rows


def _make(
    actor: Actor,
    declared: Importable,
    plan: DataImport,
    chunk: list[tuple[int, dict[str, Any]]],
    custom: _Custom,
) -> None:
    """One batch of the plan's rows made (in the caller's transaction), those whose record was
    made since the validation left out, with their custom field values; the plan's lists follow."""
    texts = [custom.split(values)[1] for _row, values in chunk]
    chunk = [(row, custom.split(values)[0]) for row, values in chunk]
    by_row = {row: text for (row, _given), text in zip(chunk, texts, strict=True)}
    held = declared.existing(actor, transfer.keys_of(declared, (values for _row, values in chunk)))
    making: list[tuple[int, dict[str, Any]]] = []
    for row, values in chunk:
        hit = next((key for key in declared.keys(values) if key in held), None)
        if hit is not None:
            plan.skipped.append({"row": row, "key": hit, "ofRow": None, "existingId": held[hit]})
        else:
            making.append((row, values))
    if declared.create_many is not None:
        try:
            made = declared.create_many(actor, [values for _row, values in making])
        except transfer.RowRefused as refused:
            raise _refused(refused.error, declared, making[refused.index][0], plan) from refused
    else:
        made = []
        for row, values in making:
            try:
                made.append(declared.create(actor, values))
            except AppError as error:
                raise _refused(error, declared, row, plan) from error
    fields.values_write_many(
        [
            (record_id, custom.clean(by_row[row]))
            for (row, _given), record_id in zip(making, made, strict=True)
        ]
    )
    plan.created_ids.extend(made)


def _refused(error: AppError, declared: Importable, row: int, plan: DataImport) -> AppError:
    found = problems_of(error, declared, row)[0]
    if plan.done_rows:
        return errors.ImportRowRefusedPartway(**found, done=plan.done_rows)
    return errors.ImportRowRefused(**found)


def at_once(
    actor: Actor, *, kind: str, source: Source, key: str = "", skip_invalid: bool = False
) -> tuple[DataImport, bool, bool]:
    """Validates and commits in one call, once per key (the file's digest when none is given):
    (the plan, whether it is committed, whether it was before). A file with problems is not
    committed unless `skip_invalid`: its plan stays, and the same call with it commits it."""
    digest = digest_of(kind, source.data)
    key = key or f"sha256:{digest}"
    importable_of(kind)
    with transaction.atomic():
        found = DataImport.objects.select_for_update().filter(created_by=actor.pk, kind=kind, key=key).first()
        if (
            found is not None
            and found.status == DataImport.Status.VALIDATED
            and not found.done_rows
            and found.expires_at <= timezone.now()
        ):
            found.delete()
            found = None
        if found is not None and found.digest != digest:
            raise errors.ImportKeyReused(key=key, at=found.created_at.date().isoformat())
        if found is not None and found.status == DataImport.Status.COMMITTED:
            return found, True, True
        plan = found or validate(actor, kind=kind, source=source, key=key)
    # Committed in batches, each in its own transaction (`commit`).
    if plan.invalid_rows and not skip_invalid:
        return plan, False, False
    committed, again = commit(actor, token=plan.token, skip_invalid=skip_invalid)
    return committed, True, again


def plans_purge() -> int:
    """Deletes the plans (in the active workspace) committed, or expired uncommitted, more than
    ATRIUM_PLATFORM_IMPORT_PLAN_DAYS days ago: their rows, problems and duplicates quote the
    people of the files imported. What a committed plan made stays (its area's records). Returns
    how many went."""
    before = timezone.now() - timedelta(days=settings.ATRIUM_PLATFORM_IMPORT_PLAN_DAYS)
    old = Q(status=DataImport.Status.COMMITTED, committed_at__lt=before) | Q(
        status=DataImport.Status.VALIDATED, expires_at__lt=before
    )
    deleted, _kinds = DataImport.objects.filter(old).delete()
    if deleted:
        logger.info("%s import plans purged", deleted)
    return deleted
