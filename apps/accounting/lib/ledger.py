"""The ledger: the workspace's books, the one posting function, lock dates and the trial balance.

`post(...)` is the only code that writes journal entries. Every document, payment, match and
revaluation of the area goes through it, inside the transaction of the tool call that caused it,
so the ledger never sees half a document. It refuses (UNBALANCED) legs whose debits and credits
differ in the entry's currency, converts each leg to the base currency at the entry's rate
(stored on the entry with its day and provider), and puts what rounding leaves in base currency
on the rounding account, so both sums are exactly zero. It refuses a date on or before the lock
date (PERIOD_LOCKED). The database checks the same balance again (a deferred constraint
trigger, made immediate at the end of each posting) and refuses to change posted lines.
"""

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Sum
from django.utils.translation import gettext_lazy as _

from apps.accounting.errors import (
    BaseCurrencyInUse,
    ControlAccountOnLine,
    LinesDoNotSum,
    PeriodLocked,
    SameCreator,
    Unbalanced,
)
from apps.accounting.lib import chart, rates
from apps.accounting.lib.money import currency_code, round_money
from apps.accounting.models import Account, Books, Journal, JournalEntry, JournalLine, TaxType
from apps.core.actors import Actor, actor_id
from apps.core.errors import invalid

logger = logging.getLogger(__name__)
ZERO = Decimal(0)
BALANCE_TRIGGER = "accounting_journalline_balanced"


def books() -> Books:
    """The workspace's books, made with the default chart (of the configured base currency) the
    first time anything asks."""
    found = Books.objects.first()
    if found is not None:
        return found
    base = currency_code(settings.ATRIUM_ACCOUNTING_BASE_CURRENCY, field="ATRIUM_ACCOUNTING_BASE_CURRENCY")
    with transaction.atomic():
        found, _created = Books.objects.get_or_create(
            one=True, defaults={"base_currency": base, "tax_regime": chart.regime(base)[0]}
        )
        chart.seed(found.base_currency)
    return found


def books_update(*, actor: Actor, **changes: Any) -> list[str]:
    """Changes the books' settings (the caller checked accounting.admin). The base currency only
    while nothing is posted; it then brings its own chart and tax types."""
    current = books()
    changed = []
    if "base_currency" in changes:
        base = currency_code(changes.pop("base_currency"), field="base_currency")
        if base != current.base_currency:
            if JournalEntry.objects.exists():
                raise BaseCurrencyInUse()
            current.base_currency = base
            current.tax_regime = chart.regime(base)[0]
            chart.seed(base)
            changed += ["base_currency", "tax_regime"]
    for name, value in changes.items():
        if getattr(current, name) != value:
            setattr(current, name, value)
            changed.append(name)
    if changed:
        current.save()
        logger.info("books changed by %s: %s", actor_id(actor), ",".join(changed))
    return changed


def account(role: str) -> Account:
    """The account that has `role` (receivable, payable, tax, sales, fx, rounding, ...)."""
    books()
    found = Account.objects.filter(role=role, archived=False).order_by("code").first()
    if found is None:
        raise invalid("account", _("the chart of accounts has no {role} account"), role=role)
    return found


def accounts_by_code(codes: Iterable[str]) -> dict[str, Account]:
    """The live accounts of `codes`, or an error naming the first that does not exist."""
    wanted = set(codes)
    found = {a.code: a for a in Account.objects.filter(code__in=wanted, archived=False)}
    for code in wanted - set(found):
        raise invalid("account", _("there is no account {code}"), code=code)
    return found


# Accounts the ledger posts to itself (a document's receivable or payable, its tax, the money that
# settles it): never a document line's account.
CONTROL_ROLES = (Account.Role.RECEIVABLE, Account.Role.PAYABLE, Account.Role.TAX, Account.Role.BANK)


def line_accounts_by_code(codes: Iterable[str]) -> dict[str, Account]:
    """`accounts_by_code` for the lines of a document (sales or purchase): control and bank
    accounts refused, naming the first."""
    found = accounts_by_code(codes)
    for account in found.values():
        check_line_account(account)
    return found


def check_line_account(account: Account) -> None:
    if account.role in CONTROL_ROLES:
        raise ControlAccountOnLine(code=account.code, name=account.name)


def check_duties(actor: Actor, created_by_id: int | None, *, label: Any, id: int) -> None:
    """With the books' separation of duties on, the person who created a document (an invoice, a
    credit note, a bill) may not approve or post it: SEPARATION_OF_DUTIES, whoever they are (an
    accounting admin too). A document nobody is recorded as creating is anyone's to approve."""
    if books().separate_duties and created_by_id is not None and created_by_id == actor_id(actor):
        raise SameCreator(label=label, id=id)


def check_open(day: date) -> None:
    lock = books().lock_date
    if lock is not None and day <= lock:
        raise PeriodLocked(date=day.isoformat(), lock_date=lock.isoformat())


@dataclass(frozen=True)
class Leg:
    """One line to post: a signed amount (debit positive) in the entry's currency. `base_amount`
    is given for a line carried at another rate than the entry's (a receivable cleared at its
    invoice's rate) or that exists in base currency alone (`amount` zero)."""

    account: Account
    amount: Decimal
    description: str = ""
    tax_type: TaxType | None = None
    base_amount: Decimal | None = None


