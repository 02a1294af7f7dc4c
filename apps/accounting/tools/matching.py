"""Matching bank lines to invoice lines, undoing it, and finding candidates
(apps.accounting.services.matching)."""

import datetime
from decimal import Decimal
from typing import Annotated, Any

from django.utils import timezone
from django.utils.translation import gettext as _
from pydantic import Field

from apps.accounting.lib import ledger
from apps.accounting.lib.money import round_money
from apps.accounting.models import BankMatch, PurchaseBill
from apps.accounting.permissions import AccountingPerm
from apps.accounting.services import matching
from apps.accounting.shapes import Amount
from apps.accounting.tools.bank import FinancialOut
from apps.accounting.tools.common import Currency, Decimalish, PaymentRef
from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import Marker, tool
from apps.catalogue.shapes import In, Limit, Offset, Out, Page, id_field, paginate
from apps.core.errors import invalid

InvoiceId = Annotated[int | None, id_field("searchInvoices")]


class MatchedLineOut(Out):
    kind: str = Field(description="invoice or bill")
    document_id: int
    number: str
    line: int
    description: str
    amount: Amount


def _line_out(item: Any, currency: str) -> MatchedLineOut:
    line = item.sales_line or item.bill_line
    document = line.document if item.sales_line else line.bill
    return MatchedLineOut(
        kind="bill" if item.bill_line else "invoice",
        document_id=document.pk,
        number=matching.label(document),
        line=line.position + 1,
        description=line.description,
        amount=round_money(item.amount, currency),
    )


class MatchOut(Out):
    id: int
    date: datetime.date
    currency: str
    total: Amount
    financials: list[FinancialOut]
    lines: list[MatchedLineOut]
    payments: list[PaymentRef]
    transaction_ids: list[int] = Field(description="Bank transactions it reconciles")

    @classmethod
    def of(cls, made: BankMatch) -> "MatchOut":
        items = made.lines.select_related("sales_line__document", "bill_line__bill")
        lines = [_line_out(item, made.currency) for item in items]
        financials = [FinancialOut.of(f) for f in made.financials.select_related("bank_account")]
        total = round_money(made.total, made.currency)
        recorded = [PaymentRef.of(p) for p in made.reconciled_payments.select_related("bank_account")]
        transactions = list(made.bank_transactions.order_by("id").values_list("pk", flat=True))
        return cls.of_record(
            made,
            financials=financials,
            lines=lines,
            total=total,
            payments=recorded,
            transaction_ids=transactions,
        )


class LineRef(In):
    invoice_id: Annotated[int | None, id_field("getUnmatchedInvoiceLines")] = None
    bill_id: Annotated[int | None, Field(ge=1, description="Or a bill")] = None
    line: Annotated[int | None, Field(ge=1, description="Default: all open lines")] = None
    amount: Annotated[Decimalish | None, Field(description="Part; default: all open")] = None


def _item(ref: LineRef) -> matching.Item:
    if (ref.invoice_id is None) == (ref.bill_id is None):
        raise invalid("lines", _("each line names an invoiceId or a billId"))
    if ref.bill_id is not None:
        return matching.Item("bill", ref.bill_id, ref.line, ref.amount)
    assert ref.invoice_id is not None
    return matching.Item("invoice", ref.invoice_id, ref.line, ref.amount)


@tool("matchPurchaseInvoiceLineToFinancial", permission=AccountingPerm.POST, title="Match bank lines")
def match_lines(
    ctx: ToolContext,
    *,
    financial_ids: Annotated[
        list[int], Field(min_length=1, max_length=50, description="From listFinancials")
    ],
    lines: Annotated[list[LineRef], Field(max_length=50, description="Invoice or bill lines")] = [],  # noqa: B006
    payment_ids: Annotated[
        list[int], Field(max_length=50, description="Payments recorded without a bank line, from getInvoice")
    ] = [],  # noqa: B006
    transaction_ids: Annotated[
        list[int],
        Field(max_length=50, description="From listBankTransactions"),
    ] = [],  # noqa: B006
) -> MatchOut:
    """Match bank lines to invoice or bill lines (amounts must tie) and post it; searchCandidateFinancials."""
    items = [_item(ref) for ref in lines]
    made = matching.match(
        actor=ctx.actor,
        financial_ids=financial_ids,
        items=items,
        payment_ids=payment_ids,
        transaction_ids=transaction_ids,
    )
    return MatchOut.of(made)


@tool("applyPurchaseCreditToFinancial", permission=AccountingPerm.POST, title="Apply a supplier credit")
def apply_purchase_credit(
    ctx: ToolContext,
    *,
    credit_id: Annotated[int, id_field("searchPurchaseInvoices", description="A bill with a negative total")],
    financial_id: Annotated[int, id_field("listFinancials", description="The refund")],
) -> MatchOut:
    """Settle a supplier's credit with the refund bank line that paid it back; amounts must tie."""
    credit = matching.document_of(ctx.actor, matching.Item("bill", credit_id), action="view")
    if credit.total >= 0:
        raise invalid(
            "creditId", _("this bill is not a credit; match it with matchPurchaseInvoiceLineToFinancial")
        )
    items = [matching.Item("bill", credit_id)]
    return MatchOut.of(matching.match(actor=ctx.actor, financial_ids=[financial_id], items=items))


