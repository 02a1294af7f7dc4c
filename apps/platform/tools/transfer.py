"""Imports and exports of records, for the kinds areas declare (apps.core.transfer): imports from
CSV or XLSX files validated into a plan with a token, then committed by the token, once (contacts
also in one call); exports of what the caller may read as CSV or XLSX files, large ones in the
background. The work is apps.platform.imports' and apps.platform.exports'."""

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import Marker, tool
from apps.catalogue.shapes import Out, id_field
from apps.files import api as files
from apps.platform import exports, imports
from apps.platform.models import DataExport, DataImport
from apps.platform.permissions import PlatformPerm

# The ids an answer lists of the records an import made (the count is of all of them).
IDS_LISTED = 100

FileId = Annotated[int | None, id_field("listFiles", description="A CSV or XLSX file; from listFiles")]
CsvText = Annotated[
    str | None,
    Field(
        max_length=5_000_000,
        description="The CSV itself, header row first, instead of fileId",
    ),
]
SkipInvalid = Annotated[
    bool, Field(description="true: import the good rows and leave out those with problems")
]


class ImportProblemOut(Out):
    row: int = Field(description="The file's row; the header is row 1")
    column: str
    problem: str


class ImportDuplicateOut(Out):
    row: int
    key: str = Field(description="What makes it the same record: email:<address>, organisation:<name>")
    of_row: int | None = Field(description="The earlier row of the file it repeats")
    existing_id: int | None = Field(description="The record you already have")


class ImportPlanOut(Out):
    token: str = Field(description="For commitDataImport, valid 24 hours")
    entity_type: str
    source: str
    rows: int = Field(description="Rows read, empty ones aside")
    to_import: int = Field(description="Rows the commit makes records of")
    invalid_rows: int
    duplicate_rows: int = Field(description="Left out: repeating an earlier row or a record you have")
    problems: list[ImportProblemOut] = Field(description="Each by row and column; up to the first 500")
    duplicates: list[ImportDuplicateOut] = Field(description="Up to the first 500")
    status: str = Field(description="validated, or committed")
    expires_at: datetime


def _plan(plan: DataImport) -> ImportPlanOut:
    return ImportPlanOut(
        token=plan.token,
        entity_type=plan.kind,
        source=plan.source,
        rows=plan.total_rows,
        to_import=plan.total_rows - plan.invalid_rows - len(plan.duplicates),
        invalid_rows=plan.invalid_rows,
        duplicate_rows=len(plan.duplicates),
        problems=[ImportProblemOut.model_validate(problem) for problem in imports.listed(plan.problems)],
        duplicates=[
            ImportDuplicateOut.model_validate(_duplicate(found)) for found in imports.listed(plan.duplicates)
        ],
        status=plan.status,
        expires_at=plan.expires_at,
    )


def _duplicate(found: dict[str, Any]) -> dict[str, Any]:
    return {
        "row": found["row"],
        "key": found["key"],
        "of_row": found["ofRow"],
        "existing_id": found["existingId"],
    }


class ImportResultOut(Out):
    token: str
    entity_type: str
    created: int = Field(description="Records made")
    created_ids: list[int] = Field(description="The first 100 of them, in the file's order")
    invalid_rows_left_out: int
    duplicate_rows_left_out: int
    made_since: list[ImportDuplicateOut] = Field(
        description="Rows left out because the record was made after the validation"
    )
    already_committed: bool = Field(description="true: committed before; this call made nothing")
    committed_at: datetime | None


def _result(plan: DataImport, again: bool) -> ImportResultOut:
    return ImportResultOut(
        token=plan.token,
        entity_type=plan.kind,
        created=len(plan.created_ids),
        created_ids=plan.created_ids[:IDS_LISTED],
        invalid_rows_left_out=plan.invalid_rows,
        duplicate_rows_left_out=len(plan.duplicates) + len(plan.skipped),
        made_since=[
            ImportDuplicateOut.model_validate(_duplicate(found)) for found in plan.skipped[:IDS_LISTED]
        ],
        already_committed=again,
        committed_at=plan.committed_at,
    )


