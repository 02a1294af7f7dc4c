"""Bank accounts and their lines ("financials"): by hand or from statement files
(apps.accounting.services.bank)."""

import datetime
from typing import Annotated, Literal

from django.utils.translation import gettext as _
from pydantic import Field

from apps.accounting.lib import statements
from apps.accounting.lib.money import round_money
from apps.accounting.models import BankAccount, Financial
from apps.accounting.permissions import AccountingPerm
from apps.accounting.services import bank, banking, bankrules
from apps.accounting.shapes import Amount
from apps.accounting.tools.bankrules import SuggestionOut
from apps.accounting.tools.common import Decimalish
from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import tool
from apps.catalogue.shapes import Changes, In, Limit, Offset, Out, Page, id_field, paginate
from apps.core.errors import invalid

BankAccountId = Annotated[int | None, id_field("listBankAccounts", description="Default: the first")]
FinancialId = Annotated[int, id_field("listFinancials")]


class BankAccountOut(Out):
    id: int
    name: str
    currency: str
    iban: str = Field(description="Masked: first and last four")
    number: str = Field(description="Account number, masked")
    ledger_account: str
    balance: Amount = Field(description="Ledger balance, its currency")
    archived: bool

    @classmethod
    def of(cls, account: BankAccount) -> "BankAccountOut":
        return cls.of_record(
            account,
            iban=banking.masked(account.iban),
            number=banking.masked(account.number),
            ledger_account=account.account.code,
            balance=banking.ledger_balance(account),
            archived=account.in_trash,
        )


class FinancialOut(Out):
    id: int
    bank_account_id: int
    date: datetime.date
    amount: Amount = Field(description="In: positive; out: negative")
    currency: str
    description: str
    counterparty: str
    reference: str
    source: str
    match_id: int | None
    suggestion: SuggestionOut | None = Field(None, description="A bank rule's, while unmatched")

    @classmethod
    def of(cls, financial: Financial, suggestion: bankrules.Suggestion | None = None) -> "FinancialOut":
        currency = financial.bank_account.currency
        return cls.of_record(
            financial,
            currency=currency,
            amount=round_money(financial.amount, currency),
            suggestion=SuggestionOut.of(suggestion) if suggestion else None,
        )


class AccountsOut(Out):
    accounts: list[BankAccountOut]


@tool("listBankAccounts", permission=AccountingPerm.VIEW, title="List bank accounts", read_only=True)
def list_bank_accounts(
    ctx: ToolContext,
    *,
    archived: Annotated[bool, Field(description="Also the archived ones")] = False,
) -> AccountsOut:
    """The workspace's bank accounts with currency, IBAN and ledger account; lines: listFinancials."""
    rows = bank.bank_accounts(ctx.actor, archived=archived).order_by("account__code")
    return AccountsOut(accounts=[BankAccountOut.of(account) for account in rows])


class TextFields(Changes):
    # Lengths are checked by apps.accounting.services.bank (the schema stays short).
    description: str = ""
    counterparty: str = ""
    reference: str = ""


class FinancialFields(TextFields):
    date: datetime.date
    amount: Annotated[Decimalish, Field(description="In: positive; out: negative")]


class StatementIn(In):
    format: Literal["camt053", "mt940", "ofx", "csv"]
    content: Annotated[str, Field(min_length=1, max_length=5_000_000)]
    mapping: Annotated[
        dict[str, str] | None,
        Field(description="csv: {date, amount|paidIn+paidOut, description, reference: column}, dateFormat"),
    ] = None


class CreatedOut(Out):
    created: int
    skipped: int = Field(description="Already imported")
    lines: list[FinancialOut] = Field(description="The first 20 created")


