"""A normal call of every Accounting tool, for the catalogue's contract test
(apps/catalogue/tests/test_contract.py), and the helpers the area's tests share."""

from typing import Any

from apps.accounting.tests.factories import post_sale
from apps.catalogue.dispatch import MemorySession
from apps.catalogue.testing import Sample, call, confirmed, sample, structured


def started(user: Any) -> MemorySession:
    """A session in which getAccountingSummary, the area's mandatory first call, was made."""
    session = MemorySession()
    structured(call(user, "getAccountingSummary", {}, session=session))
    return session


def acc(
    user: Any, name: str, arguments: dict[str, Any] | None = None, *, session: MemorySession | None = None
) -> dict[str, Any]:
    """An accounting tool call after the first call (confirmations accepted by the user)."""
    return call(
        user,
        name,
        arguments or {},
        session=session or started(user),
        capabilities={"elicitation": {}},
        elicit=confirmed,
    )


@sample("getAccountingSummary")
def get_accounting_summary(actor: Any) -> Sample:
    post_sale(actor, net="4321.09")
    return Sample({}, private=["4321.09"])


@sample("listTaxTypes")
def list_tax_types(actor: Any) -> Sample:
    return Sample({"kind": "standard"})


@sample("previewTaxBreakdown")
def preview_tax_breakdown(actor: Any) -> Sample:
    return Sample(
        {
            "lines": [
                {"quantity": "3", "unitPrice": "19.99", "taxType": "UK-STD"},
                {"unitPrice": "5", "taxType": "UK-RED", "discountPercent": "10"},
            ],
            "rounding": "document",
        }
    )


@sample("previewCurrencyConversion")
def preview_currency_conversion(actor: Any) -> Sample:
    return Sample({"amount": "250.00", "source": "USD", "target": "EUR", "on": "2026-03-02"})
