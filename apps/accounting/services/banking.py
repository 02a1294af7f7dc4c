"""The bank side without documents: bank accounts added, renamed and archived by tool (with their
opening balance), money spent and received without an invoice or a bill (Xero's "spend money" and
"receive money"), transfers between bank accounts, and voiding either.

- **Bank accounts** (`bank_account_add`, `_rename`, `_archive`, `_restore`): each its own ledger
  account (role bank, apps.accounting.services.bank). An opening balance is one entry on the
  general journal, the bank against the opening balance equity account (`OPENING_EQUITY`, made
  on first use), in the bank account's currency. An account is archived (the row to the trash,
  its ledger account archived) only when its ledger balance is zero and another live bank account
  is left; what it holds stays in every report.
- **Spent and received** (`transaction_record`): lines coded to accounts that are not control or
  bank accounts (`CONTROL_ACCOUNT_ON_LINE`), each with a tax type, prices with or without their
  tax; one entry on the bank journal (BNK) in the bank account's currency, at the rate of its day:
  the lines' nets and their tax per tax type against the bank. Money spent debits the lines and
  the tax (input tax), money received credits them (output tax).
- **Transfers** (`transfer`): money out of one bank account into another. In one currency, one
  entry; between currencies the amount out and the amount in are both given (what each bank
  says), posted as two entries through the transfer clearing account (`TRANSFER_CLEARING`), the
  second carrying the clearing leg at the first's base amount, so the clearing account nets to
  zero and the difference is realised on the FX account.
- **Reconciled at once**: a statement line (a financial) of the same bank account and amount can
  be named; it is tied by a bank match with no document lines, as a payment recorded first is
  (apps.accounting.services.matching reconciles them later too, `transaction_ids`).
- **Voided** (`void`): the entries reversed (both sides of a transfer), never edited; refused
  while a statement line reconciles either side.

The checks (`*_check`) run before a HIGH RISK tool asks its confirmation, and again as it runs.
"""

import logging
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apps.accounting.errors import (
    BankAccountNotEmpty,
    BankLineMatched,
    BankTransactionReconciled,
    BankTransactionVoided,
)
from apps.accounting.lib import ledger, tax
from apps.accounting.lib.money import check_fits, check_places, round_money
from apps.accounting.models import Account, BankAccount, BankMatch, BankTransaction, Financial, JournalEntry
from apps.accounting.permissions import AccountingPerm
from apps.accounting.services import bank as bank_service
from apps.core.actors import Actor, actor_id, require
from apps.core.errors import invalid

logger = logging.getLogger(__name__)
ZERO = Decimal(0)
HUNDRED = Decimal(100)
Kind = BankTransaction.Kind
# Accounts the bank side makes on first use: (name, type, the codes it takes the first free one of).
OPENING_EQUITY = ("Opening balance equity", Account.Type.EQUITY, range(3200, 3300))
TRANSFER_CLEARING = ("Transfers between bank accounts", Account.Type.ASSET, range(1800, 1900))


def own_account(spec: tuple[str, str, range]) -> Account:
    """The chart's account of that name and type, made with the first free code when missing."""
    name, type_, codes = spec
    found = Account.objects.filter(name=name, type=type_).order_by("code").first()
    if found is not None:
        if found.archived:
            found.archived = False
            found.save(update_fields=["archived"])
        return found
    used = set(Account.objects.values_list("code", flat=True))
    code = next((str(number) for number in codes if str(number) not in used), None)
    if code is None:
        raise invalid("account", _("the chart has no free code for {name}"), name=name)
    return Account.objects.create(code=code, name=name, type=type_)


def masked(value: str) -> str:
    """An IBAN or account number as answers show it: its first four and last four characters."""
    compact = "".join(value.split())
    if len(compact) <= 4:
        return "*" * len(compact)
    if len(compact) <= 8:
        return "*" * (len(compact) - 4) + compact[-4:]
    return compact[:4] + "*" * (len(compact) - 8) + compact[-4:]


