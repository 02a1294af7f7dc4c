"""Matching bank lines to invoice lines through the tools: an imported CAMT.053 line found as
the candidate and matched (the payment posted, the ledger balanced, both sides locked), undone;
one line paying two invoices and two lines paying one; amounts that do not tie; refusals."""

from decimal import Decimal
from pathlib import Path

import pytest

from apps.accounting.lib import ledger
from apps.accounting.models import Account, BankMatch, JournalEntry, PurchaseBill, SalesDocument
from apps.accounting.tests.factories import bank_line, draft, issued, posted_bill
from apps.accounting.tests.samples import acc_ok as ok
from apps.accounting.tests.samples import acc_refused as refused
from apps.catalogue.dispatch import MemorySession, ToolNotFound
from apps.catalogue.testing import call, person_without

pytestmark = pytest.mark.django_db
CAMT = (Path(__file__).parent / "statements" / "camt053.xml").read_text()


def balanced() -> bool:
    return ledger.trial_balance().balanced


@pytest.mark.parametrize(
    ("name", "permission", "arguments"),
    [
        ("getMatchedFinancialLines", "accounting.view", {}),
        ("getUnmatchedInvoiceLines", "accounting.view", {}),
        ("searchCandidateFinancials", "accounting.view", {"amount": "5"}),
        (
            "matchPurchaseInvoiceLineToFinancial",
            "accounting.post",
            {"financialIds": [1], "lines": [{"invoiceId": 1}]},
        ),
        ("unmatchPurchaseInvoiceLine", "accounting.delete", {"matchId": 1}),
        ("applyPurchaseCreditToFinancial", "accounting.post", {"creditId": 1, "financialId": 1}),
    ],
)
def test_a_role_without_the_permission_cannot_call_it(acme, name, permission, arguments):
    person = person_without(permission, email=f"no-{name.lower()}@acme.example")
    with pytest.raises(ToolNotFound):
        call(person, name, arguments, session=MemorySession())


def test_an_imported_line_is_found_matched_locked_and_unmatched(people):
    owner = people["owner"]
    invoice = issued(owner, customer="Northwind Traders")  # INV-0001, 100 + 20 VAT
    ok(owner, "createFinancial", {"statement": {"format": "camt053", "content": CAMT}})
    receivable = ledger.account(Account.Role.RECEIVABLE)
    assert ledger.balance_of(receivable) == 120

    found = ok(people["viewer"], "searchCandidateFinancials", {"invoiceId": invoice.pk})
    best = found["candidates"][0]
    assert found["amount"] == "120.00" and best["financial"]["amount"] == "120.00"
    assert "amount equal" in best["reasons"] and "names INV-0001" in best["reasons"]
    assert all(c["financial"]["amount"][0] != "-" for c in found["candidates"])
    open_lines = ok(people["viewer"], "getUnmatchedInvoiceLines", {"customer": "northwind"})
    assert [(row["number"], row["line"], row["open"]) for row in open_lines["items"]] == [
        ("INV-0001", 1, "120.00")
    ]

    made = ok(
        owner,
        "matchPurchaseInvoiceLineToFinancial",
        {"financialIds": [best["financial"]["id"]], "lines": [{"invoiceId": invoice.pk}]},
    )
    assert made["total"] == "120.00" and made["lines"][0]["number"] == "INV-0001"
    invoice.refresh_from_db()
    assert invoice.status == SalesDocument.Status.PAID and invoice.amount_due == 0
    assert ledger.balance_of(receivable) == 0 and balanced()
    figures = ok(people["viewer"], "getFinancialsSummary")["accounts"][0]
    assert figures["ledgerBalance"] == "120.00" and figures["balance"] == "84.50"
    assert ok(people["viewer"], "getUnmatchedInvoiceLines")["total"] == 0
    assert (
        ok(people["viewer"], "getMatchedFinancialLines", {"invoiceId": invoice.pk})["items"][0]["id"]
        == made["id"]
    )

    # Locked until unmatched: the bank line and the paid invoice.
    line_id = best["financial"]["id"]
    assert "unmatchPurchaseInvoiceLine" in refused(
        owner, "manageFinancial", {"financialId": line_id, "action": "delete"}
    )
    assert "matched" in refused(
        owner,
        "matchPurchaseInvoiceLineToFinancial",
        {"financialIds": [line_id], "lines": [{"invoiceId": invoice.pk}]},
    )
    assert "paid" in refused(owner, "manageInvoice", {"invoiceId": invoice.pk, "action": "void"}).lower()

    undone = ok(owner, "unmatchPurchaseInvoiceLine", {"matchId": made["id"]})
    assert undone["freedFinancialIds"] == [line_id]
    invoice.refresh_from_db()
    assert invoice.status == SalesDocument.Status.APPROVED and invoice.amount_due == 120
    assert ledger.balance_of(receivable) == 120 and balanced()
    assert not BankMatch.objects.exists()
    first = {"bankAccountId": ok(people["viewer"], "listBankAccounts")["accounts"][0]["id"]}
    assert ok(people["viewer"], "listFinancials", {**first, "matched": False})["total"] == 2
    assert "getMatchedFinancialLines" in refused(owner, "unmatchPurchaseInvoiceLine", {"matchId": made["id"]})


