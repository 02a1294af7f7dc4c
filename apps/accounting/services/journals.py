"""Writes of period close: the lock date, and manual journals (accruals, prepayments, corrections).

A manual journal is one entry of the general journal (GEN, source `manual`) posted through
`ledger.post` like everything else: balanced lines on live accounts, with a narration, dated, and
refused in a locked period. Control and bank accounts are refused (receivable, payable, tax,
bank): their balances are the documents', payments' and bank matches'. A journal is never
changed: `journal_reverse` posts a reversing entry; `reverse_on` posts the reversal at once,
dated that day (an accrual at the month's end undone on the first of the next month).

While the books separate duties, a manual journal is not posted at once: it is checked and saved as
a `DraftJournal` awaiting approval; another person with accounting.post approves it (it posts then,
its reversal with it) or anyone with accounting.post discards it. Its creator may not approve it,
an accounting admin neither (SEPARATION_OF_DUTIES).
"""

import logging
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apps.accounting.errors import (
    AlreadyReversed,
    ControlAccountInJournal,
    DraftJournalDecided,
    LinesDoNotSum,
    NotManualJournal,
)
from apps.accounting.lib import ledger
from apps.accounting.lib.money import check_places
from apps.accounting.models import DraftJournal, JournalEntry
from apps.accounting.permissions import AccountingPerm
from apps.core.actors import Actor, actor_id, require
from apps.core.errors import RecordNotFound, invalid

logger = logging.getLogger(__name__)
ZERO = Decimal(0)
MANUAL = "manual"
JOURNAL = "GEN"


def lock_date_set(*, actor: Actor, lock_date: date | None) -> date | None:
    """Sets (or, with None, clears) the books' lock date: nothing posts on or before it. An
    accounting admin's; not after today (a period closes once it is over). Answers the one before."""
    require(actor, AccountingPerm.ADMIN)
    if lock_date is not None and lock_date > timezone.localdate():
        raise invalid("lockDate", _("is after today; a period is locked once it is over"))
    before = ledger.books().lock_date
    ledger.books_update(actor=actor, lock_date=lock_date)
    logger.info("lock date moved from %s to %s", before, lock_date)
    return before


def duties_set(*, actor: Actor, on: bool) -> bool:
    """Turns the books' separation of duties on or off (an accounting admin's): while on, the
    person who created an invoice, credit note, bill or manual journal may not approve or post it,
    an admin neither (ledger.check_duties; a manual journal waits as a draft). Answers the setting
    before."""
    require(actor, AccountingPerm.ADMIN)
    before = ledger.books().separate_duties
    ledger.books_update(actor=actor, separate_duties=on)
    logger.info("separation of duties %s", "on" if on else "off")
    return before


@dataclass(frozen=True)
class JournalLineData:
    account: str  # an account code
    debit: Decimal = ZERO
    credit: Decimal = ZERO
    description: str = ""


def _legs(lines: list[JournalLineData], code: str, narration: str) -> list[ledger.Leg]:
    """The ledger's legs of a journal's lines, checked: two at least, a debit or a credit each in
    the currency's decimals, live accounts that are not control accounts, debits equal to credits."""
    if len(lines) < 2:
        raise invalid("lines", _("a journal needs at least two lines"))
    accounts = ledger.accounts_by_code(line.account for line in lines)
    legs = []
    for number, line in enumerate(lines, start=1):
        if (line.debit > 0) == (line.credit > 0) or line.debit < 0 or line.credit < 0:
            raise invalid("lines", _("line {n}: give a debit or a credit, more than zero"), n=number)
        amount = line.debit - line.credit
        check_places(abs(amount), code, field="lines", line=number)
        account = accounts[line.account]
        if account.role in ledger.CONTROL_ROLES:
            raise ControlAccountInJournal(code=account.code, name=account.name)
        legs.append(ledger.Leg(account, amount, line.description or narration))
    total = sum((leg.amount for leg in legs), ZERO)
    if total != ZERO:
        raise LinesDoNotSum(total=total, currency=code)
    return legs


def _check_reverse_on(day: date, reverse_on: date | None) -> None:
    if reverse_on is not None and reverse_on <= day:
        raise invalid("reverseOn", _("must be after the journal's date {day}"), day=day.isoformat())


def _post(
    *, actor: Actor, day: date, narration: str, code: str, legs: list[ledger.Leg], reverse_on: date | None
) -> JournalEntry:
    entry = ledger.post(
        journal=JOURNAL, day=day, currency=code, legs=legs, actor=actor, memo=narration, source=MANUAL
    )
    if reverse_on is not None:
        journal_reverse(actor=actor, entry=entry, day=reverse_on)
    logger.info("manual journal %s posted", entry.pk)
    return entry


