"""A bank account's reconciliation at a statement date (apps.accounting.selectors.reconciliation)."""

import datetime
from typing import Annotated

from django.utils import timezone
from pydantic import Field

from apps.accounting.lib.money import round_money
from apps.accounting.permissions import AccountingPerm
from apps.accounting.selectors import reconciliation
from apps.accounting.services import bank
from apps.accounting.shapes import Amount
from apps.accounting.tools.bank import BankAccountOut, FinancialOut
from apps.accounting.tools.common import Decimalish
from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import tool
from apps.catalogue.shapes import Out, id_field

SHOWN = 50


class PostingOut(Out):
    kind: str = Field(description="payment, spend, receive, transfer_out, transfer_in")
    id: int = Field(description="Payment or bank transaction id")
    date: datetime.date
    amount: Amount
    text: str


class ReconciliationOut(Out):
    bank_account: BankAccountOut
    as_of: datetime.date
    statement_balance: Amount = Field(description="Given, or opening balance plus the lines")
    statement_given: bool
    ledger_balance: Amount
    difference: Amount = Field(description="Statement less ledger; 0 when reconciled")
    reconciled_lines: int
    reconciled_amount: Amount
    unmatched_lines: int
    unmatched_amount: Amount
    unreconciled_postings_amount: Amount
    unmatched: list[FinancialOut] = Field(description="The first 50, with rules' suggestions")
    unreconciled_postings: list[PostingOut] = Field(description="The first 50 no line ties yet")


@tool("getBankReconciliation", permission=AccountingPerm.VIEW, title="Bank reconciliation", read_only=True)
def get_bank_reconciliation(
    ctx: ToolContext,
    *,
    bank_account_id: Annotated[
        int | None, id_field("listBankAccounts", description="Default: the first")
    ] = None,
    as_of: Annotated[datetime.date | None, Field(description="Statement date; default today")] = None,
    statement_balance: Annotated[
        Decimalish | None, Field(description="The statement's closing figure")
    ] = None,
) -> ReconciliationOut:
    """Compare a bank statement's closing balance with the ledger's at its date; getFinancialsSummary."""
    account = bank.bank_account_get(actor=ctx.actor, bank_account_id=bank_account_id)
    found = reconciliation.reconciliation(
        actor=ctx.actor,
        bank=account,
        as_of=as_of or timezone.localdate(),
        statement_balance=statement_balance,
    )
    currency = account.currency
    return ReconciliationOut(
        bank_account=BankAccountOut.of(account),
        as_of=found.as_of,
        statement_balance=found.statement_balance,
        statement_given=found.statement_given,
        ledger_balance=found.ledger_balance,
        difference=round_money(found.difference, currency),
        reconciled_lines=found.reconciled_lines,
        reconciled_amount=found.reconciled_amount,
        unmatched_lines=len(found.unmatched),
        unmatched_amount=found.unmatched_amount,
        unreconciled_postings_amount=found.postings_amount,
        unmatched=[FinancialOut.of(line, found.suggestions.get(line.pk)) for line in found.unmatched[:SHOWN]],
        unreconciled_postings=[PostingOut.of_record(posting) for posting in found.postings[:SHOWN]],
    )
