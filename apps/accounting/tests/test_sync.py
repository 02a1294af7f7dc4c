"""Sync to an outside ledger against a loopback server speaking the Xero Accounting API's shape:
approved invoices, posted bills and payments pushed with their remote ids kept; a validation
error recorded and listed; a rate limit's Retry-After honoured; a 5xx backed off; a retry that
succeeds once the cause is fixed; sync off said plainly; bad input and refusals."""

from datetime import date, timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from apps.accounting.models import SyncRecord, SyncRun
from apps.accounting.services import sales, sync
from apps.accounting.tests.factories import draft, issued, posted_bill
from apps.accounting.tests.samples import acc_ok as ok
from apps.accounting.tests.samples import acc_refused as refused
from apps.accounting.tests.servers import Ledger, xero_ledger
from apps.catalogue.dispatch import MemorySession, ToolNotFound
from apps.catalogue.testing import call, person_without

pytestmark = pytest.mark.django_db
Status = SyncRecord.Status


def record_of(kind, record):
    return SyncRecord.objects.get(kind=kind, record_id=record.pk)


@pytest.mark.parametrize(
    ("name", "permission", "arguments"),
    [
        ("getAccountingSyncStatus", "accounting.view", {}),
        ("getAccountingSyncErrors", "accounting.view", {}),
        ("retryAccountingSyncs", "accounting.post", {}),
    ],
)
def test_a_role_without_the_permission_cannot_call_it(acme, name, permission, arguments):
    person = person_without(permission, email=f"no-{name.lower()}@acme.example")
    with pytest.raises(ToolNotFound):
        call(person, name, arguments, session=MemorySession())


def test_with_no_provider_sync_is_off_and_retry_is_an_error(people):
    owner = people["owner"]
    invoice = issued(owner, customer="Offline Customer")
    # Approving keeps the record, so turning sync on later pushes it.
    assert record_of("invoice", invoice).status == Status.PENDING
    assert sync.push_due() is None
    answer = ok(owner, "getAccountingSyncStatus")
    assert answer["configured"] is False
    assert answer["provider"] == ""
    assert "Sync is off" in answer["message"]
    assert (answer["pending"], answer["synced"], answer["failed"], answer["lastRun"]) == (1, 0, 0, None)
    assert "Sync to an outside ledger is off" in refused(owner, "retryAccountingSyncs")


def test_approved_documents_bills_and_payments_are_pushed_with_their_remote_ids(people):
    owner = people["owner"]
    invoice = issued(owner, customer="Pushed Customer", lines=[("Design work", "250.00", "UK-STD")])
    payment = sales.record_payment(actor=owner, document=invoice, amount=Decimal("100"), day=date(2026, 3, 9))
    quote = sales.document_approve(actor=owner, document=draft(owner, kind="quote"))
    bill = posted_bill(owner, supplier="Paper Mill Ltd", reference="PM-1", net="40.00")
    sync.queue(bill)  # the factory posts without bills.bill_post, which makes this call
    assert not SyncRecord.objects.filter(record_id=quote.pk, kind__in=["invoice", "credit_note"]).exists()
    with xero_ledger(Ledger()) as ledger:
        run = sync.push_due()
        assert run is not None and (run.pushed, run.failed, run.stopped) == (3, 0, "")
        status = ok(owner, "getAccountingSyncStatus")
    pushed = {collection: element for _method, collection, element, _key in ledger.requests}
    sale = record_of("invoice", invoice)
    assert sale.status == Status.SYNCED and sale.remote_id in ledger.held["Invoices"]
    assert pushed["Invoices"]["Type"] == "ACCPAY"  # the bill went last of the documents
    sent_sale = ledger.held["Invoices"][sale.remote_id]
    assert (sent_sale["Type"], sent_sale["InvoiceNumber"], sent_sale["Status"]) == (
        "ACCREC",
        invoice.number,
        "AUTHORISED",
    )
    assert sent_sale["Contact"] == {"Name": "Pushed Customer"}
    assert (
        sent_sale["LineItems"][0]["UnitAmount"] == 250.0 and sent_sale["LineItems"][0]["TaxType"] == "UK-STD"
    )
    purchase = ledger.held["Invoices"][record_of("bill", bill).remote_id]
    assert (purchase["Type"], purchase["InvoiceNumber"]) == ("ACCPAY", "PM-1")
    # The payment went after its invoice, naming the invoice's remote id.
    method, _collection, element, key = ledger.requests[-1]
    assert (method, element["Invoice"], element["Amount"]) == ("PUT", {"InvoiceID": sale.remote_id}, 100.0)
    assert record_of("payment", payment).remote_id in ledger.held["Payments"]
    assert key == f"atrium-payment-{payment.pk}-v1"
    assert (status["configured"], status["provider"], status["synced"], status["pending"]) == (
        True,
        "xero",
        3,
        0,
    )
    assert status["lastRun"]["pushed"] == 3

    # Voiding is pushed again, to the same remote invoice, under a new idempotency key.
    second = issued(owner, customer="Voided Customer")
    with xero_ledger(ledger):
        sync.push_due()
        sales.document_void(actor=owner, document=second)
        sync.push_due()
    method, collection, element, key = ledger.requests[-1]
    remote = record_of("invoice", second).remote_id
    assert (collection, element["InvoiceID"], element["Status"]) == ("Invoices", remote, "VOIDED")
    assert key == f"atrium-invoice-{second.pk}-v2"
    assert ledger.held["Invoices"][remote]["Status"] == "VOIDED"