def ledger_balance(account: BankAccount, until: date | None = None) -> Decimal:
    """The bank account's ledger balance in its own currency."""
    return bank_service._ledger_balance(account, until)


# --- bank accounts -------------------------------------------------------------------------------


def _name(value: str) -> str:
    name = " ".join((value or "").split())
    if not name:
        raise invalid("name", _("name the bank account"))
    if len(name) > 120:
        raise invalid("name", _("at most 120 characters"))
    return name


def _number(value: str) -> str:
    number = " ".join((value or "").split())
    if len(number) > 40:
        raise invalid("number", _("at most 40 characters"))
    if number and not any(character.isdigit() for character in number):
        raise invalid("number", _("an account number has digits"))
    return number


def bank_account_add(
    *,
    actor: Actor,
    name: str,
    currency: str,
    iban: str = "",
    number: str = "",
    opening_balance: Decimal | None = None,
    opening_date: date | None = None,
) -> BankAccount:
    """A bank account with its ledger account and, given one, its opening balance (see the module)."""
    require(actor, AccountingPerm.ADMIN)
    number = _number(number)
    if opening_balance is not None:
        if opening_date is None:
            raise invalid("openingDate", _("is required with an opening balance"))
        ledger.check_open(opening_date)
    with transaction.atomic():
        made = bank_service.bank_account_create(actor=actor, name=_name(name), currency=currency, iban=iban)
        if number:
            made.number = number
            made.save(update_fields=["number", "updated_at"])
        if opening_balance is not None and opening_date is not None:
            _post_opening(actor=actor, bank=made, amount=opening_balance, day=opening_date)
    return made


def _post_opening(*, actor: Actor, bank: BankAccount, amount: Decimal, day: date) -> JournalEntry | None:
    rounded = check_places(amount, bank.currency, field="openingBalance")
    if rounded == ZERO:
        return None
    check_fits(rounded, bank.currency, what=str(_("the opening balance")))
    return ledger.post(
        journal="GEN",
        day=day,
        currency=bank.currency,
        legs=[
            ledger.Leg(bank.account, rounded, f"Opening balance {bank.name}"),
            ledger.Leg(own_account(OPENING_EQUITY), -rounded, f"Opening balance {bank.name}"),
        ],
        actor=actor,
        memo=f"Opening balance of {bank.name}"[:300],
        source=f"opening:{bank.pk}",
    )


def bank_account_rename(*, actor: Actor, bank: BankAccount, name: str) -> None:
    """Renames the bank account and its ledger account."""
    require(actor, AccountingPerm.ADMIN)
    name = _name(name)
    bank.name = name
    bank.save(update_fields=["name", "updated_at"])
    Account.objects.filter(pk=bank.account_id).update(name=name)


def bank_account_set_number(*, actor: Actor, bank: BankAccount, number: str) -> None:
    require(actor, AccountingPerm.ADMIN)
    bank.number = _number(number)
    bank.save(update_fields=["number", "updated_at"])


def archive_check(bank: BankAccount) -> None:
    others = BankAccount.objects.live().exclude(pk=bank.pk).filter(account__archived=False)
    if not others.exists():
        raise invalid(
            "bankAccountId", _("{name} is the last bank account; add another first"), name=bank.name
        )
    balance = ledger_balance(bank)
    if balance != ZERO:
        raise BankAccountNotEmpty(name=bank.name, balance=balance, currency=bank.currency)


def bank_account_archive(*, actor: Actor, bank: BankAccount) -> None:
    """Archives an empty bank account (see the module): no new payment or line takes it."""
    require(actor, AccountingPerm.ADMIN)
    archive_check(bank)
    with transaction.atomic():
        bank.trash(actor)
        Account.objects.filter(pk=bank.account_id).update(archived=True)
    logger.info("bank account %s archived", bank.pk)


def bank_account_restore(*, actor: Actor, bank: BankAccount) -> None:
    require(actor, AccountingPerm.ADMIN)
    with transaction.atomic():
        bank.untrash()
        Account.objects.filter(pk=bank.account_id).update(archived=False)


# --- a foreign-currency document paid into the home-currency account ----------------------------


