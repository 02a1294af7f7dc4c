"""The Accounting area's demo data (`manage.py seed_demo`; idempotent): the books with their
chart and tax types, a draft quote and a registered company with its filings to look at on Settings →
Accounting."""

from datetime import date
from decimal import Decimal
from typing import Any

from django.db import transaction

from apps.accounting.lib import ledger
from apps.accounting.models import SalesDocument, TaxType
from apps.accounting.services import sales

DEMO_CUSTOMER = "Umbrella Corporation (demo)"


@transaction.atomic
def seed(*, people: list[Any], domain: str) -> None:
    owner = next(person for person in people if person.role.key == "owner")
    ledger.books()
    _seed_register(owner)
    _seed_bank(owner)
    if SalesDocument.objects.filter(customer_name=DEMO_CUSTOMER).exists():
        return
    tax_code = _standard_tax_code()
    sales.document_create(
        actor=owner,
        kind=SalesDocument.Kind.QUOTE,
        fields={"customer_name": DEMO_CUSTOMER, "reference": "Website redesign"},
        lines=[
            sales.LineData("Discovery workshop", Decimal("1200"), tax_code),
            sales.LineData("Design and build", Decimal("450"), tax_code, Decimal(12)),
        ],
    )


def _standard_tax_code() -> str:
    """The books' standard-rate tax type (or the one that charges none)."""
    standard = TaxType.objects.filter(kind=TaxType.Kind.STANDARD, archived=False)
    found = standard.order_by("-rate", "code").first()
    return found.code if found else "NONE"


# The company register: a Scottish company typed in (no register provider in the demo), with
# its filings open, a director, a share allotment and its domains.
DEMO_COMPANY = "SC000042"


def _seed_register(owner: Any) -> None:
    from apps.accounting.models import RegisteredCompany
    from apps.accounting.services import register

    if RegisteredCompany.objects.filter(number=DEMO_COMPANY).exists():
        return
    company, _entry = register.company_register(
        actor=owner,
        number=DEMO_COMPANY,
        fields={
            "name": "Northwind Holdings Ltd (demo)",
            "incorporated_on": date(2021, 4, 6),
            "registered_office": "12 Harbour Street, Edinburgh EH6 6QW",
            "sic_codes": ["62020", "70229"],
        },
        from_register=False,
    )
    register.event_add(
        actor=owner,
        company=company,
        kind="appointment",
        on=date(2021, 4, 6),
        detail="Morgan Reid",
        role="director",
    )
    register.event_add(
        actor=owner,
        company=company,
        kind="allotment",
        on=date(2021, 4, 6),
        detail="100 ordinary shares of 1 GBP",
        role="",
    )
    # The notices of the day of incorporation went with the incorporation itself.
    for notice in company.filings.filter(kind="event_notice"):
        register.filing_complete(actor=owner, filing=notice, filed_on=date(2021, 4, 6), reference="IN01")
    register.domain_manage(
        actor=owner, company=company, action="add", domain="northwind-holdings.example", purpose="both"
    )


DEMO_BANK = "Business current account (demo)"
# A small statement in the CSV layout many banks export, read through the importer.
DEMO_STATEMENT = """Date,Details,Amount
05/01/2026,Card payment Stationery World,-35.50
07/01/2026,Transfer from Umbrella Corporation,1200.00
09/01/2026,Monthly account fee,-5.00
"""


def _seed_bank(owner: Any) -> None:
    """A demo bank account (its own ledger account) with three lines imported from a CSV."""
    from apps.accounting.lib import statements
    from apps.accounting.models import BankAccount
    from apps.accounting.services import bank

    if BankAccount.objects.filter(name=DEMO_BANK).exists():
        return
    account = bank.bank_account_create(
        actor=owner, name=DEMO_BANK, currency=ledger.books().base_currency, iban="GB33BUKB20201555555555"
    )
    mapping = statements.CsvMapping(
        date="Date", amount="Amount", description="Details", date_format="%d/%m/%Y"
    )
    bank.statement_import(actor=owner, bank=account, format="csv", content=DEMO_STATEMENT, mapping=mapping)
