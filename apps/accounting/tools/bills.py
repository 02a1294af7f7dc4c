"""Purchase bills: read from a file, corrected and checked, totals reconciled, posted (payable)."""

from datetime import date
from decimal import Decimal
from typing import Annotated, Literal

from pydantic import Field

from apps.accounting.lib.money import round_money
from apps.accounting.models import PurchaseBill, PurchaseBillLine
from apps.accounting.permissions import AccountingPerm
from apps.accounting.services import bills
from apps.accounting.shapes import Amount
from apps.accounting.tools.common import Currency, Decimalish, Rounded, line_amounts, rounding_notes
from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import Marker, tool
from apps.catalogue.shapes import Changes, From, In, Limit, Offset, Out, Page, id_field, paginate

BillId = Annotated[int, id_field("searchPurchaseInvoices")]


class BillLineOut(Out):
    description: str
    quantity: Amount
    unit_price: Amount
    tax_type: str | None
    account: str | None
    net: Amount
    tax: Amount

    @classmethod
    def of(cls, line: PurchaseBillLine, currency: str) -> "BillLineOut":
        return cls.of_record(
            line,
            **line_amounts(line, currency),
            tax_type=line.tax_type.code if line.tax_type else None,
            account=line.account.code if line.account else None,
        )


class BillRef(Out):
    id: int
    status: str
    supplier_name: str
    reference: str
    currency: str
    total: Amount
    amount_due: Amount
    issue_date: date | None
    due_date: date | None


class BillOut(BillRef):
    contact_id: Annotated[int | None, From("supplier_id")]
    supplier_vat_number: str
    source: str
    file_id: int | None
    prices_include_tax: bool
    net: Amount
    tax: Amount
    stated_total: Annotated[Amount | None, From("extracted_total"), Field(description="As the document says")]
    origin_id: int | None = Field(description="A supplier credit: the bill it credits")
    lines: list[BillLineOut]
    rounded: Rounded

    @classmethod
    def of(cls, bill: PurchaseBill) -> "BillOut":
        stated = (
            round_money(bill.extracted_total, bill.currency) if bill.extracted_total is not None else None
        )
        rows = list(bill.lines.select_related("tax_type", "account"))
        lines = [BillLineOut.of(line, bill.currency) for line in rows]
        return cls.of_record(
            bill, stated_total=stated, lines=lines, rounded=rounding_notes(rows, bill.currency)
        )


class CheckedOut(Out):
    bill: BillOut
    problems: list[str] = Field(description="Empty: ready for postPurchaseInvoice")


class ExtractedOut(CheckedOut):
    found: list[str] = Field(description="Fields read from the document")


@tool("extractPurchaseBillDocument", permission=AccountingPerm.EDIT, title="Read a bill from a file")
def extract_purchase_bill_document(
    ctx: ToolContext, *, file_id: Annotated[int, id_field("listFiles")]
) -> ExtractedOut:
    """Read a supplier bill (PDF or scan, OCR) into a proposal with the supplier's defaults."""
    bill, found = bills.bill_extract(actor=ctx.actor, file_id=file_id)
    return ExtractedOut(bill=BillOut.of(bill), problems=bills.problems_of(bill), found=found.found)


class DefaultsOut(Out):
    supplier_name: str
    known: bool = Field(description="False: no bill posted yet, the books' defaults")
    currency: str
    account: str
    tax_type: str
    prices_include_tax: bool
    payment_terms_days: int
    vat_number: str
    contact_id: int | None


@tool(
    "getSupplierDefaults", permission=AccountingPerm.VIEW, title="Get a supplier's defaults", read_only=True
)
def get_supplier_defaults(
    ctx: ToolContext,
    *,
    supplier: Annotated[str, Field(max_length=200, description="Name")] = "",
    contact_id: Annotated[int | None, Field(ge=1, description="From searchContacts")] = None,
) -> DefaultsOut:
    """Currency, account, tax type and terms a supplier's bills start from."""
    found = bills.supplier_defaults(actor=ctx.actor, name=supplier, contact_id=contact_id)
    return DefaultsOut.of_record(found, account=found.account.code, tax_type=found.tax_type.code)


class BillFields(Changes):
    supplier_name: Annotated[str | None, Field(max_length=200)] = None
    contact_id: Annotated[int | None, Field(ge=1)] = None
    supplier_vat_number: Annotated[str | None, Field(max_length=30)] = None
    reference: Annotated[str | None, Field(max_length=100, description="Their invoice number")] = None
    currency: Currency | None = None
    prices_include_tax: bool | None = None
    issue_date: date | None = None
    due_date: date | None = None


