"""Test data of the Accounting area: balanced postings made through the one posting function.

entry = post_sale(actor, gross="120.00", currency="EUR", day=date(2026, 3, 2))
"""

import itertools
from datetime import date
from decimal import Decimal
from typing import Any

from apps.accounting.lib import ledger
from apps.accounting.models import Account, JournalEntry, TaxType
from apps.core.factories import AccessRows, access_rows


def post_sale(
    actor: Any,
    *,
    net: str = "100.00",
    tax_code: str = "UK-STD",
    currency: str = "GBP",
    day: date | None = None,
) -> JournalEntry:
    """A sale on credit: receivable debited with the gross, sales and tax credited."""
    ledger.books()
    tax_type = TaxType.objects.get(code=tax_code)
    amount = Decimal(net)
    tax = amount * tax_type.charged_rate / 100
    return ledger.post(
        journal="SAL",
        day=day or date(2026, 3, 2),
        currency=currency,
        actor=actor,
        source="test",
        legs=[
            ledger.Leg(ledger.account(Account.Role.RECEIVABLE), amount + tax),
            ledger.Leg(ledger.account(Account.Role.SALES), -amount, tax_type=tax_type),
            ledger.Leg(ledger.account(Account.Role.TAX), -tax, tax_type=tax_type),
        ],
    )


def draft(
    actor: Any,
    *,
    kind: str = "invoice",
    currency: str = "GBP",
    issue_date: date | None = None,
    customer: str = "Northwind Traders",
    email: str = "",
    lines: list[tuple[str, str, str]] | None = None,
) -> Any:
    """A draft sales document made as createInvoice / createQuote make it: `lines` are
    (description, unit price, tax code)."""
    from apps.accounting.services import sales

    ledger.books()
    return sales.document_create(
        actor=actor,
        kind=kind,
        fields={
            "customer_name": customer,
            "customer_email": email,
            "currency": currency,
            "issue_date": issue_date or date(2026, 3, 2),
        },
        lines=[
            sales.LineData(description, Decimal(price), code)
            for description, price, code in lines or [("Consulting", "100.00", "UK-STD")]
        ],
    )


def issued(actor: Any, **fields: Any) -> Any:
    """An approved (numbered, posted) invoice."""
    from apps.accounting.services import sales

    return sales.document_approve(actor=actor, document=draft(actor, **fields))


def credited(
    actor: Any, invoice: Any, *, price: str = "50.00", tax_code: str = "UK-STD", day: date | None = None
) -> Any:
    """An approved credit note for `invoice` of one line at `price` (tax added), dated `day`
    (default: the invoice's issue date)."""
    from apps.accounting.services import sales

    note = sales.credit_note_for(actor=actor, invoice=invoice)
    sales.document_update(
        actor=actor,
        document=note,
        fields={"issue_date": day or invoice.issue_date},
        lines=[sales.LineData("Credit", Decimal(price), tax_code)],
    )
    return sales.document_approve(actor=actor, document=note)


def paid(actor: Any, invoice: Any, *, amount: str | None = None, day: date | None = None) -> Any:
    """A payment recorded on `invoice` (all that is due by default), as recordPayment records it."""
    from apps.accounting.services import sales

    return sales.record_payment(
        actor=actor,
        document=invoice,
        amount=Decimal(amount) if amount else invoice.amount_due,
        day=day or date(2026, 3, 9),
    )


# --- the company register ------------------------------------------------------------------------

_company_numbers = itertools.count(10_000_001)


def registered_company(
    actor: Any, *, name: str = "Sample Holdings Ltd", incorporated: date = date(2024, 1, 15)
) -> Any:
    """One of the workspace's companies, typed in (no register), with its filings open."""
    from apps.accounting.services import register

    company, _entry = register.company_register(
        actor=actor,
        number=f"{next(_company_numbers):08d}",
        fields={"name": name, "incorporated_on": incorporated},
        from_register=False,
    )
    return company


def bank_line(
    actor: Any, amount: str, *, day: date | None = None, description: str = "", reference: str = ""
) -> Any:
    """A bank line entered by hand on the first bank account, as createFinancial enters it."""
    from apps.accounting.services import bank

    account = bank.bank_account_get(actor=actor, bank_account_id=None)
    return bank.financial_create(
        actor=actor,
        bank=account,
        fields={
            "date": day or date(2026, 3, 10),
            "amount": Decimal(amount),
            "description": description,
            "reference": reference,
        },
    )