def journal_post(
    *,
    actor: Actor,
    day: date,
    narration: str,
    lines: list[JournalLineData],
    currency: str | None = None,
    reverse_on: date | None = None,
) -> JournalEntry | DraftJournal:
    """Posts a manual journal (see the module); with `reverse_on`, its reversal on that day too.
    While the books separate duties, it is checked the same and saved as a draft journal awaiting
    another person's approval (journal_approve posts it, its reversal with it) instead."""
    require(actor, AccountingPerm.POST)
    narration = narration.strip()
    if not narration:
        raise invalid("narration", _("say why the journal is posted"))
    code = currency or ledger.books().base_currency
    legs = _legs(lines, code, narration)
    _check_reverse_on(day, reverse_on)
    if not ledger.books().separate_duties:
        return _post(actor=actor, day=day, narration=narration, code=code, legs=legs, reverse_on=reverse_on)
    ledger.check_open(day)
    if reverse_on is not None:
        ledger.check_open(reverse_on)
    draft = DraftJournal.objects.create(
        date=day,
        narration=narration[:300],
        currency=code,
        reverse_on=reverse_on,
        lines=[
            {
                "account": line.account,
                "debit": str(line.debit),
                "credit": str(line.credit),
                "description": line.description,
            }
            for line in lines
        ],
        created_by_id=actor_id(actor),
    )
    logger.info("manual journal saved as draft %s, awaiting approval", draft.pk)
    return draft


def draft_get(*, draft_id: int, lock: bool = False) -> DraftJournal:
    """A draft journal by id (the caller checked accounting.view); `lock` takes its row lock."""
    rows = DraftJournal.objects.select_for_update() if lock else DraftJournal.objects.all()
    found = rows.filter(pk=draft_id).first()
    if found is None:
        raise RecordNotFound(label=_("Draft journal"), id=draft_id, find_with="listJournals")
    return found


def draft_lines(draft: DraftJournal) -> list[JournalLineData]:
    return [
        JournalLineData(
            str(line["account"]),
            Decimal(str(line.get("debit") or 0)),
            Decimal(str(line.get("credit") or 0)),
            str(line.get("description") or ""),
        )
        for line in draft.lines
    ]


def _awaiting(draft: DraftJournal) -> None:
    if draft.status != DraftJournal.Status.AWAITING:
        raise DraftJournalDecided(id=draft.pk, status=draft.get_status_display())


def approve_check(*, actor: Actor, draft: DraftJournal) -> list[ledger.Leg]:
    """What approving a draft journal refuses, before anything (and before its confirmation): the
    permission, a draft decided already, its creator while the books separate duties (an admin
    too), lines that no longer balance or name an archived or unknown account, its day or its
    reversal's in a locked period. Answers its legs."""
    require(actor, AccountingPerm.POST)
    _awaiting(draft)
    ledger.check_duties(actor, draft.created_by_id, label=_("Draft journal"), id=draft.pk)
    legs = _legs(draft_lines(draft), draft.currency, draft.narration)
    ledger.check_open(draft.date)
    if draft.reverse_on is not None:
        ledger.check_open(draft.reverse_on)
    return legs


def journal_approve(*, actor: Actor, draft_id: int) -> JournalEntry:
    """Posts a draft journal (its reversal too, with `reverse_on`) once another person approves it."""
    with transaction.atomic():
        draft = draft_get(draft_id=draft_id, lock=True)
        legs = approve_check(actor=actor, draft=draft)
        entry = _post(
            actor=actor,
            day=draft.date,
            narration=draft.narration,
            code=draft.currency,
            legs=legs,
            reverse_on=draft.reverse_on,
        )
        draft.status = DraftJournal.Status.POSTED
        draft.entry = entry
        draft.decided_by_id = actor_id(actor)
        draft.decided_at = timezone.now()
        draft.save(update_fields=["status", "entry", "decided_by", "decided_at"])
    logger.info("draft journal %s approved as entry %s", draft.pk, entry.pk)
    return entry


def journal_discard(*, actor: Actor, draft_id: int) -> DraftJournal:
    """Discards a draft journal awaiting approval (its creator or another person may): nothing posts."""
    require(actor, AccountingPerm.POST)
    with transaction.atomic():
        draft = draft_get(draft_id=draft_id, lock=True)
        _awaiting(draft)
        draft.status = DraftJournal.Status.DISCARDED
        draft.decided_by_id = actor_id(actor)
        draft.decided_at = timezone.now()
        draft.save(update_fields=["status", "decided_by", "decided_at"])
    logger.info("draft journal %s discarded", draft.pk)
    return draft


def journal_get(*, entry_id: int) -> JournalEntry:
    """A journal entry by id (any source; the caller checked accounting.view)."""
    found = JournalEntry.objects.select_related("journal", "reverses").filter(pk=entry_id).first()
    if found is None:
        raise RecordNotFound(label=_("Journal entry"), id=entry_id, find_with="listJournals")
    return found


def journal_reverse(*, actor: Actor, entry: JournalEntry, day: date, narration: str = "") -> JournalEntry:
    """Posts the reversal of a manual journal on `day` (not before it, not in a locked period);
    a journal is reversed once, and a reversal is not reversed (post the journal again)."""
    require(actor, AccountingPerm.POST)
    if entry.source != MANUAL or entry.reverses_id is not None:
        raise NotManualJournal(id=entry.pk, source=entry.source or "-")
    done = JournalEntry.objects.filter(reverses=entry).first()
    if done is not None:
        raise AlreadyReversed(id=entry.pk, reversal=done.pk)
    if day < entry.date:
        raise invalid("on", _("is before the journal's date {day}"), day=entry.date.isoformat())
    memo = narration.strip() or f"Reversal of {entry.memo}"
    reversal = ledger.reverse(entry, actor=actor, day=day, memo=memo[:300])
    logger.info("manual journal %s reversed by %s", entry.pk, reversal.pk)
    return reversal
