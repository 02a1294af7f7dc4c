"""The Accounting area's demo data (`manage.py seed_demo`; idempotent): the books with their
chart and tax types, and a draft quote to look at on Settings → Accounting."""

from decimal import Decimal
from typing import Any

from django.db import transaction

from apps.accounting import ledger, services
from apps.accounting.models import SalesDocument, TaxType

DEMO_CUSTOMER = "Umbrella Corporation (demo)"


@transaction.atomic
def seed(*, people: list[Any], domain: str) -> None:
    owner = next(person for person in people if person.role.key == "owner")
    ledger.books()
    _seed_bank(owner)
    if SalesDocument.objects.filter(customer_name=DEMO_CUSTOMER).exists():
        return
    tax_code = _standard_tax_code()
    services.document_create(
        actor=owner,
        kind=SalesDocument.Kind.QUOTE,
        fields={"customer_name": DEMO_CUSTOMER, "reference": "Website redesign"},
        lines=[
            services.LineData("Discovery workshop", Decimal("1200"), tax_code),
            services.LineData("Design and build", Decimal("450"), tax_code, Decimal(12)),
        ],
    )


def _standard_tax_code() -> str:
    """The books' standard-rate tax type (or the one that charges none)."""
    standard = TaxType.objects.filter(kind=TaxType.Kind.STANDARD, archived=False)
    found = standard.order_by("-rate", "code").first()
    return found.code if found else "NONE"


DEMO_BANK = "Business current account (demo)"
# A small statement in the CSV layout many banks export, read through the importer.
DEMO_STATEMENT = """Date,Details,Amount
05/01/2026,Card payment Stationery World,-35.50
07/01/2026,Transfer from Umbrella Corporation,1200.00
09/01/2026,Monthly account fee,-5.00
"""


def _seed_bank(owner: Any) -> None:
    """A demo bank account (its own ledger account) with three lines imported from a CSV."""
    from apps.accounting import bank, statements
    from apps.accounting.models import BankAccount

    if BankAccount.objects.filter(name=DEMO_BANK).exists():
        return
    account = bank.bank_account_create(
        actor=owner, name=DEMO_BANK, currency=ledger.books().base_currency, iban="GB33BUKB20201555555555"
    )
    mapping = statements.CsvMapping(
        date="Date", amount="Amount", description="Details", date_format="%d/%m/%Y"
    )
    bank.statement_import(actor=owner, bank=account, format="csv", content=DEMO_STATEMENT, mapping=mapping)
