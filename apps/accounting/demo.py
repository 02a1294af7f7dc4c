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