@tool("createFinancial", permission=AccountingPerm.EDIT, title="Add bank lines")
def create_financial(
    ctx: ToolContext,
    *,
    bank_account_id: BankAccountId = None,
    financial: Annotated[FinancialFields | None, Field(description="One line")] = None,
    statement: Annotated[StatementIn | None, Field(description="Or import a statement")] = None,
) -> CreatedOut:
    """Enter a bank line by hand or import a statement file; lines already imported are skipped."""
    if (financial is None) == (statement is None):
        raise invalid("financial", _("give either one financial or a statement"))
    account = bank.bank_account_get(actor=ctx.actor, bank_account_id=bank_account_id, action="change")
    if financial is not None:
        made = bank.financial_create(actor=ctx.actor, bank=account, fields=financial.given())
        return CreatedOut(created=1, skipped=0, lines=[FinancialOut.of(made)])
    assert statement is not None
    mapping = statements.csv_mapping(statement.mapping) if statement.mapping is not None else None
    imported = bank.statement_import(
        actor=ctx.actor, bank=account, format=statement.format, content=statement.content, mapping=mapping
    )
    return CreatedOut(
        created=len(imported.created),
        skipped=imported.skipped,
        lines=[FinancialOut.of(line) for line in imported.created[:20]],
    )


class ManagedOut(Out):
    financial: FinancialOut
    changed: list[str]


@tool("manageFinancial", permission=AccountingPerm.EDIT, title="Change or delete a bank line")
def manage_financial(
    ctx: ToolContext,
    *,
    financial_id: FinancialId,
    action: Annotated[Literal["update", "delete", "restore"], Field(description="delete: unmatched only")],
    financial: Annotated[TextFields | None, Field(description="Changes, for update")] = None,
) -> ManagedOut:
    """Change the text of, delete or restore an unmatched bank line (date and amount stay)."""
    found = Financial.objects.select_related("bank_account").fetch(
        ctx.actor, financial_id, "change", trash=action == "restore", lock=True
    )
    changed: list[str]
    if action == "update":
        if financial is None:
            raise invalid("financial", _("update needs the changes"))
        changed = bank.financial_update(actor=ctx.actor, financial=found, fields=financial.given())
    elif action == "delete":
        bank.financial_delete(actor=ctx.actor, financial=found)
        changed = ["deleted"]
    else:
        bank.financial_restore(actor=ctx.actor, financial=found)
        changed = ["restored"]
    return ManagedOut(financial=FinancialOut.of(found), changed=changed)


@tool("listFinancials", permission=AccountingPerm.VIEW, title="List bank lines", read_only=True)
def list_financials(
    ctx: ToolContext,
    *,
    bank_account_id: Annotated[int | None, id_field("listBankAccounts")] = None,
    matched: Annotated[bool | None, Field(description="Default: both")] = None,
    query: Annotated[str, Field(max_length=200, description="Words in text or reference")] = "",
    since: Annotated[datetime.date | None, Field(description="On or after")] = None,
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[FinancialOut]:
    """Bank lines, newest first, by account, match state, words or date; sums: getFinancialsSummary."""
    account = (
        bank.bank_account_get(actor=ctx.actor, bank_account_id=bank_account_id) if bank_account_id else None
    )
    rows = bank.financials(actor=ctx.actor, bank=account, matched=matched, query=query, since=since)
    every = list(bankrules.rules(actor=ctx.actor))
    return paginate(
        rows.order_by("-date", "-id"),
        limit=limit,
        offset=offset,
        item=lambda line: FinancialOut.of(line, bankrules.suggest(every, line)),
    )


class AccountFiguresOut(Out):
    bank_account: BankAccountOut
    lines: int
    unmatched: int
    money_in: Amount
    money_out: Amount
    unmatched_in: Amount
    unmatched_out: Amount
    balance: Amount = Field(description="Sum of the lines")
    ledger_balance: Amount = Field(description="Its ledger account")
    oldest_unmatched: datetime.date | None


class SummaryOut(Out):
    accounts: list[AccountFiguresOut]


@tool("getFinancialsSummary", permission=AccountingPerm.VIEW, title="Bank lines summary", read_only=True)
def get_financials_summary(
    ctx: ToolContext,
    *,
    bank_account_id: Annotated[int | None, id_field("listBankAccounts")] = None,
    until: Annotated[datetime.date | None, Field(description="As of; default: all")] = None,
) -> SummaryOut:
    """Per bank account: money in and out, what is unmatched, and the ledger balance beside it."""
    account = (
        bank.bank_account_get(actor=ctx.actor, bank_account_id=bank_account_id) if bank_account_id else None
    )
    return SummaryOut(
        accounts=[
            AccountFiguresOut.of_record(row, bank_account=BankAccountOut.of(row.bank))
            for row in bank.summary(actor=ctx.actor, bank=account, until=until)
        ]
    )
