"""Argument and answer shapes the Accounting tools share."""

from datetime import date
from decimal import Decimal
from typing import Annotated, Any

from django.utils.translation import gettext as _
from pydantic import Field, WithJsonSchema

from apps.accounting.lib.money import round_money
from apps.accounting.models import MatchLine, Payment, SalesDocument, SalesLine
from apps.accounting.shapes import Amount
from apps.catalogue.shapes import In, Out
from apps.core.clean import plain

Currency = Annotated[str, Field(min_length=3, max_length=3, description="ISO 4217, e.g. EUR")]
# A decimal as a JSON number or a string of digits ("12.50"): the string is money, not free text.
Decimalish = Annotated[
    Decimal,
    Field(allow_inf_nan=False, max_digits=19, decimal_places=6),
    WithJsonSchema({"type": ["string", "number"], "pattern": r"^-?\d+(\.\d+)?$"}),
]
TaxCode = Annotated[str, Field(min_length=1, max_length=20, description="Code from listTaxTypes")]


class LineIn(In):
    description: Annotated[str, Field(min_length=1, max_length=500)]
    quantity: Decimalish = Decimal(1)
    unit_price: Decimalish
    tax_type: TaxCode
    discount_percent: Decimalish = Decimal(0)
    account: Annotated[str | None, Field(max_length=10, description="Account code; default sales")] = None


Lines = Annotated[list[LineIn], Field(min_length=1, max_length=200, description="Replace all lines")]


def line_amounts(line: Any, currency: str) -> dict[str, Decimal]:
    """The amounts of a sales or purchase line as every line's answer gives them: its quantity and
    price without trailing zeros, its net and tax rounded to the currency."""
    return {
        "quantity": plain(line.quantity),
        "unit_price": plain(line.unit_price),
        "net": round_money(line.net, currency),
        "tax": round_money(line.tax, currency),
    }


HUNDRED = Decimal(100)


def rounding_notes(lines: Any, currency: str) -> list[str]:
    """Where a line's amount (quantity x unit price, less its discount) has more decimals than the
    currency's minor units, what it came to and what it was rounded to (half away from zero), in
    words: every answer that shows lines says so, rather than rounding quietly."""
    notes = []
    for number, line in enumerate(lines, start=1):
        discount = getattr(line, "discount_percent", Decimal(0)) or Decimal(0)
        exact = line.quantity * line.unit_price * (HUNDRED - discount) / HUNDRED
        rounded = round_money(exact, currency)
        if exact != rounded:
            notes.append(
                _("line %(n)s: %(quantity)s x %(price)s is %(exact)s, rounded to %(rounded)s %(currency)s")
                % {
                    "n": number,
                    "quantity": str(plain(line.quantity)),
                    "price": str(plain(line.unit_price)),
                    "exact": str(plain(exact)),
                    "rounded": rounded,
                    "currency": currency,
                }
            )
    return notes


Rounded = Annotated[list[str], Field(description="Amounts rounded to the currency's minor units")]


class LineOut(Out):
    description: str
    quantity: Amount
    unit_price: Amount
    discount_percent: Amount
    tax_type: str
    account: str
    net: Amount
    tax: Amount

    @classmethod
    def of(cls, line: SalesLine, currency: str) -> "LineOut":
        return cls.of_record(
            line,
            **line_amounts(line, currency),
            discount_percent=plain(line.discount_percent),
            tax_type=line.tax_type.code,
            account=line.account.code,
        )


class DocumentRef(Out):
    id: int
    kind: str
    number: str = Field(description="Empty until approved")
    status: str
    customer_name: str
    currency: str
    total: Amount
    amount_due: Amount
    issue_date: date
    due_date: date | None


class PaymentRef(Out):
    id: int
    date: date
    amount: Amount
    reference: str
    bank_account: str
    reconciled: bool
    removed: bool

    @classmethod
    def of(cls, payment: Payment) -> "PaymentRef":
        reconciled = bool(payment.reconciled_by_id) or MatchLine.objects.filter(payment=payment).exists()
        return cls.of_record(
            payment,
            amount=round_money(payment.amount, payment.currency),
            bank_account=payment.bank_account.code,
            reconciled=reconciled,
            removed=payment.removed_at is not None,
        )


def payments_of(document: Any) -> list[PaymentRef]:
    return [PaymentRef.of(payment) for payment in document.payments.select_related("bank_account")]


class DocumentOut(DocumentRef):
    contact_id: int | None
    customer_email: str
    customer_vat_number: str
    reference: str
    prices_include_tax: bool
    net: Amount
    tax: Amount
    amount_paid: Amount
    rate: Amount | None = Field(description="Base currency per unit, fixed at approval")
    disputed: bool
    snoozed_until: date | None
    origin_id: int | None = Field(description="Quote it came from, or invoice it credits")
    lines: list[LineOut]
    rounded: Rounded

    @classmethod
    def of(cls, document: SalesDocument) -> "DocumentOut":
        lines = list(document.lines.select_related("tax_type", "account"))
        return cls.of_record(
            document,
            lines=[LineOut.of(line, document.currency) for line in lines],
            rounded=rounding_notes(lines, document.currency),
        )


class InvoiceOut(DocumentOut):
    payments: list[PaymentRef]

    @classmethod
    def of(cls, document: SalesDocument) -> "InvoiceOut":
        found = DocumentOut.of(document)
        return cls(**dict(found), payments=payments_of(document))