def posted_bill(
    actor: Any,
    *,
    supplier: str = "Office Supplies Ltd",
    reference: str = "OS-7781",
    net: str = "35.50",
    tax_code: str = "NONE",
    currency: str = "GBP",
    day: date | None = None,
) -> Any:
    """A posted purchase bill of one line (a negative `net` is a supplier's credit): the payable
    credited with the gross, purchases and tax debited, through the one posting function."""
    from apps.accounting.models import PurchaseBill, PurchaseBillLine

    ledger.books()
    tax_type = TaxType.objects.get(code=tax_code)
    amount = Decimal(net)
    tax = amount * tax_type.charged_rate / 100
    day = day or date(2026, 3, 5)
    bill = PurchaseBill.objects.create(
        status=PurchaseBill.Status.POSTED,
        supplier_name=supplier,
        reference=reference,
        currency=currency,
        issue_date=day,
        due_date=day,
        net=amount,
        tax=tax,
        total=amount + tax,
        created_by=actor,
    )
    PurchaseBillLine.objects.create(
        bill=bill,
        description=f"{supplier} {reference}",
        unit_price=amount,
        account=ledger.account(Account.Role.PURCHASES),
        tax_type=tax_type,
        net=amount,
        tax=tax,
    )
    bill.entry = ledger.post(
        journal="PUR",
        day=day,
        currency=currency,
        actor=actor,
        source=f"bill:{bill.pk}",
        legs=[
            ledger.Leg(ledger.account(Account.Role.PURCHASES), amount, tax_type=tax_type),
            ledger.Leg(ledger.account(Account.Role.TAX), tax, tax_type=tax_type),
            ledger.Leg(ledger.account(Account.Role.PAYABLE), -(amount + tax)),
        ],
    )
    bill.rate = bill.entry.rate
    bill.save(update_fields=["entry", "rate"])
    return bill


# --- the rows of each accounting record, for the access test (tests/test_access_per_model.py): every
# one is the whole area's ------------------------------------------------------------------------------


@access_rows("accounting.SalesDocument")
def _sales_documents(people: dict[str, Any]) -> AccessRows:
    return AccessRows(everyone=[draft(people["member"])])


@access_rows("accounting.PurchaseBill")
def _bills(people: dict[str, Any]) -> AccessRows:
    return AccessRows(everyone=[posted_bill(people["owner"])])


@access_rows("accounting.Charge")
def _charges(people: dict[str, Any]) -> AccessRows:
    from apps.accounting.services import sales

    ledger.books()
    fields = {
        "customer_name": "Contoso",
        "description": "Workshop",
        "unit_price": Decimal(90),
        "tax_type": "NONE",
    }
    return AccessRows(everyone=[sales.charge_create(actor=people["member"], fields=fields)])


@access_rows("accounting.BankAccount")
def _bank_accounts(people: dict[str, Any]) -> AccessRows:
    from apps.accounting.services import bank

    ledger.books()
    return AccessRows(
        everyone=[bank.bank_account_create(actor=people["owner"], name="Operations", currency="GBP")]
    )


@access_rows("accounting.Financial")
def _financials(people: dict[str, Any]) -> AccessRows:
    _bank_accounts(people)
    return AccessRows(everyone=[bank_line(people["owner"], "-12.50", description="Stamps")])


@access_rows("accounting.BankTransaction")
def _bank_transactions(people: dict[str, Any]) -> AccessRows:
    from apps.accounting.services import bank, banking

    ledger.books()
    account = bank.bank_account_get(actor=people["owner"], bank_account_id=None)
    lines = [banking.LineData("6000", Decimal("7.50"), "NONE", "Stamps")]
    made = banking.transaction_record(
        actor=people["owner"], bank=account, direction="spend", day=date(2026, 3, 3), lines=lines
    )
    return AccessRows(everyone=[made])


@access_rows("accounting.BankRule")
def _bank_rules(people: dict[str, Any]) -> AccessRows:
    from apps.accounting.services import bankrules

    ledger.books()
    fields = {"name": "Stamps", "contains": "post office", "account": "6000", "tax_type": "NONE"}
    return AccessRows(everyone=[bankrules.rule_create(actor=people["owner"], fields=fields)])


@access_rows("accounting.RegisteredCompany")
def _companies(people: dict[str, Any]) -> AccessRows:
    return AccessRows(everyone=[registered_company(people["owner"])])


@access_rows("accounting.Filing")
def _filings(people: dict[str, Any]) -> AccessRows:
    return AccessRows(everyone=list(registered_company(people["owner"]).filings.all()))
