"""Bank accounts and their lines ("financials"): entered by hand or imported from a statement.

Every bank account has its own account in the chart (role bank), which matches post to. The chart's
first bank account (1200) gets its bank account the first time anything asks
(`bank_accounts`); more are added with `bank_account_create` (the Accounting page). Entering or
importing a line posts nothing: it is what the bank says happened, and matching it to invoices
and bills (apps.accounting.services.matching) is what posts. A matched line is locked until unmatched.
"""

import logging
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

from django.db import transaction
from django.db.models import Count, Max, Min, Q, Sum
from django.utils.translation import gettext_lazy as _

from apps.accounting.errors import BankLineMatched
from apps.accounting.lib import identifiers, ledger, statements
from apps.accounting.lib.money import check_places, currency_code, decimal_of, round_money
from apps.accounting.models import Account, BankAccount, Financial
from apps.accounting.permissions import AccountingPerm
from apps.core.actors import Actor, actor_id, require
from apps.core.errors import invalid

logger = logging.getLogger(__name__)
ZERO = Decimal(0)
BANK_CODES = range(1200, 1300)
TEXT_LIMITS = {"description": 500, "counterparty": 200, "reference": 140}


def bank_accounts(actor: Actor, *, archived: bool = False) -> Any:
    """The bank accounts `actor` may see (none without accounting.view; `archived`: those archived
    too); the chart's bank accounts without one get theirs first, in the base currency."""
    base = ledger.books().base_currency
    for account in Account.objects.filter(role=Account.Role.BANK, archived=False, bank_account__isnull=True):
        BankAccount.objects.get_or_create(account=account, defaults={"name": account.name, "currency": base})
    rows = BankAccount.objects.restrict(actor, trash="include" if archived else "exclude")
    return rows.select_related("account")


def bank_account_get(*, actor: Actor, bank_account_id: int | None, action: Any = "view") -> BankAccount:
    """The bank account of that id, or the first one when no id is given."""
    rows = bank_accounts(actor)
    if bank_account_id is None:
        found = rows.order_by("account__code").first()
        if found is None:
            raise invalid("bankAccountId", _("there is no bank account; add one on the Accounting page"))
        return found
    return BankAccount.objects.select_related("account").fetch(actor, bank_account_id, action)


def bank_account_create(*, actor: Actor, name: str, currency: str, iban: str = "") -> BankAccount:
    """A bank account with its own account in the chart (the next free code from 1200)."""
    require(actor, AccountingPerm.ADMIN)
    name = " ".join((name or "").split())
    if not name:
        raise invalid("name", _("name the bank account"))
    if len(name) > 120:
        raise invalid("name", _("at most 120 characters"))
    code = currency_code(currency)
    compact = identifiers.iban(iban) if iban.strip() else ""
    if compact and BankAccount.objects.live().filter(iban=compact).exists():
        raise invalid("iban", _("{iban} is already a bank account here"), iban=compact)
    ledger.books()
    used = set(Account.objects.values_list("code", flat=True))
    free = next((str(number) for number in BANK_CODES if str(number) not in used), None)
    if free is None:
        raise invalid("name", _("the chart has no free bank account code left (1200-1299)"))
    with transaction.atomic():
        account = Account.objects.create(
            code=free, name=name[:120], type=Account.Type.ASSET, role=Account.Role.BANK
        )
        bank = BankAccount.objects.create(
            name=name, currency=code, iban=compact, account=account, created_by_id=actor_id(actor)
        )
    logger.info("bank account %s added (ledger account %s)", bank.pk, free)
    return bank


# --- lines ----------------------------------------------------------------------------------------


def financial_create(*, actor: Actor, bank: BankAccount, fields: dict[str, Any]) -> Financial:
    """A line entered by hand (a transaction not in a statement yet, a card payment)."""
    require(actor, AccountingPerm.EDIT)
    financial = Financial(bank_account=bank, created_by_id=actor_id(actor), source=Financial.Source.MANUAL)
    _apply(financial, fields, creating=True)
    financial.save()
    logger.info("bank line %s entered on bank account %s", financial.pk, bank.pk)
    return financial