def received_check(
    *, currency: str, amount: Decimal, bank: Account, received: Decimal | None
) -> Decimal | None:
    """What arrived in the bank account's own currency for `amount` of a document in `currency`
    (an invoice in USD paid into the GBP account): the bank is then debited at that figure in base
    currency instead of the day's rate, the difference to the document's rate realised as FX. Only
    for a bank account in the base currency, another than the document's; None when not given."""
    if received is None:
        return None
    base = ledger.books().base_currency
    owned = BankAccount.objects.filter(account=bank).first()
    own = owned.currency if owned is not None else base
    if own == currency or own != base:
        raise invalid(
            "amountReceived",
            _("only for a bank account in the base currency {base} paid in another currency"),
            base=base,
        )
    if received <= 0 or amount <= 0:
        raise invalid("amountReceived", _("must be more than zero"))
    check_places(received, own, field="amountReceived")
    check_fits(received, own, what=str(_("the amount received")))
    return received


# --- money spent and received ---------------------------------------------------------------------


@dataclass(frozen=True)
class LineData:
    account: str  # an account code
    amount: Decimal
    tax_type: str  # a tax type code
    description: str = ""


@dataclass(frozen=True)
class Planned:
    """What a spend or receive posts: the legs, the total in the bank, the tax."""

    legs: list[ledger.Leg]
    total: Decimal
    net: Decimal
    tax: Decimal


def _day_open(day: date) -> None:
    ledger.check_open(day)


def transaction_check(
    *,
    bank: BankAccount,
    direction: str,
    day: date,
    lines: list[LineData],
    prices_include_tax: bool,
    financial: Financial | None = None,
) -> Planned:
    """What a spend or receive would post, or the refusal (nothing is written)."""
    if direction not in ("spend", "receive"):
        raise invalid("direction", _("spend or receive"))
    if bank.in_trash:
        raise invalid("bankAccountId", _("{name} is archived"), name=bank.name)
    if not lines:
        raise invalid("lines", _("give at least one line"))
    _day_open(day)
    currency = bank.currency
    accounts = ledger.accounts_by_code(line.account for line in lines)
    for account in accounts.values():
        ledger.check_line_account(account)
    tax_types = tax.tax_types_by_code([line.tax_type for line in lines])
    sign = 1 if direction == "spend" else -1
    legs: list[ledger.Leg] = []
    taxes: dict[str, Decimal] = {}
    net_total = tax_total = ZERO
    for number, line in enumerate(lines, start=1):
        amount = line.amount
        if amount == ZERO:
            raise invalid("lines", _("line {n}: the amount must not be zero"), n=number)
        check_places(amount, currency, field="lines", line=number)
        check_fits(amount, currency, what=str(_("a line's amount")))
        tax_type = tax_types[line.tax_type]
        rate = tax_type.charged_rate
        if prices_include_tax:
            line_tax = round_money(amount * rate / (HUNDRED + rate), currency)
            net = amount - line_tax
        else:
            net = amount
            line_tax = round_money(amount * rate / HUNDRED, currency)
        net_total += net
        tax_total += line_tax
        if line_tax:
            taxes[tax_type.code] = taxes.get(tax_type.code, ZERO) + line_tax
        legs.append(ledger.Leg(accounts[line.account], sign * net, line.description, tax_type))
    total = net_total + tax_total
    if total <= 0:
        raise invalid("lines", _("the lines must add up to more than zero"))
    check_fits(total, currency, what=str(_("the total")))
    if taxes:
        tax_account = ledger.account(Account.Role.TAX)
        legs.extend(
            ledger.Leg(tax_account, sign * amount, tax_types[code].name, tax_types[code])
            for code, amount in taxes.items()
        )
    legs.append(ledger.Leg(bank.account, -sign * total, ""))
    if financial is not None:
        _line_check(financial, bank, -sign * total)
    # The rate of the day is known before the question is asked (NO_EXCHANGE_RATE otherwise).
    if currency != ledger.books().base_currency:
        from apps.accounting.lib import rates

        rates.rate(source=currency, target=ledger.books().base_currency, on=day)
    return Planned(legs, total, net_total, tax_total)


