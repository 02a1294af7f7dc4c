"""Sync to an outside ledger (apps.accounting.services.sync): its state, its failures, and retrying them."""

import datetime
from typing import Annotated, Literal

from pydantic import Field

from apps.accounting.models import SyncRecord, SyncRun
from apps.accounting.permissions import AccountingPerm
from apps.accounting.services import sync
from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import tool
from apps.catalogue.shapes import Limit, Offset, Out, Page, paginate


class RunOut(Out):
    started_at: datetime.datetime
    finished_at: datetime.datetime | None
    pushed: int
    failed: int
    stopped: str = Field(description="Why it stopped early")


class SyncStatusOut(Out):
    configured: bool
    provider: str
    message: str
    pending: int
    synced: int
    failed: int
    last_run: RunOut | None
    held_until: datetime.datetime | None = Field(description="Rate limited until")


@tool("getAccountingSyncStatus", permission=AccountingPerm.VIEW, title="Sync status", read_only=True)
def get_accounting_sync_status(ctx: ToolContext) -> SyncStatusOut:
    """Whether the outside ledger is connected; records pending, synced, failed; the last run."""
    found = sync.state(actor=ctx.actor)
    if not found.provider:
        message = "Sync is off: no outside ledger is configured; nothing is pushed."
    elif found.counts[SyncRecord.Status.FAILED]:
        message = "Some records failed: see getAccountingSyncErrors."
    else:
        message = "Sync is on."
    last: SyncRun | None = found.last_run
    return SyncStatusOut(
        configured=bool(found.provider),
        provider=found.provider,
        message=message,
        pending=found.counts[SyncRecord.Status.PENDING],
        synced=found.counts[SyncRecord.Status.SYNCED],
        failed=found.counts[SyncRecord.Status.FAILED],
        last_run=RunOut.of_record(last) if last else None,
        held_until=found.held_until,
    )


class SyncRecordOut(Out):
    id: int
    kind: str
    record_id: int
    status: str
    attempts: int
    error: str
    remote_id: str
    next_attempt_at: datetime.datetime | None

    @classmethod
    def of(cls, record: SyncRecord) -> "SyncRecordOut":
        return cls.of_record(record, error=record.last_error)


Kind = Literal["contact", "invoice", "credit_note", "bill", "payment", "bill_payment"]


@tool("getAccountingSyncErrors", permission=AccountingPerm.VIEW, title="Sync errors", read_only=True)
def get_accounting_sync_errors(
    ctx: ToolContext,
    *,
    kind: Annotated[Kind | None, Field(description="Only this kind")] = None,
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[SyncRecordOut]:
    """Records the outside ledger refused, with its error; fix the cause, then retryAccountingSyncs."""
    rows = sync.failures(actor=ctx.actor, kind=kind).order_by("-updated_at", "-id")
    return paginate(rows, limit=limit, offset=offset, item=SyncRecordOut.of)


class RetryOut(Out):
    records: list[SyncRecordOut]
    run: RunOut | None = Field(description="None: rate limited, pushed later")


@tool("retryAccountingSyncs", permission=AccountingPerm.POST, title="Retry syncs", open_world=True)
def retry_accounting_syncs(
    ctx: ToolContext,
    *,
    ids: Annotated[
        list[int] | None,
        Field(min_length=1, max_length=100, description="From getAccountingSyncErrors; default all"),
    ] = None,
) -> RetryOut:
    """Push failed records to the outside ledger again now."""
    records, run = sync.retry(actor=ctx.actor, ids=ids)
    return RetryOut(
        records=[SyncRecordOut.of(record) for record in records], run=RunOut.of_record(run) if run else None
    )
