"""Bank accounts by tool, money spent and received without a document, transfers between bank
accounts, and voiding them (apps.accounting.services.banking)."""

import datetime
from decimal import Decimal
from typing import Annotated, Literal

from django.utils import timezone
from django.utils.translation import gettext as _
from pydantic import Field

from apps.accounting.lib.money import round_money
from apps.accounting.models import BankAccount, BankTransaction, Financial
from apps.accounting.permissions import AccountingPerm
from apps.accounting.services import bank, banking
from apps.accounting.shapes import Amount
from apps.accounting.tools.bank import BankAccountOut
from apps.accounting.tools.common import Currency, Decimalish, TaxCode
from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import Marker, tool
from apps.catalogue.shapes import In, Limit, Offset, Out, Page, id_field, paginate
from apps.core.errors import invalid

BankId = Annotated[int, id_field("listBankAccounts")]
TransactionId = Annotated[int, id_field("listBankTransactions")]
LineId = Annotated[int | None, id_field("listFinancials", description="Statement line it reconciles")]
On = Annotated[datetime.date | None, Field(description="Default today")]
Reference = Annotated[str, Field(max_length=140, description="As on the statement")]


# --- manageBankAccount ------------------------------------------------------------------------------


def _account(ctx: ToolContext, bank_account_id: int | None, *, trash: bool = False) -> BankAccount:
    if bank_account_id is None:
        raise invalid("bankAccountId", _("is required for this action"))
    rows = BankAccount.objects.select_related("account")
    return rows.fetch(ctx.actor, bank_account_id, "change", trash=trash)


@tool("manageBankAccount", permission=AccountingPerm.ADMIN, title="Open or close a bank account")
def manage_bank_account(
    ctx: ToolContext,
    *,
    action: Annotated[
        Literal["add", "rename", "archive", "restore"], Field(description="archive: empty only")
    ],
    bank_account_id: Annotated[int | None, id_field("listBankAccounts", description="Not for add")] = None,
    name: Annotated[str | None, Field(max_length=200, description="add, rename")] = None,
    currency: Currency | None = None,
    iban: Annotated[str, Field(max_length=50, description="add: checked, answered masked")] = "",
    number: Annotated[str | None, Field(max_length=50, description="Account number")] = None,
    opening_balance: Annotated[Decimalish | None, Field(description="add: against opening equity")] = None,
    opening_date: Annotated[datetime.date | None, Field(description="Of the opening balance")] = None,
) -> BankAccountOut:
    """Open, rename, archive or restore a bank account with its ledger account; listBankAccounts lists."""
    if action == "add":
        if not name or not currency:
            raise invalid("name", _("add needs a name and a currency"))
        made = banking.bank_account_add(
            actor=ctx.actor,
            name=name,
            currency=currency,
            iban=iban,
            number=number or "",
            opening_balance=opening_balance,
            opening_date=opening_date,
        )
        return BankAccountOut.of(bank.bank_account_get(actor=ctx.actor, bank_account_id=made.pk))
    found = _account(ctx, bank_account_id, trash=action == "restore")
    if action == "rename":
        if name is None and number is None:
            raise invalid("name", _("rename needs a name or a number"))
        if name is not None:
            banking.bank_account_rename(actor=ctx.actor, bank=found, name=name)
        if number is not None:
            banking.bank_account_set_number(actor=ctx.actor, bank=found, number=number)
    elif action == "archive":
        banking.bank_account_archive(actor=ctx.actor, bank=found)
    else:
        banking.bank_account_restore(actor=ctx.actor, bank=found)
    found.refresh_from_db()
    return BankAccountOut.of(found)


# --- the answers about bank transactions ------------------------------------------------------------


class EntryLineOut(Out):
    account: str
    account_name: str
    amount: Amount = Field(description="Debit positive")
    tax_type: str | None
    description: str


class BankTransactionOut(Out):
    id: int
    kind: str = Field(description="spend, receive, transfer_out, transfer_in")
    bank_account_id: int
    bank_account: str
    date: datetime.date
    amount: Amount = Field(description="In: positive; out: negative")
    currency: str
    contact_name: str
    reference: str
    entry_id: int
    counterpart_id: int | None = Field(description="A transfer's other side")
    match_id: int | None = Field(description="Bank match reconciling it")
    voided: bool
    lines: list[EntryLineOut]

    @classmethod
    def of(cls, row: BankTransaction) -> "BankTransactionOut":
        currency = row.bank_account.currency
        lines = [
            EntryLineOut(
                account=line.account.code,
                account_name=line.account.name,
                amount=round_money(line.amount, row.entry.currency),
                tax_type=line.tax_type.code if line.tax_type else None,
                description=line.description,
            )
            for line in row.entry.lines.select_related("account", "tax_type")
            if line.account_id != row.bank_account.account_id and line.amount
        ]
        return cls.of_record(
            row,
            bank_account=row.bank_account.name,
            amount=round_money(row.amount, currency),
            currency=currency,
            voided=row.voided_at is not None,
            lines=lines if row.kind in ("spend", "receive") else [],
        )