@tool(
    "validateDataImport",
    permission=PlatformPerm.IMPORT,
    title="Check a data import file",
    long_running=True,
)
def validate_data_import(
    ctx: ToolContext,
    *,
    entity_type: Annotated[
        str, Field(min_length=1, max_length=50, description="What the rows are: contact, task...")
    ],
    file_id: FileId = None,
    csv_text: CsvText = None,
) -> ImportPlanOut:
    """Check a CSV or XLSX import file: problems by row and column, duplicates, a token; makes nothing.

    commitDataImport imports it by the token. The header names the columns (any case; "First
    name" is firstName); an unknown column is refused with the known ones. Duplicates: rows that
    repeat an earlier row, or a record you already see (by the kind's key, e.g. a contact's
    e-mail address). bulkImportContacts does both steps for contacts."""
    source = imports.source_of(ctx.actor, file_id=file_id, csv_text=csv_text)
    return _plan(imports.validate(ctx.actor, kind=entity_type, source=source))


@tool(
    "commitDataImport",
    permission=PlatformPerm.IMPORT,
    title="Import a checked file",
    markers=Marker.HIGH_RISK,
    idempotent=True,
    long_running=True,
    commits_itself=True,
)
def commit_data_import(
    ctx: ToolContext,
    *,
    token: Annotated[str, Field(min_length=1, max_length=64, description="From validateDataImport")],
    skip_invalid_rows: SkipInvalid = False,
) -> ImportResultOut:
    """Import the rows a validateDataImport token names; the same token again makes nothing more.

    Each record is made as by hand (its area's rules, history, duplicates check), in batches of
    500; a commit cut short is finished by the same call again. Rows with problems stop the
    commit unless skipInvalidRows; duplicates are left out."""
    plan, again = imports.commit(ctx.actor, token=token, skip_invalid=skip_invalid_rows)
    return _result(plan, again)


class BulkImportOut(Out):
    committed: bool = Field(description="false: rows have problems and nothing was imported")
    plan: ImportPlanOut
    result: ImportResultOut | None


@tool(
    "bulkImportContacts",
    permission=PlatformPerm.IMPORT,
    title="Import contacts from a file",
    markers=Marker.HIGH_RISK,
    idempotent=True,
    long_running=True,
    commits_itself=True,
    areas=("contacts",),
)
def bulk_import_contacts(
    ctx: ToolContext,
    *,
    file_id: FileId = None,
    csv_text: CsvText = None,
    import_key: Annotated[
        str | None,
        Field(
            min_length=1,
            max_length=120,
            description="Yours, to import this file once; default: its content",
        ),
    ] = None,
    skip_invalid_rows: SkipInvalid = False,
) -> BulkImportOut:
    """Import contacts from a CSV or XLSX file in one call, once; validateDataImport checks first.

    Rows with problems (each by row and column) stop the import unless skipInvalidRows;
    duplicates (same e-mail address, an organisation of the same name) are left out. The same
    file, or importKey, again makes nothing and answers the first import."""
    source = imports.source_of(ctx.actor, file_id=file_id, csv_text=csv_text)
    plan, committed, again = imports.at_once(
        ctx.actor, kind="contact", source=source, key=import_key or "", skip_invalid=skip_invalid_rows
    )
    return BulkImportOut(
        committed=committed, plan=_plan(plan), result=_result(plan, again) if committed else None
    )


# --- exports ----------------------------------------------------------------------------------------

ExportKind = Annotated[str, Field(min_length=1, max_length=50, description="What to export: contact...")]
ExportFormat = Annotated[Literal["csv", "xlsx"], Field(description="csv: UTF-8 with BOM, for Excel too")]
ExportQuery = Annotated[str | None, Field(max_length=200, description="Only records with these words")]


class ExportFileOut(Out):
    file_id: int = Field(description="In Files, private to you")
    name: str
    size: int
    url: str = Field(description="Signed download link, no sign-in needed until urlExpiresAt")
    url_expires_at: datetime


