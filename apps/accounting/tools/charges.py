"""Billable charges: work or costs to bill that are not on an invoice yet."""

import datetime
from typing import Annotated, Literal

from django.utils.translation import gettext as _
from pydantic import Field

from apps.accounting.models import Charge, SalesDocument
from apps.accounting.permissions import AccountingPerm
from apps.accounting.services import sales
from apps.accounting.shapes import Amount
from apps.accounting.tools.common import Currency, Decimalish, DocumentRef, TaxCode
from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import tool
from apps.catalogue.shapes import Changes, Limit, Offset, Out, Page, id_field, paginate
from apps.core.clean import plain
from apps.core.errors import invalid

ChargeId = Annotated[int, id_field("listUnclaimedCharges")]


class ChargeFields(Changes):
    description: Annotated[str | None, Field(max_length=500, description="What was done or bought")] = None
    contact_id: Annotated[int | None, Field(ge=1, description="From searchContacts")] = None
    customer_name: Annotated[str | None, Field(max_length=200, description="Default: the contact's")] = None
    date: datetime.date | None = None
    quantity: Decimalish | None = None
    unit_price: Decimalish | None = None
    currency: Currency | None = None
    tax_type: TaxCode | None = None
    account: Annotated[str | None, Field(max_length=10, description="Account code; default sales")] = None


class ChargeOut(Out):
    id: int
    status: str
    customer_name: str
    contact_id: int | None
    description: str
    date: datetime.date
    quantity: Amount
    unit_price: Amount
    currency: str
    invoice_id: int | None

    @classmethod
    def of(cls, charge: Charge) -> "ChargeOut":
        return cls.of_record(charge, quantity=plain(charge.quantity), unit_price=plain(charge.unit_price))


@tool("createCharge", permission=AccountingPerm.EDIT, title="Create a billable charge")
def create_charge(
    ctx: ToolContext,
    *,
    charge: Annotated[ChargeFields, Field(description="description, customer, unitPrice, taxType required")],
) -> ChargeOut:
    """Record billable work or a cost to bill a customer later (manageCharge puts it on an invoice)."""
    return ChargeOut.of(sales.charge_create(actor=ctx.actor, fields=charge.given()))


class ChargeResultOut(Out):
    action: str
    charges: list[ChargeOut]
    changed: list[str]
    invoice: DocumentRef | None = Field(description="The draft invoice the charges are on")


@tool("manageCharge", permission=AccountingPerm.EDIT, title="Change, invoice or write off charges")
def manage_charge(
    ctx: ToolContext,
    *,
    action: Annotated[
        Literal["update", "invoice", "write_off", "restore"],
        Field(description="invoice: add to a draft invoice (a new one if none given)"),
    ],
    charge_ids: Annotated[
        list[int], Field(min_length=1, max_length=100, description="From listUnclaimedCharges")
    ],
    charge: Annotated[ChargeFields | None, Field(description="Changes, for update")] = None,
    invoice_id: Annotated[int | None, Field(ge=1, description="Draft invoice, from searchInvoices")] = None,
) -> ChargeResultOut:
    """Change an unclaimed charge, put charges on a draft invoice, write one off or restore it."""
    found = [Charge.objects.fetch(ctx.actor, charge_id, "change", lock=True) for charge_id in charge_ids]
    changed: list[str] = []
    invoice: SalesDocument | None = None
    if action == "update":
        if len(found) != 1 or charge is None:
            raise invalid("chargeIds", _("update takes one charge and its changes in charge"))
        changed = sales.charge_update(actor=ctx.actor, charge=found[0], fields=charge.given())
    elif action == "invoice":
        target = (
            sales.document_get(actor=ctx.actor, kind="invoice", document_id=invoice_id, action="change")
            if invoice_id
            else None
        )
        invoice = sales.charge_invoice(actor=ctx.actor, charges=found, invoice=target)
        changed = ["invoice"]
    else:
        for item in found:
            sales.charge_write_off(actor=ctx.actor, charge=item, restore=action == "restore")
        changed = ["status"]
    return ChargeResultOut(
        action=action,
        charges=[ChargeOut.of(item) for item in found],
        changed=changed,
        invoice=DocumentRef.of_record(invoice) if invoice else None,
    )


@tool("listUnclaimedCharges", permission=AccountingPerm.VIEW, title="List unclaimed charges", read_only=True)
def list_unclaimed_charges(
    ctx: ToolContext,
    *,
    contact_id: Annotated[int | None, Field(ge=1, description="From searchContacts")] = None,
    customer: Annotated[str, Field(max_length=200, description="Words in the customer's name")] = "",
    currency: Currency | None = None,
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[ChargeOut]:
    """Billable charges not yet put on an invoice, oldest first."""
    rows = Charge.objects.restrict(ctx.actor).filter(status=Charge.Status.UNCLAIMED)
    if contact_id:
        rows = rows.filter(contact_id=contact_id)
    for word in customer.split():
        rows = rows.filter(customer_name__icontains=word)
    if currency:
        rows = rows.filter(currency=currency.upper())
    return paginate(rows.order_by("date", "id"), limit=limit, offset=offset, item=ChargeOut.of)