class BillLineIn(In):
    description: Annotated[str, Field(min_length=1, max_length=500)]
    quantity: Decimalish = Decimal(1)
    unit_price: Decimalish
    tax_type: Annotated[str | None, Field(max_length=20)] = None
    account: Annotated[str | None, Field(max_length=10)] = None


def _line_data(lines: list[BillLineIn]) -> list[bills.BillLineData]:
    return [
        bills.BillLineData(line.description, line.unit_price, line.quantity, line.tax_type, line.account)
        for line in lines
    ]


@tool(
    "validatePurchaseInvoiceProposal",
    permission=AccountingPerm.EDIT,
    title="Correct and check a bill",
    idempotent=True,
)
def validate_purchase_invoice_proposal(
    ctx: ToolContext,
    *,
    bill_id: BillId,
    bill: Annotated[BillFields | None, Field(description="Corrections")] = None,
    lines: Annotated[list[BillLineIn] | None, Field(max_length=200, description="Replace all lines")] = None,
) -> CheckedOut:
    """Correct a bill proposal and check it is ready to post; lists what is wrong."""
    found = bills.bill_get(actor=ctx.actor, bill_id=bill_id, action="change")
    data = None if lines is None else _line_data(lines)
    problems = bills.bill_validate(
        actor=ctx.actor, bill=found, fields=bill.given() if bill else {}, lines=data
    )
    return CheckedOut(bill=BillOut.of(found), problems=problems)


class TaxGroupOut(Out):
    tax_type: str
    net: Amount
    tax: Amount


class TotalsOut(Out):
    currency: str
    net: Amount
    tax: Amount
    total: Amount
    taxes: list[TaxGroupOut]
    stated_total: Amount | None
    difference: Amount | None = Field(description="Stated minus lines")
    base_currency: str
    base_total: Amount | None


@tool(
    "previewPurchaseInvoiceTotals",
    permission=AccountingPerm.VIEW,
    title="Preview a bill's totals",
    read_only=True,
)
def preview_purchase_invoice_totals(ctx: ToolContext, *, bill_id: BillId) -> TotalsOut:
    """A bill's net, tax per tax type, total, base-currency total and gap to the stated total."""
    found = bills.bill_get(actor=ctx.actor, bill_id=bill_id)
    totals = bills.bill_totals(bill=found)
    result, currency = totals.breakdown, found.currency
    return TotalsOut.of_record(
        totals,
        currency=currency,
        net=round_money(result.net, currency),
        tax=round_money(result.tax, currency),
        total=round_money(result.total, currency),
        taxes=[
            TaxGroupOut(
                tax_type=group.tax_type.code,
                net=round_money(group.net, currency),
                tax=round_money(group.tax, currency),
            )
            for group in result.groups
        ],
    )


class ReconciledOut(Out):
    tied: bool
    difference: Amount = Field(description="Stated minus lines, before any adjustment")
    bill: BillRef


@tool("reconcilePurchaseInvoiceTotal", permission=AccountingPerm.EDIT, title="Reconcile a bill's total")
def reconcile_purchase_invoice_total(
    ctx: ToolContext,
    *,
    bill_id: BillId,
    stated_total: Annotated[Decimalish | None, Field(description="Correct the total read")] = None,
    adjust: Annotated[bool, Field(description="Book a rounding gap as a line")] = False,
) -> ReconciledOut:
    """Check a bill's stated total against its lines; a bigger gap than rounding is an error."""
    found = bills.bill_get(actor=ctx.actor, bill_id=bill_id, action="change")
    difference, tied = bills.bill_reconcile(
        actor=ctx.actor, bill=found, stated_total=stated_total, adjust=adjust
    )
    return ReconciledOut(tied=tied, difference=difference, bill=BillRef.of_record(found))


class BillIn(In):
    supplier_name: Annotated[str | None, Field(max_length=200, description="Or contactId")] = None
    contact_id: Annotated[int | None, Field(ge=1, description="From searchContacts")] = None
    supplier_vat_number: Annotated[str | None, Field(max_length=30)] = None
    reference: Annotated[str, Field(min_length=1, max_length=100, description="Their invoice number")]
    issue_date: date
    due_date: Annotated[date | None, Field(description="Default: the supplier's terms")] = None
    currency: Currency | None = None
    prices_include_tax: bool | None = None
    notes: Annotated[str | None, Field(max_length=2000)] = None