def _apply(financial: Financial, fields: dict[str, Any], *, creating: bool) -> None:
    if creating and fields.get("date") is None:
        raise invalid("date", _("is required"))
    if fields.get("date") is not None:
        financial.date = fields["date"]
    if creating or fields.get("amount") is not None:
        if fields.get("amount") is None:
            raise invalid("amount", _("is required: positive money in, negative money out"))
        # As the bank wrote it: more decimals than the currency has are refused, never rounded.
        amount = check_places(
            decimal_of(fields["amount"], field="amount"), financial.bank_account.currency, field="amount"
        )
        if amount == ZERO:
            raise invalid("amount", _("must not be zero: positive money in, negative money out"))
        financial.amount = amount
    for name, most in TEXT_LIMITS.items():
        if fields.get(name) is not None:
            value = " ".join(fields[name].split())
            if len(value) > most:
                raise invalid(name, _("at most {most} characters"), most=most)
            setattr(financial, name, value)


def financial_update(*, actor: Actor, financial: Financial, fields: dict[str, Any]) -> list[str]:
    require(actor, AccountingPerm.EDIT)
    _require_unmatched(financial)
    if {"date", "amount"} & set(fields):
        raise invalid("amount", _("a bank line keeps its date and amount; delete it and enter it again"))
    names = list(TEXT_LIMITS)
    before = {name: getattr(financial, name) for name in names}
    _apply(financial, fields, creating=False)
    financial.save()
    return [name for name in names if getattr(financial, name) != before[name]]


def financial_delete(*, actor: Actor, financial: Financial) -> None:
    """Moves an unmatched line to the trash (a re-import still knows it and skips it)."""
    require(actor, AccountingPerm.DELETE)
    _require_unmatched(financial)
    financial.trash(actor)


def financial_restore(*, actor: Actor, financial: Financial) -> None:
    require(actor, AccountingPerm.EDIT)
    financial.untrash()


def _require_unmatched(financial: Financial) -> None:
    if financial.match_id is not None:
        raise BankLineMatched(id=financial.pk, match=financial.match_id)


@dataclass(frozen=True)
class Imported:
    created: list[Financial]
    skipped: int
    statement: statements.Statement


def statement_import(
    *, actor: Actor, bank: BankAccount, format: str, content: str, mapping: statements.CsvMapping | None
) -> Imported:
    """Reads a statement file into the bank account's lines. Lines already here (the same bank id
    or fingerprint, trashed ones too) are skipped; a statement for another account or currency
    is refused; nothing is added when anything fails."""
    require(actor, AccountingPerm.EDIT)
    parsed = statements.parse(format, content, mapping)
    if parsed.currency and parsed.currency.upper() != bank.currency:
        raise invalid(
            "statement",
            _("it is in {statement}, the bank account in {account}"),
            statement=parsed.currency,
            account=bank.currency,
        )
    if parsed.account and not _same_account(bank, parsed.account):
        raise invalid(
            "statement",
            _("it is for account {statement}, not {account}"),
            statement=parsed.account,
            account=bank,
        )
    known = set(
        Financial.objects.filter(
            bank_account=bank, external_id__in=[line.external_id for line in parsed.lines]
        ).values_list("external_id", flat=True)
    )
    created = []
    for line in parsed.lines:
        if line.external_id in known:
            continue
        known.add(line.external_id)
        amount = round_money(line.amount, bank.currency)
        if amount == ZERO:
            continue
        created.append(
            Financial(
                bank_account=bank,
                date=line.date,
                amount=amount,
                description=line.description,
                counterparty=line.counterparty,
                reference=line.reference,
                source=format,
                external_id=line.external_id,
                created_by_id=actor_id(actor),
            )
        )
    Financial.objects.bulk_create(created)
    skipped = len(parsed.lines) - len(created)
    logger.info("statement imported on bank account %s: %s new, %s skipped", bank.pk, len(created), skipped)
    return Imported(created, skipped, parsed)