def _file(made: Any, actor: Any) -> ExportFileOut:
    url, until = files.download_link(made, actor=actor)
    return ExportFileOut(file_id=made.pk, name=made.name, size=made.size, url=url, url_expires_at=until)


class ExportOut(Out):
    entity_type: str
    rows: int = Field(description="Records exported: those you may read")
    file: ExportFileOut | None = Field(description="null when answered inline only, or still running")
    csv_text: str | None = Field(description="The CSV itself, when at most 100 rows")
    export_id: int | None = Field(description="When large: running; getDataExportStatus follows it")
    status: str = Field(description="done, or queued")


@tool(
    "exportDataCsv",
    permission=PlatformPerm.VIEW,
    title="Export records as CSV or XLSX",
    long_running=True,
)
def export_data_csv(
    ctx: ToolContext,
    *,
    entity_type: ExportKind,
    format: ExportFormat = "csv",
    query: ExportQuery = None,
) -> ExportOut:
    """Export the records you may read as CSV or XLSX, a file with a link; requestDataExport for large.

    Formula-like cells (= + - @) are neutralised. Up to 100 rows also come inline; over 2,000 the
    export runs in the background (exportId, then getDataExportStatus)."""
    declared = exports.exportable_of(entity_type)
    rows = exports.rows_of(ctx.actor, declared, query or "")
    count = rows.count()
    if count > exports.NOW_ROWS:
        export = exports.request(ctx.actor, kind=declared.kind, file_format=format, query=query or "")
        return ExportOut(
            entity_type=declared.kind,
            rows=count,
            file=None,
            csv_text=None,
            export_id=export.pk,
            status="queued",
        )
    data = exports.content(declared, rows, format)
    inline = data.decode("utf-8-sig") if format == "csv" and count <= exports.INLINE_ROWS else None
    if inline is not None and not files.may_add(ctx.actor):
        return ExportOut(
            entity_type=declared.kind, rows=count, file=None, csv_text=inline, export_id=None, status="done"
        )
    made = exports.save(ctx.actor, declared, data, format)
    return ExportOut(
        entity_type=declared.kind,
        rows=count,
        file=_file(made, ctx.actor),
        csv_text=inline,
        export_id=None,
        status="done",
    )


class ExportStatusOut(Out):
    export_id: int
    entity_type: str
    format: str
    status: str = Field(description="queued, running, done or failed")
    total_rows: int | None
    done_rows: int
    percent: int
    file: ExportFileOut | None
    error: str = Field(description="Why it failed")
    created_at: datetime
    finished_at: datetime | None


def _status(export: DataExport, actor: Any) -> ExportStatusOut:
    total = export.total_rows
    done = export.done_rows
    percent = 100 if export.status == DataExport.Status.DONE else (done * 100 // total if total else 0)
    return ExportStatusOut(
        export_id=export.pk,
        entity_type=export.kind,
        format=export.format,
        status=export.status,
        total_rows=total,
        done_rows=done,
        percent=percent,
        file=_file(export.file, actor)
        if export.file is not None and export.file.deleted_at is None
        else None,
        error=export.error,
        created_at=export.created_at,
        finished_at=export.finished_at,
    )


@tool(
    "requestDataExport",
    permission=PlatformPerm.VIEW,
    title="Start a background export",
)
def request_data_export(
    ctx: ToolContext,
    *,
    entity_type: ExportKind,
    format: ExportFormat = "csv",
    query: ExportQuery = None,
) -> ExportStatusOut:
    """Start an export of the records you may read in the background; exportDataCsv answers at once.

    getDataExportStatus follows its progress and gives the file's download link when done."""
    export = exports.request(ctx.actor, kind=entity_type, file_format=format, query=query or "")
    return _status(export, ctx.actor)


@tool(
    "getDataExportStatus",
    permission=PlatformPerm.VIEW,
    title="Follow a background export",
    read_only=True,
)
def get_data_export_status(
    ctx: ToolContext, *, export_id: Annotated[int, id_field("requestDataExport")]
) -> ExportStatusOut:
    """An export's progress and, when done, its file with a fresh signed download link."""
    return _status(exports.status(ctx.actor, export_id), ctx.actor)