def _line_check(financial: Financial, bank: BankAccount, amount: Decimal) -> None:
    """A statement line that can reconcile `amount` (signed) on `bank`."""
    if financial.match_id is not None:
        raise BankLineMatched(id=financial.pk, match=financial.match_id)
    if financial.bank_account_id != bank.pk:
        raise invalid(
            "financialId",
            _("bank line {id} is on bank account {other}, not {bank}"),
            id=financial.pk,
            other=financial.bank_account.name,
            bank=bank.name,
        )
    line_amount = round_money(financial.amount, bank.currency)
    if line_amount != amount:
        raise invalid(
            "financialId",
            _("bank line {id} is {line} {currency}, the transaction {amount}"),
            id=financial.pk,
            line=line_amount,
            currency=bank.currency,
            amount=amount,
        )


def _text(value: str, *, field: str, most: int) -> str:
    text = " ".join((value or "").split())
    if len(text) > most:
        raise invalid(field, _("at most {most} characters"), most=most)
    return text


def transaction_record(
    *,
    actor: Actor,
    bank: BankAccount,
    direction: str,
    day: date,
    lines: list[LineData],
    prices_include_tax: bool = True,
    contact_name: str = "",
    reference: str = "",
    financial: Financial | None = None,
) -> BankTransaction:
    """Posts money spent or received without a document (see the module), or raises and posts
    nothing; with `financial`, that statement line reconciles it."""
    require(actor, AccountingPerm.POST)
    contact_name = _text(contact_name, field="contactName", most=200)
    reference = _text(reference, field="reference", most=140)
    with transaction.atomic():
        if financial is not None:
            financial = (
                Financial.objects.select_for_update().select_related("bank_account").get(pk=financial.pk)
            )
        planned = transaction_check(
            bank=bank,
            direction=direction,
            day=day,
            lines=lines,
            prices_include_tax=prices_include_tax,
            financial=financial,
        )
        who = contact_name or reference or str(_("bank transaction"))
        legs = [
            leg
            if leg.description
            else ledger.Leg(leg.account, leg.amount, who, leg.tax_type, leg.base_amount)
            for leg in planned.legs
        ]
        sign = 1 if direction == "spend" else -1
        made = BankTransaction(
            kind=Kind.SPEND if direction == "spend" else Kind.RECEIVE,
            bank_account=bank,
            date=day,
            amount=-sign * planned.total,
            contact_name=contact_name,
            reference=reference,
            created_by_id=actor_id(actor),
        )
        made.entry = ledger.post(
            journal="BNK",
            day=day,
            currency=bank.currency,
            legs=legs,
            actor=actor,
            memo=f"{made.get_kind_display()} {who}"[:300],
            source="banktx",
        )
        made.save()
        JournalEntry.objects.filter(pk=made.entry.pk).update(source=f"banktx:{made.pk}")
        if financial is not None:
            _reconcile(actor, [made], financial)
    logger.info("bank transaction %s posted (%s)", made.pk, made.kind)
    return made


def _reconcile(actor: Actor, rows: list[BankTransaction], financial: Financial) -> BankMatch:
    made = BankMatch.objects.create(
        date=financial.date,
        currency=financial.bank_account.currency,
        total=round_money(financial.amount, financial.bank_account.currency),
        created_by_id=actor_id(actor),
    )
    Financial.objects.filter(pk=financial.pk).update(match=made)
    BankTransaction.objects.filter(pk__in=[row.pk for row in rows]).update(match=made)
    for row in rows:
        row.match = made
    return made


# --- transfers -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlannedTransfer:
    amount_out: Decimal
    amount_in: Decimal