def test_a_validation_error_is_listed_and_a_retry_succeeds_once_the_cause_is_fixed(people):
    owner = people["owner"]
    invoice = issued(owner, customer="Refused Customer")
    payment = sales.record_payment(actor=owner, document=invoice, amount=Decimal("20"), day=date(2026, 3, 9))
    ledger = Ledger()
    ledger.refuse["Invoices"] = "Account code 'UK-STD' is not a valid code for this document."
    with xero_ledger(ledger):
        run = sync.push_due()
        assert run is not None and (run.pushed, run.failed) == (0, 1)
        failed = record_of("invoice", invoice)
        assert (failed.status, failed.attempts, failed.next_attempt_at) == (Status.FAILED, 1, None)
        # The payment waits for its invoice rather than failing on its own.
        waiting = record_of("payment", payment)
        assert waiting.status == Status.PENDING and "waits for invoice" in waiting.last_error
        errors = ok(owner, "getAccountingSyncErrors")
        assert errors["total"] == 1
        assert errors["items"][0]["id"] == failed.pk
        assert errors["items"][0]["kind"] == "invoice" and errors["items"][0]["recordId"] == invoice.pk
        assert "not a valid code" in errors["items"][0]["error"]
        assert ok(owner, "getAccountingSyncErrors", {"kind": "bill"})["total"] == 0
        assert ok(owner, "getAccountingSyncStatus")["failed"] == 1
        summary = ok(owner, "getAccountingSummary")
        assert any("getAccountingSyncErrors" in item for item in summary["attention"])
        # The sweep does not push a refused record again by itself.
        assert sync.push_due() is not None and record_of("invoice", invoice).status == Status.FAILED

        del ledger.refuse["Invoices"]
        answer = ok(owner, "retryAccountingSyncs", {"ids": [failed.pk]})
        assert [(r["id"], r["status"], r["error"]) for r in answer["records"]] == [(failed.pk, "synced", "")]
        assert answer["run"]["pushed"] == 1
        assert record_of("invoice", invoice).remote_id in ledger.held["Invoices"]
        assert ok(owner, "getAccountingSyncErrors")["total"] == 0
        # The payment goes on the next push.
        sync.push_due()
        assert record_of("payment", payment).status == Status.SYNCED


def test_a_rate_limit_holds_pushes_until_its_retry_after(people, monkeypatch):
    owner = people["owner"]
    first, second = issued(owner, customer="First"), issued(owner, customer="Second")
    ledger = Ledger()
    ledger.limited, ledger.retry_after = 1, "30"
    start = timezone.now()
    with xero_ledger(ledger):
        run = sync.push_due()
        assert run is not None and run.pushed == 0 and "rate limited" in run.stopped
        assert len(ledger.requests) == 1  # it stopped at the 429: the second was not tried
        limited = record_of("invoice", first)
        assert limited.status == Status.PENDING and limited.attempts == 0
        assert start + timedelta(seconds=29) < limited.next_attempt_at < start + timedelta(seconds=40)
        status = ok(owner, "getAccountingSyncStatus")
        assert status["heldUntil"] is not None and status["pending"] == 2
        # Before the wait is over nothing is pushed.
        assert sync.push_due() is None and len(ledger.requests) == 1
        later = timezone.now() + timedelta(seconds=31)
        monkeypatch.setattr(sync.timezone, "now", lambda: later)
        run = sync.push_due()
        assert run is not None and run.pushed == 2
    assert record_of("invoice", first).status == record_of("invoice", second).status == Status.SYNCED


def test_a_failing_provider_is_retried_with_backoff(people, monkeypatch):
    owner = people["owner"]
    invoice = issued(owner)
    ledger = Ledger()
    ledger.broken = 1
    with xero_ledger(ledger):
        sync.push_due()
        failed = record_of("invoice", invoice)
        assert (failed.status, failed.attempts, failed.last_error) == (
            Status.FAILED,
            1,
            "the outside ledger answered HTTP 500",
        )
        assert failed.next_attempt_at - failed.updated_at == pytest.approx(
            timedelta(seconds=60), abs=timedelta(seconds=5)
        )
        assert sync.push_due() is None and len(ledger.requests) == 1
        later = timezone.now() + timedelta(seconds=61)
        monkeypatch.setattr(sync.timezone, "now", lambda: later)
        sync.push_due()
    assert record_of("invoice", invoice).status == Status.SYNCED
    assert [run.pushed for run in SyncRun.objects.order_by("started_at")] == [0, 1]