class UnmatchedOut(Out):
    match_id: int
    freed_financial_ids: list[int]


@tool(
    "unmatchPurchaseInvoiceLine",
    permission=AccountingPerm.DELETE,
    title="Undo a bank match",
    markers=Marker.DESTRUCTIVE,
)
def unmatch_line(
    ctx: ToolContext, *, match_id: Annotated[int, id_field("getMatchedFinancialLines")]
) -> UnmatchedOut:
    """Undo a bank match: its payments are reversed in the ledger and its bank lines freed."""
    made = matching.match_get(actor=ctx.actor, match_id=match_id)
    return UnmatchedOut(match_id=match_id, freed_financial_ids=matching.unmatch(actor=ctx.actor, made=made))


@tool("getMatchedFinancialLines", permission=AccountingPerm.VIEW, title="Get bank matches", read_only=True)
def get_matched_financial_lines(
    ctx: ToolContext,
    *,
    financial_id: Annotated[int | None, id_field("listFinancials")] = None,
    invoice_id: InvoiceId = None,
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[MatchOut]:
    """Bank matches, newest first, with their bank lines and invoice lines; of one line or invoice."""
    rows = matching.matches(actor=ctx.actor, financial_id=financial_id, invoice_id=invoice_id, bank=None)
    return paginate(rows, limit=limit, offset=offset, item=MatchOut.of)


class OpenLineOut(Out):
    kind: str = Field(description="invoice or bill")
    document_id: int
    number: str
    party: str = Field(description="Customer or supplier")
    currency: str
    due_date: datetime.date | None
    line: int
    description: str
    gross: Amount
    open: Amount = Field(description="Not matched yet")


def _open_out(row: matching.UnmatchedLine) -> OpenLineOut:
    document = row.document
    bill = isinstance(document, PurchaseBill)
    return OpenLineOut(
        kind="bill" if bill else "invoice",
        document_id=document.pk,
        number=matching.label(document),
        party=document.supplier_name if isinstance(document, PurchaseBill) else document.customer_name,
        currency=document.currency,
        due_date=document.due_date,
        line=row.line.position + 1,
        description=row.line.description,
        gross=row.gross,
        open=row.open,
    )


@tool(
    "getUnmatchedInvoiceLines",
    permission=AccountingPerm.VIEW,
    title="Unmatched invoice lines",
    read_only=True,
)
def get_unmatched_invoice_lines(
    ctx: ToolContext,
    *,
    invoice_id: InvoiceId = None,
    customer: Annotated[str, Field(max_length=200, description="Words in the name")] = "",
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[OpenLineOut]:
    """Open lines of issued invoices and posted bills, unmatched to bank lines, oldest due first."""
    found = matching.unmatched_lines(actor=ctx.actor, invoice_id=invoice_id, customer=customer)
    return paginate(found, limit=limit, offset=offset, item=_open_out)


class CandidateOut(Out):
    financial: FinancialOut
    score: float = Field(description="0 to 1")
    reasons: list[str]


class CandidatesOut(Out):
    amount: Amount
    currency: str
    candidates: list[CandidateOut]


@tool(
    "searchCandidateFinancials",
    permission=AccountingPerm.VIEW,
    title="Find bank lines to match",
    read_only=True,
)
def search_candidate_financials(
    ctx: ToolContext,
    *,
    invoice_id: InvoiceId = None,
    bill_id: Annotated[int | None, Field(ge=1, description="Or a bill")] = None,
    amount: Annotated[Decimalish | None, Field(description="Or an amount; out negative")] = None,
    currency: Currency | None = None,
    limit: Limit = 10,
) -> CandidatesOut:
    """Unmatched bank lines ranked by amount, date and reference for an invoice, a bill or an amount."""
    references: list[str] = []
    names: list[str] = []
    if invoice_id is not None or bill_id is not None:
        item = matching.Item("bill", bill_id) if bill_id else matching.Item("invoice", invoice_id or 0)
        document = matching.document_of(ctx.actor, item, action="view")
        open_ = sum((line.open for line in matching.open_lines(document)), Decimal(0))
        target = min(open_, abs(document.amount_due)) * matching.flow(document)
        if target == 0:
            raise invalid(
                "invoiceId", _("{matching} has nothing left to match"), matching=matching.label(document)
            )
        currency = document.currency
        day = document.due_date or document.issue_date or timezone.localdate()
        if isinstance(document, PurchaseBill):
            references.append(document.reference)
            names.append(document.supplier_name)
        else:
            references += [document.number, document.reference]
            names.append(document.customer_name)
    elif amount is not None and amount != 0:
        target = amount
        currency = (currency or ledger.books().base_currency).upper()
        day = timezone.localdate()
    else:
        raise invalid("invoiceId", _("give an invoice, a bill, or a non-zero amount"))
    found = matching.candidates(
        actor=ctx.actor,
        amount=target,
        currency=currency,
        on=day,
        references=references,
        names=names,
        limit=limit,
    )
    return CandidatesOut(
        amount=target,
        currency=currency,
        candidates=[
            CandidateOut(financial=FinancialOut.of(c.financial), score=c.score, reasons=c.reasons)
            for c in found
        ],
    )
