"""The Accounting area's demo data in the active workspace (called by `seed_demo`; idempotent):
the books with their chart and tax types, and a draft quote to look at on Settings → Accounting."""

from decimal import Decimal
from typing import Any

from django.core.management.base import BaseCommand

from apps.accounting import ledger, services
from apps.accounting.models import SalesDocument
from apps.accounts.models import User

DEMO_CUSTOMER = "Umbrella Corporation (demo)"


class Command(BaseCommand):
    help = "Create the Accounting demo data (books, a draft quote) in the active workspace."

    def handle(self, *args: Any, **options: Any) -> None:
        ledger.books()
        owner = User.objects.filter(role__key="owner").order_by("pk").first()
        if owner is None or SalesDocument.objects.filter(customer_name=DEMO_CUSTOMER).exists():
            return
        services.document_create(
            actor=owner,
            kind=SalesDocument.Kind.QUOTE,
            fields={"customer_name": DEMO_CUSTOMER, "reference": "Website redesign"},
            lines=[
                services.LineData("Discovery workshop", Decimal("1200"), ledger_tax_code()),
                services.LineData("Design and build", Decimal("450"), ledger_tax_code(), Decimal(12)),
            ],
        )


def ledger_tax_code() -> str:
    """The books' standard-rate tax type (or the one that charges none)."""
    from apps.accounting.models import TaxType

    found = (
        TaxType.objects.filter(kind=TaxType.Kind.STANDARD, archived=False).order_by("-rate", "code").first()
    )
    return found.code if found else "NONE"