def transfer_check(
    *,
    source: BankAccount,
    target: BankAccount,
    amount_out: Decimal,
    amount_in: Decimal | None,
    day: date,
    financial_out: Financial | None = None,
    financial_in: Financial | None = None,
) -> PlannedTransfer:
    """The amounts a transfer moves, or the refusal (nothing is written)."""
    if source.pk == target.pk:
        raise invalid("toBankAccountId", _("a transfer goes to another bank account"))
    for field, account in (("fromBankAccountId", source), ("toBankAccountId", target)):
        if account.in_trash:
            raise invalid(field, _("{name} is archived"), name=account.name)
    _day_open(day)
    out = _amount(amount_out, source.currency, field="amountOut")
    if amount_in is None:
        if source.currency != target.currency:
            raise invalid(
                "amountIn",
                _("is required between {source} and {target}: what arrived in {target}"),
                source=source.currency,
                target=target.currency,
            )
        arrived = out
    else:
        arrived = _amount(amount_in, target.currency, field="amountIn")
        if source.currency == target.currency and arrived != out:
            raise invalid(
                "amountIn",
                _("in one currency the amount in is the amount out ({amount})"),
                amount=out,
            )
    base = ledger.books().base_currency
    from apps.accounting.lib import rates

    for currency in {source.currency, target.currency} - {base}:
        rates.rate(source=currency, target=base, on=day)
    if financial_out is not None:
        _line_check(financial_out, source, -out)
    if financial_in is not None:
        _line_check(financial_in, target, arrived)
    return PlannedTransfer(out, arrived)


def _amount(value: Decimal, currency: str, *, field: str) -> Decimal:
    if value <= 0:
        raise invalid(field, _("must be more than zero"))
    check_places(value, currency, field=field)
    check_fits(value, currency, what=str(_("the amount")))
    return value


def transfer(
    *,
    actor: Actor,
    source: BankAccount,
    target: BankAccount,
    amount_out: Decimal,
    amount_in: Decimal | None = None,
    day: date,
    reference: str = "",
    financial_out: Financial | None = None,
    financial_in: Financial | None = None,
) -> BankTransaction:
    """Moves money between two bank accounts (see the module); answers the money-out side, whose
    `counterpart` is the money in."""
    require(actor, AccountingPerm.POST)
    reference = _text(reference, field="reference", most=140)
    with transaction.atomic():
        lines = Financial.objects.select_for_update().select_related("bank_account")
        financial_out = lines.get(pk=financial_out.pk) if financial_out is not None else None
        financial_in = lines.get(pk=financial_in.pk) if financial_in is not None else None
        planned = transfer_check(
            source=source,
            target=target,
            amount_out=amount_out,
            amount_in=amount_in,
            day=day,
            financial_out=financial_out,
            financial_in=financial_in,
        )
        what = f"Transfer {source.name} to {target.name} {reference}".strip()[:300]
        if source.currency == target.currency:
            first = second = ledger.post(
                journal="BNK",
                day=day,
                currency=source.currency,
                legs=[
                    ledger.Leg(target.account, planned.amount_in, what),
                    ledger.Leg(source.account, -planned.amount_out, what),
                ],
                actor=actor,
                memo=what,
                source="transfer",
            )
        else:
            clearing = own_account(TRANSFER_CLEARING)
            first = ledger.post(
                journal="BNK",
                day=day,
                currency=source.currency,
                legs=[
                    ledger.Leg(clearing, planned.amount_out, what),
                    ledger.Leg(source.account, -planned.amount_out, what),
                ],
                actor=actor,
                memo=what,
                source="transfer",
            )
            carried = first.lines.get(account=clearing).base_amount
            second = ledger.post(
                journal="BNK",
                day=day,
                currency=target.currency,
                legs=[
                    ledger.Leg(target.account, planned.amount_in, what),
                    ledger.Leg(clearing, -planned.amount_in, what, base_amount=-carried),
                ],
                actor=actor,
                memo=what,
                source="transfer",
                residual_to=ledger.account(Account.Role.FX),
            )
        out = BankTransaction.objects.create(
            kind=Kind.TRANSFER_OUT,
            bank_account=source,
            date=day,
            amount=-planned.amount_out,
            contact_name=target.name[:200],
            reference=reference,
            entry=first,
            created_by_id=actor_id(actor),
        )
        into = BankTransaction.objects.create(
            kind=Kind.TRANSFER_IN,
            bank_account=target,
            date=day,
            amount=planned.amount_in,
            contact_name=source.name[:200],
            reference=reference,
            entry=second,
            counterpart=out,
            created_by_id=actor_id(actor),
        )
        out.counterpart = into
        out.save(update_fields=["counterpart"])
        JournalEntry.objects.filter(pk__in={first.pk, second.pk}).update(source=f"transfer:{out.pk}")
        if financial_out is not None:
            _reconcile(actor, [out], financial_out)
        if financial_in is not None:
            _reconcile(actor, [into], financial_in)
    logger.info("transfer %s posted", out.pk)
    return out