# --- recordBankTransaction ------------------------------------------------------------------------


class BankLineIn(In):
    account: Annotated[str, Field(min_length=1, max_length=10, description="Code from listAccounts")]
    amount: Annotated[Decimalish, Field(description="Positive")]
    tax_type: TaxCode
    description: Annotated[str, Field(max_length=300)] = ""


BankLines = Annotated[list[BankLineIn], Field(min_length=1, max_length=100, description="Coded to accounts")]
Direction = Annotated[Literal["spend", "receive"], Field(description="spend: money out")]


def _lines(lines: list[BankLineIn]) -> list[banking.LineData]:
    return [banking.LineData(line.account, line.amount, line.tax_type, line.description) for line in lines]


def _financial(ctx: ToolContext, financial_id: int | None, *, lock: bool = False) -> Financial | None:
    if financial_id is None:
        return None
    rows = Financial.objects.select_related("bank_account")
    return rows.fetch(ctx.actor, financial_id, "change" if lock else "view")


def _transaction_checked(
    ctx: ToolContext,
    *,
    direction: str,
    lines: list[BankLineIn],
    bank_account_id: int | None,
    on: datetime.date | None,
    prices_include_tax: bool,
    contact_name: str,
    reference: str,
    financial_id: int | None,
) -> bool:
    """recordBankTransaction's confirmation, asked once the transaction is known to be possible."""
    account = bank.bank_account_get(actor=ctx.actor, bank_account_id=bank_account_id)
    banking.transaction_check(
        bank=account,
        direction=direction,
        day=on or timezone.localdate(),
        lines=_lines(lines),
        prices_include_tax=prices_include_tax,
        financial=_financial(ctx, financial_id),
    )
    return True


@tool(
    "recordBankTransaction",
    permission=AccountingPerm.POST,
    title="Spend or receive money",
    markers=Marker.HIGH_RISK,
    confirm_if=_transaction_checked,
)
def record_bank_transaction(
    ctx: ToolContext,
    *,
    direction: Direction,
    lines: BankLines,
    bank_account_id: Annotated[
        int | None, id_field("listBankAccounts", description="Default: the first")
    ] = None,
    on: On = None,
    prices_include_tax: Annotated[bool, Field(description="Amounts include their tax")] = True,
    contact_name: Annotated[str, Field(max_length=200, description="Paid to or received from")] = "",
    reference: Reference = "",
    financial_id: LineId = None,
) -> BankTransactionOut:
    """Spend or receive money with no invoice or bill, coded to accounts; recordPayment for an invoice."""
    account = bank.bank_account_get(actor=ctx.actor, bank_account_id=bank_account_id, action="change")
    made = banking.transaction_record(
        actor=ctx.actor,
        bank=account,
        direction=direction,
        day=on or timezone.localdate(),
        lines=_lines(lines),
        prices_include_tax=prices_include_tax,
        contact_name=contact_name,
        reference=reference,
        financial=_financial(ctx, financial_id, lock=True),
    )
    return BankTransactionOut.of(made)


# --- transferBankFunds ------------------------------------------------------------------


class TransferOut(Out):
    money_out: BankTransactionOut
    money_in: BankTransactionOut
    fx_gain: Amount = Field(description="Realised, base currency; a loss negative")


def _transfer_checked(
    ctx: ToolContext,
    *,
    from_bank_account_id: int,
    to_bank_account_id: int,
    amount_out: Decimal,
    amount_in: Decimal | None,
    on: datetime.date | None,
    reference: str,
    financial_out_id: int | None,
    financial_in_id: int | None,
) -> bool:
    """transferBankFunds' confirmation, asked once the transfer is known to be possible."""
    banking.transfer_check(
        source=bank.bank_account_get(actor=ctx.actor, bank_account_id=from_bank_account_id),
        target=bank.bank_account_get(actor=ctx.actor, bank_account_id=to_bank_account_id),
        amount_out=amount_out,
        amount_in=amount_in,
        day=on or timezone.localdate(),
        financial_out=_financial(ctx, financial_out_id),
        financial_in=_financial(ctx, financial_in_id),
    )
    return True