def post(
    *,
    journal: str,
    day: date,
    currency: str,
    legs: Sequence[Leg],
    actor: Actor | None,
    memo: str = "",
    source: str = "",
    rate: rates.Rate | None = None,
    residual_to: Account | None = None,
) -> JournalEntry:
    """Posts one balanced journal entry (see the module), or raises and posts nothing. What is
    left in base currency goes to `residual_to` (default: the rounding account; a payment names
    the FX gains and losses account)."""
    base = books().base_currency
    currency = currency_code(currency)
    check_open(day)
    rounded = [
        Leg(leg.account, round_money(leg.amount, currency), leg.description, leg.tax_type, leg.base_amount)
        for leg in legs
    ]
    rounded = [leg for leg in rounded if leg.amount != ZERO or leg.base_amount]
    if len(rounded) < 2:
        raise Unbalanced(what=_("an entry needs at least two non-zero lines"))
    total = sum((leg.amount for leg in rounded), ZERO)
    if total != ZERO:
        raise LinesDoNotSum(total=total, currency=currency)
    used = rate or rates.rate(source=currency, target=base, on=day)
    if used.value <= 0:
        raise invalid("rate", _("must be more than zero"))
    lines = [
        JournalLine(
            account=leg.account,
            amount=leg.amount,
            base_amount=(
                round_money(leg.base_amount, base)
                if leg.base_amount is not None
                else round_money(leg.amount * used.value, base)
            ),
            description=leg.description[:300],
            tax_type=leg.tax_type,
        )
        for leg in rounded
    ]
    residual = -sum((line.base_amount for line in lines), ZERO)
    if residual:
        lines.append(
            JournalLine(
                account=residual_to or account(Account.Role.ROUNDING),
                amount=ZERO,
                base_amount=residual,
                description=str(_("difference in base currency")),
            )
        )
    with transaction.atomic():
        entry = JournalEntry.objects.create(
            journal=Journal.objects.get(code=journal),
            date=day,
            currency=currency,
            rate=used.value,
            rate_date=used.day,
            rate_source=used.provider[:40],
            memo=memo[:300],
            source=source[:40],
            posted_by_id=actor_id(actor),
        )
        for line in lines:
            line.entry = entry
        JournalLine.objects.bulk_create(lines)
        check_balance_now()
    logger.info("journal entry %s posted (%s, %s lines)", entry.pk, source or "manual", len(lines))
    return entry


def check_balance_now() -> None:
    """Runs the database's balance check on what this transaction posted so far, instead of at
    commit (SET CONSTRAINTS ... IMMEDIATE fires the pending checks)."""
    with connection.cursor() as cursor:
        cursor.execute(f"SET CONSTRAINTS {BALANCE_TRIGGER} IMMEDIATE")
        cursor.execute(f"SET CONSTRAINTS {BALANCE_TRIGGER} DEFERRED")


def reverse(entry: JournalEntry, *, actor: Actor | None, day: date, memo: str = "") -> JournalEntry:
    """A new entry that undoes `entry` on `day`, at the same rate (voids, corrections)."""
    legs = [
        Leg(
            line.account,
            -line.amount,
            line.description,
            line.tax_type,
            -line.base_amount,
        )
        for line in entry.lines.select_related("account", "tax_type")
    ]
    reversal = post(
        journal=entry.journal.code,
        day=day,
        currency=entry.currency,
        legs=legs,
        actor=actor,
        memo=memo or f"Reversal of entry {entry.pk}",
        source=entry.source,
        rate=rates.Rate(entry.rate, entry.rate_date or entry.date, entry.rate_source),
    )
    reversal.reverses = entry
    reversal.save(update_fields=["reverses"])
    return reversal


@dataclass(frozen=True)
class TrialBalanceRow:
    code: str
    name: str
    type: str
    debit: Decimal
    credit: Decimal


@dataclass(frozen=True)
class TrialBalance:
    currency: str
    as_of: date | None
    rows: list[TrialBalanceRow]
    total_debit: Decimal
    total_credit: Decimal

    @property
    def balanced(self) -> bool:
        return self.total_debit == self.total_credit


def trial_balance(*, as_of: date | None = None) -> TrialBalance:
    """Each account's balance in base currency from the journal lines (to `as_of`, inclusive)."""
    current = books()
    lines = JournalLine.objects.all()
    if as_of is not None:
        lines = lines.filter(entry__date__lte=as_of)
    sums = dict(
        lines.values_list("account_id").annotate(total=Sum("base_amount")).values_list("account_id", "total")
    )
    rows = []
    for acc in Account.objects.filter(pk__in=sums.keys()).order_by("code"):
        total = round_money(sums[acc.pk] or ZERO, current.base_currency)
        if total == ZERO:
            continue
        rows.append(
            TrialBalanceRow(
                acc.code, acc.name, acc.type, total if total > 0 else ZERO, -total if total < 0 else ZERO
            )
        )
    return TrialBalance(
        currency=current.base_currency,
        as_of=as_of,
        rows=rows,
        total_debit=sum((row.debit for row in rows), ZERO),
        total_credit=sum((row.credit for row in rows), ZERO),
    )


def balance_of(account_: Account, *, as_of: date | None = None) -> Decimal:
    lines = JournalLine.objects.filter(account=account_)
    if as_of is not None:
        lines = lines.filter(entry__date__lte=as_of)
    return lines.aggregate(total=Sum("base_amount"))["total"] or ZERO