def fx_of(row: BankTransaction) -> Decimal:
    """What the transfer realised on the FX account, in base currency (a gain positive)."""
    entries = {row.entry_id, row.counterpart.entry_id if row.counterpart else row.entry_id}
    fx = ledger.account(Account.Role.FX)
    from django.db.models import Sum

    from apps.accounting.models import JournalLine

    total = JournalLine.objects.filter(entry_id__in=entries, account=fx).aggregate(t=Sum("base_amount"))["t"]
    return round_money(-(total or ZERO), ledger.books().base_currency)


# --- void ------------------------------------------------------------------------------------------


def sides(row: BankTransaction) -> list[BankTransaction]:
    """The row and, for a transfer, its other side."""
    found = [row]
    if row.counterpart_id is not None:
        found.append(BankTransaction.objects.select_related("bank_account").get(pk=row.counterpart_id))
    return found


def void_check(row: BankTransaction, day: date | None = None) -> date:
    """The day the void is posted on, or the refusal."""
    if row.voided_at is not None:
        raise BankTransactionVoided(
            id=row.pk,
            day=timezone.localdate(row.voided_at).isoformat(),
        )
    for side in sides(row):
        if side.match_id is not None:
            raise BankTransactionReconciled(id=side.pk, match=side.match_id)
    when = max(day or timezone.localdate(), row.date)
    _day_open(when)
    return when


def void(*, actor: Actor, row: BankTransaction, day: date | None = None) -> BankTransaction:
    """Voids money spent or received, or both sides of a transfer: their entries are reversed on
    `day` (default today, never before the transaction)."""
    require(actor, AccountingPerm.DELETE)
    with transaction.atomic():
        row = BankTransaction.objects.select_for_update().get(pk=row.pk)
        when = void_check(row, day)
        now = timezone.now()
        reversals: dict[int, JournalEntry] = {}
        for side in sides(row):
            if side.entry_id not in reversals:
                reversals[side.entry_id] = ledger.reverse(
                    side.entry, actor=actor, day=when, memo=f"Void of bank transaction {row.pk}"
                )
            side.reversal = reversals[side.entry_id]
            side.voided_at = now
            side.save(update_fields=["reversal", "voided_at", "updated_at"])
    row.refresh_from_db()
    logger.info("bank transaction %s voided", row.pk)
    return row


# --- reads -----------------------------------------------------------------------------------------


def transactions(
    *,
    actor: Actor,
    bank: BankAccount | None = None,
    kind: str | None = None,
    voided: bool | None = None,
    since: date | None = None,
    until: date | None = None,
    query: str = "",
) -> Any:
    from django.db.models import Q

    rows = BankTransaction.objects.restrict(actor).select_related("bank_account", "entry")
    if bank is not None:
        rows = rows.filter(bank_account=bank)
    if kind == "transfer":
        rows = rows.filter(kind__in=(Kind.TRANSFER_OUT, Kind.TRANSFER_IN))
    elif kind:
        rows = rows.filter(kind=kind)
    if voided is not None:
        rows = rows.filter(voided_at__isnull=not voided)
    if since:
        rows = rows.filter(date__gte=since)
    if until:
        rows = rows.filter(date__lte=until)
    for word in query.split():
        rows = rows.filter(Q(contact_name__icontains=word) | Q(reference__icontains=word))
    return rows
