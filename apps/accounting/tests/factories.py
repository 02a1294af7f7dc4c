"""Test data of the Accounting area: balanced postings made through the one posting function.

entry = post_sale(actor, gross="120.00", currency="EUR", day=date(2026, 3, 2))
"""

from datetime import date
from decimal import Decimal
from typing import Any

from apps.accounting import ledger
from apps.accounting.models import Account, JournalEntry, TaxType


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