def test_one_line_pays_two_invoices_and_two_lines_pay_one(people):
    owner = people["owner"]
    first = issued(owner, customer="Contoso")  # 120.00
    second = issued(
        owner, customer="Contoso", lines=[("Support", "50.00", "UK-STD"), ("Setup", "25.00", "UK-STD")]
    )
    third = issued(owner, customer="Globex")  # 120.00
    together = bank_line(owner, "210.00", reference="Contoso remittance")
    part_one = bank_line(owner, "50.00", reference="Globex 1/2")
    part_two = bank_line(owner, "70.00", reference="Globex 2/2")

    one_to_many = ok(
        owner,
        "matchPurchaseInvoiceLineToFinancial",
        {"financialIds": [together.pk], "lines": [{"invoiceId": first.pk}, {"invoiceId": second.pk}]},
    )
    assert one_to_many["total"] == "210.00" and len(one_to_many["lines"]) == 3
    many_to_one = ok(
        owner,
        "matchPurchaseInvoiceLineToFinancial",
        {"financialIds": [part_one.pk, part_two.pk], "lines": [{"invoiceId": third.pk, "line": 1}]},
    )
    assert many_to_one["total"] == "120.00" and len(many_to_one["financials"]) == 2
    for document in (first, second, third):
        document.refresh_from_db()
        assert document.status == SalesDocument.Status.PAID
    assert ledger.balance_of(ledger.account(Account.Role.RECEIVABLE)) == 0 and balanced()


def test_a_part_of_a_line_is_matched_and_the_rest_stays_open(people):
    owner = people["owner"]
    invoice = issued(owner)
    payment = bank_line(owner, "20.00")

    ok(
        owner,
        "matchPurchaseInvoiceLineToFinancial",
        {"financialIds": [payment.pk], "lines": [{"invoiceId": invoice.pk, "line": 1, "amount": "20"}]},
    )

    invoice.refresh_from_db()
    assert invoice.status == SalesDocument.Status.PART_PAID and invoice.amount_due == 100
    assert (
        ok(people["viewer"], "getUnmatchedInvoiceLines", {"invoiceId": invoice.pk})["items"][0]["open"]
        == "100.00"
    )


def test_bad_matches_are_named_and_post_nothing(people):
    owner = people["owner"]
    invoice = issued(owner)
    euro_invoice = issued(owner, currency="EUR")
    waiting = draft(owner)
    short = bank_line(owner, "100.00")
    out = bank_line(owner, "-120.00")
    entries = JournalEntry.objects.count()

    def match(ids, lines):
        return refused(owner, "matchPurchaseInvoiceLineToFinancial", {"financialIds": ids, "lines": lines})

    assert "sum to 100.00 GBP but the document lines to 120.00 GBP" in match(
        [short.pk], [{"invoiceId": invoice.pk}]
    )
    assert "must tie" in match([out.pk], [{"invoiceId": invoice.pk}])
    # A euro invoice is paid into the pound (base-currency) account at what arrived, matched alone
    # and in its direction (apps/accounting/tests/test_banking.py matches one).
    assert "match it alone" in match([short.pk], [{"invoiceId": euro_invoice.pk}, {"invoiceId": invoice.pk}])
    assert "the other way" in match([out.pk], [{"invoiceId": euro_invoice.pk}])
    assert "is draft" in match([short.pk], [{"invoiceId": waiting.pk}])
    assert "no open line 3" in match([short.pk], [{"invoiceId": invoice.pk, "line": 3}])
    assert "more than the 120.00 GBP open" in match([short.pk], [{"invoiceId": invoice.pk, "amount": "500"}])
    assert "listFinancials" in match([987654], [{"invoiceId": invoice.pk}])
    assert "getMatchedFinancialLines" in refused(owner, "unmatchPurchaseInvoiceLine", {"matchId": 987654})
    assert "non-zero amount" in refused(people["viewer"], "searchCandidateFinancials", {})
    assert JournalEntry.objects.count() == entries and not BankMatch.objects.exists()


def test_a_posted_bill_is_matched_to_an_imported_camt_line_and_a_credit_to_its_refund(people):
    owner = people["owner"]
    bill = posted_bill(owner)  # Office Supplies Ltd, OS-7781, 35.50
    credit = posted_bill(owner, reference="OS-CN-12", net="-10.00")
    ok(owner, "createFinancial", {"statement": {"format": "camt053", "content": CAMT}})
    refund = bank_line(owner, "10.00", description="Office Supplies Ltd refund OS-CN-12")
    payable = ledger.account(Account.Role.PAYABLE)
    assert ledger.balance_of(payable) == -25.5

    best = ok(people["viewer"], "searchCandidateFinancials", {"billId": bill.pk})["candidates"][0]
    assert best["financial"]["amount"] == "-35.50" and "names OS-7781" in best["reasons"]
    listed = ok(people["viewer"], "getUnmatchedInvoiceLines", {"customer": "office supplies"})["items"]
    assert {(row["kind"], row["number"], row["open"]) for row in listed} == {
        ("bill", "bill OS-7781", "35.50"),
        ("bill", "bill OS-CN-12", "10.00"),
    }
    not_credit = refused(
        owner, "applyPurchaseCreditToFinancial", {"creditId": bill.pk, "financialId": refund.pk}
    )
    assert "not a credit" in not_credit
    made = ok(
        owner,
        "matchPurchaseInvoiceLineToFinancial",
        {"financialIds": [best["financial"]["id"]], "lines": [{"billId": bill.pk}]},
    )
    assert made["total"] == "-35.50" and made["lines"][0]["kind"] == "bill"
    applied = ok(owner, "applyPurchaseCreditToFinancial", {"creditId": credit.pk, "financialId": refund.pk})
    assert applied["total"] == "10.00"
    bill.refresh_from_db()
    credit.refresh_from_db()
    assert bill.status == credit.status == PurchaseBill.Status.PAID
    assert ledger.balance_of(payable) == 0 and balanced()

    ok(owner, "unmatchPurchaseInvoiceLine", {"matchId": made["id"]})
    bill.refresh_from_db()
    assert bill.status == PurchaseBill.Status.POSTED and bill.amount_due == Decimal("35.50")
    assert ledger.balance_of(payable) == Decimal("-35.50") and balanced()