def test_bad_input_is_a_clear_error(people):
    owner = people["owner"]
    issued(owner)
    with xero_ledger(Ledger()):
        assert "no failed sync record" in refused(owner, "retryAccountingSyncs", {"ids": [999999]})
        assert "ids" in refused(owner, "retryAccountingSyncs", {"ids": []})
        assert refused(owner, "getAccountingSyncErrors", {"kind": "quote"})
        assert refused(owner, "getAccountingSyncErrors", {"limit": 0})
        # Nothing failed: a retry of all has nothing to do, and says so by its empty answer.
        assert ok(owner, "retryAccountingSyncs") == {"records": [], "run": None}


def test_the_page_shows_sync_off_then_the_errors_to_fix(people, acme_client):
    owner = people["owner"]
    invoice = issued(owner)
    acme_client.force_login(people["viewer"])
    page = acme_client.get("/settings/accounting/").content.decode()
    assert 'id="sync"' in page and "Sync is off" in page
    ledger = Ledger()
    ledger.refuse["Invoices"] = "Invoice number must be unique"
    with xero_ledger(ledger):
        sync.push_due()
        page = acme_client.get("/settings/accounting/").content.decode()
    assert "Sync is off" not in page
    assert "Invoice number must be unique" in page and f"sales invoice {invoice.pk}" in page


def test_an_error_naming_a_person_is_erased_with_their_data(people, acme):
    import io
    import json

    from apps.datarights.personal_data import personal_data_erase, personal_data_export

    owner = people["owner"]
    invoice = issued(owner, customer="Jane Roe", email="jane.roe@example.com")
    other = issued(owner, customer="Someone Else")
    ledger = Ledger()
    ledger.refuse["Invoices"] = "The email address jane.roe@example.com is not valid for this contact"
    with xero_ledger(ledger):
        sync.push_due()
    SyncRecord.objects.filter(kind="invoice", record_id=other.pk).update(
        last_error="Account code 200 is not valid"
    )
    out = io.BytesIO()
    personal_data_export(workspace=acme, email="jane.roe@example.com", out=out, performed_by="test")
    exported = json.loads(out.getvalue())["records"]["accounting.syncrecord"]
    assert [row["last_error"] for row in exported] == [ledger.refuse["Invoices"]]
    counts = personal_data_erase(workspace=acme, email="jane.roe@example.com", performed_by="test")
    assert counts["accounting.syncrecord"] == 1
    assert record_of("invoice", invoice).last_error == "(erased)"
    assert record_of("invoice", other).last_error == "Account code 200 is not valid"


def test_refunds_and_bill_payments_are_pushed_against_their_documents_and_removals_deleted(people):
    from apps.accounting.services import payments
    from apps.accounting.tests.factories import credited, paid

    owner = people["owner"]
    invoice = issued(owner, customer="Refunded Customer")
    paid(owner, invoice)
    note = credited(owner, invoice)
    refund = payments.refund(actor=owner, note=note, amount=Decimal("20"), day=date(2026, 3, 10))
    bill = posted_bill(owner, supplier="Paid Supplier", reference="PS-1", net="40.00")
    sync.queue(bill)
    bill_payment = payments.pay_bill(actor=owner, bill=bill, amount=Decimal("40"), day=date(2026, 3, 10))
    # Removed before it was ever pushed: nothing to tell the outside ledger.
    never = paid(owner, issued(owner, customer="Never Pushed"), amount="5")
    payments.remove(actor=owner, payment=never)
    assert not SyncRecord.objects.filter(kind="payment", record_id=never.pk).exists()

    with xero_ledger(Ledger()) as ledger:
        run = sync.push_due()
        assert run is not None and run.failed == 0
        held = ledger.held["Payments"]
        sent_refund = held[record_of("payment", refund).remote_id]
        assert sent_refund["CreditNote"] == {"CreditNoteID": record_of("credit_note", note).remote_id}
        assert sent_refund["Amount"] == 20
        sent_bill = held[record_of("payment", bill_payment).remote_id]
        assert sent_bill["Invoice"] == {"InvoiceID": record_of("bill", bill).remote_id}

        payments.remove(actor=owner, payment=payments.payment_get(actor=owner, payment_id=refund.pk))
        assert record_of("payment", refund).status == Status.PENDING
        sync.push_due()
    method, collection, element, _key = ledger.requests[-1]
    remote = record_of("payment", refund).remote_id
    assert (method, collection, element) == ("POST", "Payments", {"PaymentID": remote, "Status": "DELETED"})
    assert ledger.held["Payments"][remote]["Status"] == "DELETED"
