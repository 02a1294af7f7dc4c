"""Matching bank lines to invoice lines, undoing it, and finding candidates (apps.accounting.matching)."""

import datetime
from decimal import Decimal
from typing import Annotated

from django.utils import timezone
from pydantic import Field

from apps.accounting import matching, services
from apps.accounting.models import BankMatch
from apps.accounting.money import round_money
from apps.accounting.permissions import AccountingPerm
from apps.accounting.shapes import Amount
from apps.accounting.tools.bank import FinancialOut
from apps.accounting.tools.common import Currency, Decimalish
from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import Marker, tool
from apps.catalogue.shapes import In, Limit, Offset, Out, Page, id_field, paginate
from apps.core.errors import invalid

InvoiceId = Annotated[int | None, id_field("searchInvoices")]


class MatchedLineOut(Out):
    invoice_id: int
    number: str
    line: int
    description: str
    amount: Amount


class MatchOut(Out):
    id: int
    date: datetime.date
    currency: str
    total: Amount
    financials: list[FinancialOut]
    lines: list[MatchedLineOut]

    @classmethod
    def of(cls, made: BankMatch) -> "MatchOut":
        lines = [
            MatchedLineOut(
                invoice_id=line.document_id,
                number=line.document.number,
                line=line.position + 1,
                description=line.description,
                amount=round_money(item.amount, made.currency),
            )
            for item in made.lines.select_related("sales_line__document")
            if (line := item.sales_line) is not None
        ]
        financials = [FinancialOut.of(f) for f in made.financials.select_related("bank_account")]
        total = round_money(made.total, made.currency)
        return cls.of_record(made, financials=financials, lines=lines, total=total)


class LineRef(In):
    invoice_id: Annotated[int, id_field("getUnmatchedInvoiceLines")]
    line: Annotated[int | None, Field(ge=1, description="Default: all open lines")] = None
    amount: Annotated[Decimalish | None, Field(description="Part; default: all open")] = None


@tool("matchPurchaseInvoiceLineToFinancial", permission=AccountingPerm.POST, title="Match bank lines")
def match_lines(
    ctx: ToolContext,
    *,
    financial_ids: Annotated[
        list[int], Field(min_length=1, max_length=50, description="From listFinancials")
    ],
    lines: Annotated[list[LineRef], Field(min_length=1, max_length=50, description="Invoice lines to tie")],
) -> MatchOut:
    """Match bank lines to invoice lines (amounts must tie) and post it; see searchCandidateFinancials."""
    items = [matching.Item("invoice", ref.invoice_id, ref.line, ref.amount) for ref in lines]
    return MatchOut.of(matching.match(actor=ctx.actor, financial_ids=financial_ids, items=items))


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
    invoice_id: int
    number: str
    customer_name: str
    currency: str
    due_date: datetime.date | None
    line: int
    description: str
    gross: Amount
    open: Amount = Field(description="Not matched yet")


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
    """Lines of issued invoices not yet matched to bank lines, oldest due first."""
    found = matching.unmatched_lines(actor=ctx.actor, invoice_id=invoice_id, customer=customer)
    return paginate(
        found,
        limit=limit,
        offset=offset,
        item=lambda row: OpenLineOut(
            invoice_id=row.document.pk,
            number=row.document.number,
            customer_name=row.document.customer_name,
            currency=row.document.currency,
            due_date=row.document.due_date,
            line=row.line.position + 1,
            description=row.line.description,
            gross=row.gross,
            open=row.open,
        ),
    )


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
    amount: Annotated[Decimalish | None, Field(description="Without an invoice; out negative")] = None,
    currency: Currency | None = None,
    reference: Annotated[str, Field(max_length=140, description="Text the line names")] = "",
    limit: Limit = 10,
) -> CandidatesOut:
    """Unmatched bank lines ranked by amount, date and reference for an invoice or an amount."""
    references, names = [reference], []
    if invoice_id is not None:
        document = services.document_get(actor=ctx.actor, kind="invoice", document_id=invoice_id)
        open_ = sum((line.open for line in matching.open_lines(document)), Decimal(0))
        target = min(open_, document.amount_due)
        if target <= 0:
            raise invalid("invoiceId", f"{document.number or 'the draft'} has nothing left to match")
        currency = document.currency
        day = document.due_date or document.issue_date
        references += [document.number, document.reference]
        names.append(document.customer_name)
    elif amount is not None and amount != 0:
        target = amount
        currency = (currency or services.ledger.books().base_currency).upper()
        day = timezone.localdate()
    else:
        raise invalid("invoiceId", "give an invoice, or a non-zero amount")
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