def _same_account(bank: BankAccount, named: str) -> bool:
    """Whether a statement's account (an IBAN, or a national number) is this bank account. An
    account with neither an IBAN nor a number takes any statement."""
    compact = "".join(named.split()).upper()
    if not bank.iban and not bank.number:
        return True
    if bank.iban and compact == bank.iban:
        return True
    if bank.number and compact.endswith("".join(bank.number.split()).upper()):
        return True
    # An IBAN ends with the national account number: OFX and MT940 often give only that.
    return bool(bank.iban) and len(compact) >= 6 and bank.iban.endswith(compact)


def financials(
    *,
    actor: Actor,
    bank: BankAccount | None = None,
    matched: bool | None = None,
    query: str = "",
    since: date | None = None,
    until: date | None = None,
) -> Any:
    rows = Financial.objects.restrict(actor).select_related("bank_account")
    if bank is not None:
        rows = rows.filter(bank_account=bank)
    if matched is not None:
        rows = rows.filter(match__isnull=not matched)
    for word in query.split():
        rows = rows.filter(
            Q(description__icontains=word) | Q(counterparty__icontains=word) | Q(reference__icontains=word)
        )
    if since:
        rows = rows.filter(date__gte=since)
    if until:
        rows = rows.filter(date__lte=until)
    return rows


@dataclass(frozen=True)
class AccountSummary:
    bank: BankAccount
    lines: int
    unmatched: int
    money_in: Decimal
    money_out: Decimal
    unmatched_in: Decimal
    unmatched_out: Decimal
    balance: Decimal
    ledger_balance: Decimal
    first: date | None
    last: date | None
    oldest_unmatched: date | None


def summary(*, actor: Actor, bank: BankAccount | None, until: date | None) -> list[AccountSummary]:
    """Per bank account: its lines' money in and out, what is not matched yet, the sum of its
    lines and the balance of its ledger account (in its currency, from the journal lines)."""
    accounts = [bank] if bank is not None else list(bank_accounts(actor).order_by("account__code"))
    found = []
    for account in accounts:
        rows = financials(actor=actor, bank=account, until=until)
        unmatched = Q(match__isnull=True)
        figures = rows.aggregate(
            lines=Count("pk"),
            unmatched=Count("pk", filter=unmatched),
            money_in=Sum("amount", filter=Q(amount__gt=0)),
            money_out=Sum("amount", filter=Q(amount__lt=0)),
            unmatched_in=Sum("amount", filter=unmatched & Q(amount__gt=0)),
            unmatched_out=Sum("amount", filter=unmatched & Q(amount__lt=0)),
            balance=Sum("amount"),
            first=Min("date"),
            last=Max("date"),
            oldest_unmatched=Min("date", filter=unmatched),
        )
        currency = account.currency

        def money(name: str, figures: dict[str, Any] = figures, currency: str = currency) -> Decimal:
            return round_money(figures[name] or ZERO, currency)

        found.append(
            AccountSummary(
                bank=account,
                lines=figures["lines"],
                unmatched=figures["unmatched"],
                money_in=money("money_in"),
                money_out=money("money_out"),
                unmatched_in=money("unmatched_in"),
                unmatched_out=money("unmatched_out"),
                balance=money("balance"),
                ledger_balance=_ledger_balance(account, until),
                first=figures["first"],
                last=figures["last"],
                oldest_unmatched=figures["oldest_unmatched"],
            )
        )
    return found


def _ledger_balance(bank: BankAccount, until: date | None) -> Decimal:
    """The bank's ledger account in its own currency: the lines posted in that currency, and the
    others' base amounts when the account is in the base currency."""
    from apps.accounting.models import JournalLine

    lines = JournalLine.objects.filter(account=bank.account)
    if until is not None:
        lines = lines.filter(entry__date__lte=until)
    base = ledger.books().base_currency
    own = lines.filter(entry__currency=bank.currency).aggregate(total=Sum("amount"))["total"] or ZERO
    if bank.currency == base:
        own += lines.exclude(entry__currency=base).aggregate(total=Sum("base_amount"))["total"] or ZERO
    return round_money(own, bank.currency)