@tool("createBill", permission=AccountingPerm.EDIT, title="Type in a supplier bill")
def create_bill(
    ctx: ToolContext,
    *,
    bill: Annotated[BillIn, Field(description="Supplier, reference, dates, currency")],
    lines: Annotated[
        list[BillLineIn], Field(min_length=1, max_length=200, description="Account, tax type, amounts")
    ],
) -> CheckedOut:
    """Enter a supplier bill by hand, without a file (extractPurchaseBillDocument reads one); checked."""
    made = bills.bill_create(
        actor=ctx.actor,
        fields=bill.model_dump(),
        lines=_line_data(lines),
    )
    return CheckedOut(bill=BillOut.of(made), problems=[])


class PostedOut(BillRef):
    entry_id: Annotated[int | None, From("entry_id")]
    rate: Amount | None = Field(description="Base currency per unit")


def _post_checked(ctx: ToolContext, *, bill_id: int) -> bool:
    """postPurchaseInvoice's confirmation, asked once the bill may be posted by this person."""
    bills.post_check(actor=ctx.actor, bill=bills.bill_get(actor=ctx.actor, bill_id=bill_id))
    return True


@tool(
    "postPurchaseInvoice",
    permission=AccountingPerm.POST,
    title="Post a bill",
    markers=Marker.HIGH_RISK,
    confirm_if=_post_checked,
)
def post_purchase_invoice(ctx: ToolContext, *, bill_id: BillId) -> PostedOut:
    """Post a validated bill to the ledger as a payable; refuses a duplicate bill."""
    found = bills.bill_get(actor=ctx.actor, bill_id=bill_id, action="change")
    return PostedOut.of_record(bills.bill_post(actor=ctx.actor, bill=found))


class DiscardedOut(Out):
    id: int
    discarded: bool = True


@tool(
    "discardPurchaseInvoiceProposal",
    permission=AccountingPerm.DELETE,
    title="Discard a bill proposal",
    markers=Marker.DESTRUCTIVE,
)
def discard_purchase_invoice_proposal(ctx: ToolContext, *, bill_id: BillId) -> DiscardedOut:
    """Discard a bill proposal not yet posted, such as a duplicate."""
    found = bills.bill_get(actor=ctx.actor, bill_id=bill_id, action="delete")
    bills.bill_discard(actor=ctx.actor, bill=found)
    return DiscardedOut(id=bill_id)


@tool("searchPurchaseInvoices", permission=AccountingPerm.VIEW, title="Search bills", read_only=True)
def search_purchase_invoices(
    ctx: ToolContext,
    *,
    query: Annotated[str, Field(max_length=200, description="Supplier, reference or line words")] = "",
    status: Annotated[
        Literal["proposal", "validated", "posted", "part_paid", "paid", "void"] | None,
        Field(description="Only this state"),
    ] = None,
    unpaid: Annotated[bool, Field(description="Only posted, not fully paid")] = False,
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[BillRef]:
    """Find purchase bills by words, status or unpaid."""
    rows = bills.bill_search(actor=ctx.actor, query=query, status=status, unpaid=unpaid)
    return paginate(rows, limit=limit, offset=offset, item=BillRef.of_record)


@tool(
    "createSupplierCreditNote",
    permission=AccountingPerm.EDIT,
    title="Draft a supplier credit note",
)
def create_supplier_credit_note(
    ctx: ToolContext,
    *,
    bill_id: Annotated[int, id_field("searchPurchaseInvoices", description="The posted bill it credits")],
    reference: Annotated[str, Field(min_length=1, max_length=100, description="Their credit note number")],
    issue_date: Annotated[date | None, Field(description="Default today; not before the bill")] = None,
    lines: Annotated[
        list[BillLineIn] | None,
        Field(max_length=200, description="Credited; default all"),
    ] = None,
) -> CheckedOut:
    """Draft a supplier's credit note against a posted bill, checked; post it with postPurchaseInvoice."""
    found = bills.bill_get(actor=ctx.actor, bill_id=bill_id)
    data = None if lines is None else _line_data(lines)
    credit, problems = bills.credit_create(
        actor=ctx.actor, bill=found, reference=reference, issue_date=issue_date, lines=data
    )
    return CheckedOut(bill=BillOut.of(credit), problems=problems)


@tool("voidBill", permission=AccountingPerm.POST, title="Void a bill")
def void_bill(ctx: ToolContext, *, bill_id: BillId) -> BillOut:
    """Void a posted bill or supplier credit with nothing paid: its posting is reversed, nothing due."""
    found = bills.bill_get(actor=ctx.actor, bill_id=bill_id, action="change")
    return BillOut.of(bills.bill_void(actor=ctx.actor, bill=found))
