"""What a month of bookkeeping found: a wrong bank match undone months later left its month paid
twice, a foreign invoice's payment into the base-currency bank could never be reconciled, a bank
line's extra decimals were rounded away, and the aged balances' totals kept four decimals."""

from decimal import Decimal

import pytest

from apps.accounting.tests.samples import acc
from apps.catalogue.testing import text_of


def ok(user, name, arguments):  # type: ignore[no-untyped-def]
    answered = acc(user, name, arguments)
    assert not answered["isError"], answered["content"][0]["text"]
    return answered["structuredContent"]


def refused(user, name, arguments) -> str:  # type: ignore[no-untyped-def]
    answered = acc(user, name, arguments)
    assert answered["isError"], answered.get("structuredContent")
    return text_of(answered)


def _invoice(user, customer: str, price: str, **more):  # type: ignore[no-untyped-def]
    made = ok(
        user,
        "createInvoice",
        {
            "invoice": {"customerName": customer, "issueDate": "2026-10-02", "dueDate": "2026-11-01", **more},
            "lines": [{"description": "Work", "unitPrice": price, "taxType": "UK-ZERO"}],
        },
    )
    return ok(user, "approveInvoice", {"invoiceId": made["id"]})


def _line(user, day: str, amount: str) -> int:  # type: ignore[no-untyped-def]
    made = ok(user, "createFinancial", {"financial": {"date": day, "amount": amount, "description": "bank"}})
    return made["lines"][0]["id"]


def _receivable(user, as_of: str) -> Decimal:  # type: ignore[no-untyped-def]
    rows = ok(user, "getAccountingSummary", {"asOf": as_of})["trialBalance"]
    row = next(row for row in rows if row["code"] == "1100")
    return Decimal(str(row.get("debit", 0))) - Decimal(str(row.get("credit", 0)))


def test_a_wrong_match_undone_later_leaves_its_month_as_if_never_made(people):
    member, admin = people["member"], people["admin"]
    globex = _invoice(member, "Globex Retail", "921.55")
    initech = _invoice(member, "Initech", "840")
    received = _line(member, "2026-10-25", "840.00")
    wrong = ok(
        member,
        "matchPurchaseInvoiceLineToFinancial",
        {"financialIds": [received], "lines": [{"invoiceId": globex["id"], "amount": "840"}]},
    )
    ok(admin, "unmatchPurchaseInvoiceLine", {"matchId": wrong["id"]})
    ok(
        member,
        "matchPurchaseInvoiceLineToFinancial",
        {"financialIds": [received], "lines": [{"invoiceId": initech["id"]}]},
    )
    # October as reported at its end: Globex still owes all of it, Initech nothing.
    assert _receivable(member, "2026-10-31") == Decimal("921.55")
    aged = ok(member, "getAgedBalances", {"side": "receivables", "asOf": "2026-10-31"})
    assert aged["totals"]["total"] == "921.55"


def test_a_foreign_invoice_paid_into_the_base_currency_bank_is_reconciled(people):
    owner, member = people["owner"], people["member"]
    ok(owner, "recordExchangeRate", {"source": "EUR", "rate": "0.85", "on": "2026-10-02"})
    ok(owner, "recordExchangeRate", {"source": "EUR", "rate": "0.86", "on": "2026-10-20"})
    muller = _invoice(member, "Muller GmbH", "1440", currency="EUR")
    payment = ok(member, "recordPayment", {"invoiceId": muller["id"], "amount": "1000", "on": "2026-10-20"})
    arrived = _line(member, "2026-10-20", "860.00")  # 1,000 EUR at 0.86
    made = ok(
        member,
        "matchPurchaseInvoiceLineToFinancial",
        {"financialIds": [arrived], "paymentIds": [payment["id"]]},
    )
    assert Decimal(made["total"]) == Decimal("860.00")
    # What did not arrive does not tie.
    other = _line(member, "2026-10-21", "850.00")
    second = ok(member, "recordPayment", {"invoiceId": muller["id"], "amount": "100", "on": "2026-10-20"})
    said = refused(
        member, "matchPurchaseInvoiceLineToFinancial", {"financialIds": [other], "paymentIds": [second["id"]]}
    )
    assert "86.00" in said and "850.00" in said


@pytest.mark.parametrize("amount", ["12.345", "-0.001"])
def test_a_bank_line_is_kept_as_the_bank_wrote_it_or_refused(people, amount):
    said = refused(
        people["member"], "createFinancial", {"financial": {"date": "2026-10-10", "amount": amount}}
    )
    assert said.startswith("`amount`: ") and "more decimals than GBP has" in said