@tool(
    "transferBankFunds",
    permission=AccountingPerm.POST,
    title="Transfer money to another bank account",
    markers=Marker.HIGH_RISK,
    confirm_if=_transfer_checked,
)
def transfer_between_bank_accounts(
    ctx: ToolContext,
    *,
    from_bank_account_id: BankId,
    to_bank_account_id: BankId,
    amount_out: Annotated[Decimalish, Field(description="In the from account's currency")],
    amount_in: Annotated[Decimalish | None, Field(description="Arrived; needed across currencies")] = None,
    on: On = None,
    reference: Reference = "",
    financial_out_id: LineId = None,
    financial_in_id: LineId = None,
) -> TransferOut:
    """Move money from one bank account to another, across currencies too (FX realised)."""
    out = banking.transfer(
        actor=ctx.actor,
        source=bank.bank_account_get(actor=ctx.actor, bank_account_id=from_bank_account_id, action="change"),
        target=bank.bank_account_get(actor=ctx.actor, bank_account_id=to_bank_account_id, action="change"),
        amount_out=amount_out,
        amount_in=amount_in,
        day=on or timezone.localdate(),
        reference=reference,
        financial_out=_financial(ctx, financial_out_id, lock=True),
        financial_in=_financial(ctx, financial_in_id, lock=True),
    )
    assert out.counterpart is not None
    return TransferOut(
        money_out=BankTransactionOut.of(out),
        money_in=BankTransactionOut.of(out.counterpart),
        fx_gain=banking.fx_of(out),
    )


# --- voidBankTransaction ----------------------------------------------------------------------------


def _transaction(ctx: ToolContext, transaction_id: int, action: str = "view") -> BankTransaction:
    rows = BankTransaction.objects.select_related("bank_account__account", "entry")
    return rows.fetch(ctx.actor, transaction_id, action)  # type: ignore[arg-type]


def _void_checked(ctx: ToolContext, *, transaction_id: int, on: datetime.date | None) -> bool:
    """voidBankTransaction's confirmation, asked once the transaction is known to be voidable."""
    banking.void_check(_transaction(ctx, transaction_id), on)
    return True


class VoidedOut(Out):
    voided: list[BankTransactionOut] = Field(description="Both sides of a transfer")


@tool(
    "voidBankTransaction",
    permission=AccountingPerm.DELETE,
    title="Void a bank transaction",
    markers=Marker.DESTRUCTIVE,
    confirm_if=_void_checked,
)
def void_bank_transaction(ctx: ToolContext, *, transaction_id: TransactionId, on: On = None) -> VoidedOut:
    """Void money spent, received or transferred: its posting is reversed; removePayment for payments."""
    found = _transaction(ctx, transaction_id, "change")
    done = banking.void(actor=ctx.actor, row=found, day=on)
    rows = banking.sides(
        BankTransaction.objects.select_related("bank_account__account", "entry").get(pk=done.pk)
    )
    return VoidedOut(voided=[BankTransactionOut.of(row) for row in rows])


# --- listBankTransactions ---------------------------------------------------------------------------


@tool("listBankTransactions", permission=AccountingPerm.VIEW, title="List bank transactions", read_only=True)
def list_bank_transactions(
    ctx: ToolContext,
    *,
    bank_account_id: Annotated[int | None, id_field("listBankAccounts")] = None,
    kind: Annotated[Literal["spend", "receive", "transfer"] | None, Field(description="Default: all")] = None,
    voided: Annotated[bool | None, Field(description="Default: both")] = None,
    since: Annotated[datetime.date | None, Field(description="On or after")] = None,
    query: Annotated[str, Field(max_length=200, description="Words in payee or reference")] = "",
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[BankTransactionOut]:
    """Money spent, received and transferred without a document, newest first; bank lines: listFinancials."""
    account = (
        bank.bank_account_get(actor=ctx.actor, bank_account_id=bank_account_id) if bank_account_id else None
    )
    rows = banking.transactions(
        actor=ctx.actor, bank=account, kind=kind, voided=voided, since=since, query=query
    ).select_related("bank_account__account", "entry")
    return paginate(rows.order_by("-date", "-id"), limit=limit, offset=offset, item=BankTransactionOut.of)
