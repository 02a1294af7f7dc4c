"""Separation of duties: a workspace setting (off by default, an accounting admin's, by tool and on
the Accounting page) under which the person who created an invoice, credit note or bill may not
approve or post it; refused in the services, before any confirmation, admins included."""

import pytest

from apps.accounting.lib import ledger
from apps.accounting.models import JournalEntry, PurchaseBill, SalesDocument
from apps.accounting.tests.samples import acc_ok as ok
from apps.accounting.tests.samples import acc_refused as refused
from apps.accounting.tests.samples import started
from apps.catalogue.dispatch import MemorySession, ToolNotFound
from apps.catalogue.testing import call, person_without, text_of

pytestmark = pytest.mark.django_db

INVOICE = {
    "invoice": {"customerName": "Globex Retail", "issueDate": "2026-03-02"},
    "lines": [{"description": "Consulting", "quantity": "3", "unitPrice": "100", "taxType": "UK-STD"}],
}
BILL = {
    "bill": {"supplierName": "Hill Plumbing", "reference": "HP-411", "issueDate": "2026-03-04"},
    "lines": [{"description": "Boiler repair", "unitPrice": "240", "taxType": "UK-STD", "account": "6000"}],
}
CREATED_BY_YOU = "was created by you, and the books separate duties"


def test_the_setting_is_off_by_default_and_an_admins_to_turn_on(people):
    owner, member = people["owner"], people["member"]
    assert ok(people["viewer"], "getAccountingSummary")["separateDuties"] is False
    # Off: whoever made an invoice approves it.
    mine = ok(member, "createInvoice", INVOICE)
    assert ok(member, "approveInvoice", {"invoiceId": mine["id"]})["status"] == "approved"

    turned = ok(owner, "setSeparationOfDuties", {"on": True})
    assert (turned["separateDuties"], turned["previous"]) == (True, False)
    assert ok(member, "getAccountingSummary")["separateDuties"] is True
    assert ok(owner, "setSeparationOfDuties", {"on": True})["previous"] is True
    with pytest.raises(ToolNotFound):
        call(
            person_without("accounting.admin", email="no-duties@acme.example"),
            "setSeparationOfDuties",
            {"on": False},
            session=MemorySession(),
        )
    assert ledger.books().separate_duties is True


def test_an_invoice_and_its_credit_note_are_approved_by_another_person(people):
    owner, member = people["owner"], people["member"]
    ok(owner, "setSeparationOfDuties", {"on": True})

    invoice = ok(member, "createInvoice", INVOICE)
    message = refused(member, "approveInvoice", {"invoiceId": invoice["id"]})
    assert f"Invoice {invoice['id']} {CREATED_BY_YOU}" in message
    assert SalesDocument.objects.get(pk=invoice["id"]).status == "draft"
    assert JournalEntry.objects.count() == 0
    approved = ok(owner, "approveInvoice", {"invoiceId": invoice["id"]})
    assert (approved["status"], approved["number"]) == ("approved", "INV-0001")

    note = ok(member, "manageInvoice", {"invoiceId": invoice["id"], "action": "credit"})["created"]
    assert f"Credit note {note['id']} {CREATED_BY_YOU}" in refused(
        member, "approveInvoice", {"invoiceId": note["id"]}
    )
    assert ok(owner, "approveInvoice", {"invoiceId": note["id"]})["status"] in ("paid", "approved")


def test_an_admin_may_not_approve_what_they_created_while_it_is_on(people):
    owner, admin = people["owner"], people["admin"]
    ok(owner, "setSeparationOfDuties", {"on": True})
    invoice = ok(owner, "createInvoice", INVOICE)
    assert CREATED_BY_YOU in refused(owner, "approveInvoice", {"invoiceId": invoice["id"]})
    assert ok(admin, "approveInvoice", {"invoiceId": invoice["id"]})["status"] == "approved"
    # Quotes are not posted: their creator still approves them.
    quote = ok(owner, "createQuote", {"quote": INVOICE["invoice"], "lines": INVOICE["lines"]})
    assert (
        ok(owner, "manageQuote", {"quoteId": quote["id"], "action": "approve"})["document"]["status"]
        == "approved"
    )


def test_a_bill_is_posted_by_another_person_and_refused_before_the_confirmation(people):
    owner, member = people["owner"], people["member"]
    ok(owner, "setSeparationOfDuties", {"on": True})
    bill = ok(member, "createBill", BILL)["bill"]

    # Without a way to ask, the poster is refused before anyone is asked to confirm.
    asked = call(member, "postPurchaseInvoice", {"billId": bill["id"]}, session=started(member))
    assert asked["isError"] is True and "Confirmation required" not in text_of(asked)
    assert f"Bill {bill['id']} {CREATED_BY_YOU}" in text_of(asked)
    assert PurchaseBill.objects.get(pk=bill["id"]).status == "validated"
    other = call(owner, "postPurchaseInvoice", {"billId": bill["id"]}, session=started(owner))
    assert "Confirmation required" in text_of(other)
    assert ok(owner, "postPurchaseInvoice", {"billId": bill["id"]})["status"] == "posted"

    ok(owner, "setSeparationOfDuties", {"on": False})
    mine = ok(member, "createBill", {**BILL, "bill": {**BILL["bill"], "reference": "HP-412"}})["bill"]
    assert ok(member, "postPurchaseInvoice", {"billId": mine["id"]})["status"] == "posted"


def test_the_accounting_page_turns_it_on_for_admins_only(people, acme_client):
    acme_client.force_login(people["owner"])
    page = acme_client.get("/settings/accounting/").content.decode()
    assert 'action="/settings/accounting/duties/"' in page
    shown = acme_client.post("/settings/accounting/duties/", {"separate_duties": "on"}, follow=True)
    assert "may no longer approve it" in shown.content.decode()
    assert ledger.books().separate_duties is True
    off = acme_client.post("/settings/accounting/duties/", {}, follow=True)
    assert "may approve it again" in off.content.decode()
    assert ledger.books().separate_duties is False

    acme_client.force_login(person_without("accounting.admin", email="no-duties-page@acme.example"))
    assert acme_client.post("/settings/accounting/duties/", {"separate_duties": "on"}).status_code == 403
    assert "duties/" not in acme_client.get("/settings/accounting/").content.decode()
    assert ledger.books().separate_duties is False
