"""Reads of period close: the journal entries, as listJournals and the Accounting page list them."""

from datetime import date

from django.db.models import Q, QuerySet

from apps.accounting.models import DraftJournal, JournalEntry
from apps.accounting.permissions import AccountingPerm
from apps.accounting.services.journals import MANUAL
from apps.core.actors import Actor, require


def entries(
    *,
    actor: Actor,
    entry_id: int | None = None,
    manual: bool = False,
    account: str | None = None,
    start: date | None = None,
    end: date | None = None,
) -> QuerySet[JournalEntry]:
    """Journal entries, newest first: one by id, the manual journals (and their reversals), those
    with a line on an account code, within dates. The ledger is the books' whole: accounting.view
    sees all of it."""
    require(actor, AccountingPerm.VIEW)
    rows = JournalEntry.objects.select_related("journal").order_by("-date", "-id")
    if entry_id is not None:
        rows = rows.filter(pk=entry_id)
    if manual:
        rows = rows.filter(source=MANUAL)
    if account:
        rows = rows.filter(Q(lines__account__code=account)).distinct()
    if start is not None:
        rows = rows.filter(date__gte=start)
    if end is not None:
        rows = rows.filter(date__lte=end)
    return rows


def drafts(
    *,
    actor: Actor,
    draft_id: int | None = None,
    status: str = DraftJournal.Status.AWAITING,
    account: str | None = None,
    start: date | None = None,
    end: date | None = None,
) -> QuerySet[DraftJournal]:
    """Draft journals of one status (awaiting approval, discarded; posted ones are their entries),
    newest first: one by id, those with a line on an account code, within dates."""
    require(actor, AccountingPerm.VIEW)
    rows = DraftJournal.objects.filter(status=status).order_by("-date", "-id")
    if draft_id is not None:
        rows = rows.filter(pk=draft_id)
    if account:
        rows = rows.filter(lines__contains=[{"account": account}])
    if start is not None:
        rows = rows.filter(date__gte=start)
    if end is not None:
        rows = rows.filter(date__lte=end)
    return rows
