"""Data exports (docs/catalogue.md, "Exports"): the records of a kind an area declares exportable
(apps.core.transfer), only those the person may read (the kind's `rows`, through `restrict`), as
a CSV (UTF-8 with a byte-order mark) or XLSX file of the Files area, private to the person, with a
signed download link. Small ones are made at once (the smallest also answered inline); large ones
run in the background (apps.platform.tasks), with their progress on a DataExport row."""

import logging
from collections.abc import Iterator
from typing import Any

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from apps.core import search, transfer, workspaces
from apps.core.actors import Actor, require
from apps.core.errors import AppError
from apps.core.transfer import Exportable
from apps.core.workspaces import current_workspace
from apps.files import api as files
from apps.platform import errors, tables
from apps.platform.models import DataExport

logger = logging.getLogger(__name__)

# Rows answered inline too (a CSV's text); rows made at once; rows between progress updates.
INLINE_ROWS = 100
NOW_ROWS = 2_000
STEP = 500
FOLDER = "/Exports"
FORMATS = ("csv", "xlsx")


def exportable_of(kind: str) -> Exportable:
    """The kind declared by an area the workspace has installed; the kinds listed follow them."""
    installed = [item for item in transfer.exportables() if workspaces.has_area(item.area)]
    declared = transfer.get_exportable(kind)
    if declared is None or declared not in installed:
        known = ", ".join(item.kind for item in installed) or "none"
        raise errors.UnknownExportKind(kind=kind, known=known)
    return declared


def rows_of(actor: Actor, declared: Exportable, query: str = "") -> QuerySet:
    """The records the person may read, matching the query's words if given."""
    require(actor, declared.permission)
    rows = declared.rows(actor)
    if search.words(query):
        rows = search.matching(rows, query, declared.search)
    return rows


def _lines(declared: Exportable, rows: QuerySet, progress: Any = None) -> Iterator[list[Any]]:
    for count, record in enumerate(rows.iterator(chunk_size=STEP), start=1):
        yield [value(record) for _header, value in declared.columns]
        if progress is not None and count % STEP == 0:
            progress(count)


def content(declared: Exportable, rows: QuerySet, file_format: str, progress: Any = None) -> bytes:
    header = [name for name, _value in declared.columns]
    lines = _lines(declared, rows, progress)
    if file_format == "xlsx":
        return tables.xlsx_bytes(header, lines, title=str(declared.label))
    return tables.csv_bytes(header, lines)


def save(actor: Actor, declared: Exportable, data: bytes, file_format: str) -> Any:
    """The export as a file of the Files area, in /Exports, private to the person: it holds what
    they may read, which may be more than others may."""
    if not files.may_add(actor):
        raise errors.ExportNeedsFiles(most=INLINE_ROWS)
    folder = files.folder_ensure(actor=actor, path=FOLDER)
    name = f"{declared.kind}s-{timezone.localtime():%Y-%m-%d-%H%M%S}.{file_format}"
    return files.file_create(
        actor=actor,
        name=name,
        content=data,
        folder=folder,
        source=files.Source.EXPORT,
        origin=f"export of {declared.kind}",
        visibility="private",
    )


def request(actor: Actor, *, kind: str, file_format: str, query: str = "") -> DataExport:
    """An export for the background: checked now (the kind, the person's permission, that they
    may keep files), queued after the commit."""
    from apps.platform import tasks

    declared = exportable_of(kind)
    rows_of(actor, declared, query)
    if not files.may_add(actor):
        raise errors.ExportNeedsFiles(most=INLINE_ROWS)
    export = DataExport.objects.create(
        kind=declared.kind, format=file_format, query=query, created_by_id=actor.pk
    )
    workspace = current_workspace()
    schema = workspace.schema_name if workspace is not None else ""
    transaction.on_commit(lambda: tasks.build_data_export.delay(export.pk, schema_name=schema))
    logger.info("export %s of %s requested by %s", export.pk, declared.kind, actor.pk)
    return export


def build(export_id: int) -> None:
    """Makes a queued export's file (the background task's work), as its requester may read now."""
    export = DataExport.objects.select_related("created_by").filter(pk=export_id).first()
    if export is None or export.status != DataExport.Status.QUEUED:
        return
    actor = export.created_by
    DataExport.objects.filter(pk=export.pk).update(
        status=DataExport.Status.RUNNING, started_at=timezone.now()
    )
    try:
        declared = exportable_of(export.kind)
        rows = rows_of(actor, declared, export.query)
        total = rows.count()
        DataExport.objects.filter(pk=export.pk).update(total_rows=total)
        data = content(
            declared,
            rows,
            export.format,
            progress=lambda done: DataExport.objects.filter(pk=export.pk).update(done_rows=done),
        )
        with transaction.atomic():
            made = save(actor, declared, data, export.format)
            DataExport.objects.filter(pk=export.pk).update(
                status=DataExport.Status.DONE, done_rows=total, file=made, finished_at=timezone.now()
            )
    except Exception as error:
        said = f"{error.code}: {error.message}" if isinstance(error, AppError) else "INTERNAL_ERROR"
        DataExport.objects.filter(pk=export.pk).update(
            status=DataExport.Status.FAILED, error=said[:500], finished_at=timezone.now()
        )
        if not isinstance(error, AppError):
            raise
        logger.warning("export %s failed: %s", export.pk, error.code)
        return
    logger.info("export %s of %s done: %s rows", export.pk, export.kind, total)


def status(actor: Actor, export_id: int) -> DataExport:
    export = DataExport.objects.select_related("file").filter(pk=export_id, created_by=actor.pk).first()
    if export is None:
        raise errors.ExportNotFound(export=export_id)
    return export
