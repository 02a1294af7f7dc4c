"""Writes of period close: the lock date, and manual journals (accruals, prepayments, corrections).

A manual journal is one entry of the general journal (GEN, source `manual`) posted through
`ledger.post` like everything else: balanced lines on live accounts, with a narration, dated, and
refused in a locked period. Control and bank accounts are refused (receivable, payable, tax,
bank): their balances are the documents', payments' and bank matches'. A journal is never
changed: `journal_reverse` posts a reversing entry; `reverse_on` posts the reversal at once,
dated that day (an accrual at the month's end undone on the first of the next month).
"""

import logging
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apps.accounting.errors import AlreadyReversed, ControlAccountInJournal, NotManualJournal
from apps.accounting.lib import ledger
from apps.accounting.lib.money import round_money
from apps.accounting.models import JournalEntry
from apps.accounting.permissions import AccountingPerm
from apps.core.actors import Actor, require
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
    person who created an invoice, credit note or bill may not approve or post it, an admin
    neither (ledger.check_duties). Answers the setting before."""
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


def journal_post(
    *,
    actor: Actor,
    day: date,
    narration: str,
    lines: list[JournalLineData],
    currency: str | None = None,
    reverse_on: date | None = None,
) -> JournalEntry:
    """Posts a manual journal (see the module); with `reverse_on`, its reversal on that day too."""
    require(actor, AccountingPerm.POST)
    narration = narration.strip()
    if not narration:
        raise invalid("narration", _("say why the journal is posted"))
    base = ledger.books().base_currency
    code = currency or base
    if len(lines) < 2:
        raise invalid("lines", _("a journal needs at least two lines"))
    accounts = ledger.accounts_by_code(line.account for line in lines)
    legs = []
    for number, line in enumerate(lines, start=1):
        if (line.debit > 0) == (line.credit > 0) or line.debit < 0 or line.credit < 0:
            raise invalid("lines", _("line {n}: give a debit or a credit, more than zero"), n=number)
        amount = line.debit - line.credit
        if round_money(amount, code) != amount:
            raise invalid(
                "lines",
                _("line {n}: {amount} has more decimals than {currency} has"),
                n=number,
                amount=abs(amount),
                currency=code,
            )
        account = accounts[line.account]
        if account.role in ledger.CONTROL_ROLES:
            raise ControlAccountInJournal(code=account.code, name=account.name)
        legs.append(ledger.Leg(account, amount, line.description or narration))
    if reverse_on is not None and reverse_on <= day:
        raise invalid("reverseOn", _("must be after the journal's date {day}"), day=day.isoformat())
    entry = ledger.post(
        journal=JOURNAL, day=day, currency=code, legs=legs, actor=actor, memo=narration, source=MANUAL
    )
    if reverse_on is not None:
        journal_reverse(actor=actor, entry=entry, day=reverse_on)
    logger.info("manual journal %s posted", entry.pk)
    return entry


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
