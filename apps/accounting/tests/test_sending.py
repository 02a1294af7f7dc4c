"""Sending: an invoice with its PDF, reminders on the schedule that stop on payment, dispute or
snooze, statements aged current/30/60/90+; per tool a normal call, bad input and a refusal."""

from datetime import date, timedelta

import pytest
from django.core import mail
from django.utils import timezone

from apps.accounting.lib import ledger
from apps.accounting.models import SentMail
from apps.accounting.permissions import AccountingPerm
from apps.accounting.services import sending
from apps.accounting.tests.factories import draft, issued
from apps.accounting.tests.samples import acc_ok as ok
from apps.accounting.tests.samples import acc_refused as refused
from apps.catalogue.dispatch import MemorySession, ToolNotFound
from apps.catalogue.testing import call, person_without, text_of

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("name", "permission"),
    [
        ("sendInvoice", "accounting.send"),
        ("sendInvoiceReminders", "accounting.send"),
        ("snoozeInvoiceChase", "accounting.edit"),
        ("sendContactStatement", "accounting.send"),
    ],
)
def test_a_role_without_the_permission_cannot_call_it(acme, name, permission):
    person = person_without(permission, email=f"no-{name.lower()}@acme.example")
    with pytest.raises(ToolNotFound):
        call(person, name, {}, session=MemorySession())


def test_an_approved_invoice_goes_out_as_a_pdf_and_becomes_sent(people):
    invoice = issued(people["owner"], email="billing@northwind.example")

    answer = ok(
        people["owner"], "sendInvoice", {"invoiceId": invoice.pk, "note": "Thanks for your business."}
    )

    assert answer["recipient"] == "billing@northwind.example" and answer["document"]["status"] == "sent"
    message = mail.outbox[-1]
    assert message.to == ["billing@northwind.example"] and "INV-0001" in message.subject
    assert message.body.startswith("Thanks for your business.")
    filename, content, mimetype = message.attachments[0]
    assert filename == "INV-0001.pdf" and mimetype == "application/pdf" and content.startswith(b"%PDF")


def test_a_draft_or_an_invoice_without_an_address_is_not_sent(people):
    assert "approved" in refused(people["owner"], "sendInvoice", {"invoiceId": draft(people["owner"]).pk})
    assert "no e-mail address" in refused(
        people["owner"], "sendInvoice", {"invoiceId": issued(people["owner"]).pk}
    )
    assert not mail.outbox and not SentMail.objects.exists()


def test_reminders_follow_the_schedule_and_stop_on_payment_dispute_and_snooze(people):
    owner = people["owner"]
    today = timezone.localdate()
    late = issued(owner, issue_date=today - timedelta(days=40), email="late@example.org")  # due 10 days ago
    disputed = issued(owner, issue_date=today - timedelta(days=40), email="d@example.org")
    snoozed = issued(owner, issue_date=today - timedelta(days=40), email="s@example.org")
    not_yet = issued(owner, issue_date=today - timedelta(days=10), email="n@example.org")
    ok(owner, "manageInvoice", {"invoiceId": disputed.pk, "action": "dispute"})
    ok(
        owner,
        "snoozeInvoiceChase",
        {"invoiceId": snoozed.pk, "until": (today + timedelta(days=7)).isoformat()},
    )

    first = ok(owner, "sendInvoiceReminders", {})
    assert [item["document"]["id"] for item in first["sent"]] == [late.pk]
    assert "overdue" in mail.outbox[-1].subject and mail.outbox[-1].to == ["late@example.org"]
    # One a day at most: the next is due a week after the due date, which (10 days late) is
    # tomorrow's round, not another today.
    assert ok(owner, "sendInvoiceReminders", {})["due"] == 0
    tomorrow = [d.pk for d in sending.chase_candidates(type(late).objects.all(), today + timedelta(days=1))]
    assert late.pk in tomorrow

    late.refresh_from_db()
    assert late.reminders_sent == 1
    # Not yet due (in 20 days): no reminder; a day after its due date: the first.
    assert not_yet.pk not in [d.pk for d in sending.chase_candidates(type(late).objects.all(), today)]
    later = [d.pk for d in sending.chase_candidates(type(late).objects.all(), today + timedelta(days=21))]
    assert not_yet.pk in later and disputed.pk not in later
    ok(owner, "recordPayment", {"invoiceId": late.pk, "amount": "120"})
    assert sending.chase_candidates(type(late).objects.filter(pk=late.pk), today + timedelta(days=60)) == []


def test_overdue_invoices_are_chased_each_morning_once_switched_on_on_the_page(people, acme_client):
    owner = people["owner"]
    today = timezone.localdate()
    late = issued(owner, issue_date=today - timedelta(days=40), email="morning@example.org")
    to_late = lambda: [m for m in mail.outbox if m.to == ["morning@example.org"]]  # noqa: E731

    sending.chase_due(today=today)
    assert to_late() == []  # off by default: reminders go only when someone asks

    acme_client.force_login(owner)
    page = acme_client.post("/settings/accounting/chasing/", {"on": "1"}, follow=True).content.decode()
    assert "chased each morning" in page and owner.email in page
    sending.chase_due(today=today)
    sending.chase_due(today=today)  # the same morning twice: one reminder
    assert len(to_late()) == 1 and to_late()[0].reply_to == [owner.email]
    late.refresh_from_db()
    assert late.reminders_sent == 1

    # Sent as a person who may no longer send: nothing goes.
    books = ledger.books()
    books.chase_as = person_without(AccountingPerm.SEND, email="no-send@acme.test")
    books.save(update_fields=["chase_as"])
    assert sending.chase_due(today=today + timedelta(days=30)) == 0

    acme_client.post("/settings/accounting/chasing/", {"on": "0"})
    assert ledger.books().chase_as is None


def test_a_dry_run_sends_nothing(people):
    issued(people["owner"], issue_date=date(2025, 1, 6), email="late@example.org")
    answer = ok(people["owner"], "sendInvoiceReminders", {"dryRun": True})
    assert answer["due"] == 1 and answer["sent"] == [] and not mail.outbox


def test_snoozing_refuses_a_day_in_the_past(people):
    invoice = issued(people["owner"])
    assert "until" in refused(
        people["owner"], "snoozeInvoiceChase", {"invoiceId": invoice.pk, "until": "2020-01-01"}
    )
    assert (
        ok(people["owner"], "snoozeInvoiceChase", {"invoiceId": invoice.pk, "until": None})["snoozedUntil"]
        is None
    )


def test_a_statement_ages_what_the_customer_owes(people):
    owner = people["owner"]
    today = timezone.localdate()
    for days in (0, 45, 75, 200):
        issued(
            owner,
            customer="Initech",
            email="ap@initech.example",
            issue_date=today - timedelta(days=days + 30),
        )

    answer = ok(owner, "sendContactStatement", {"customerName": "initech"})

    assert answer["balance"] == "480.00" and answer["sentTo"] == "ap@initech.example"
    assert {row["bucket"]: row["amount"] for row in answer["ageing"]} == {
        "current": "120.00",
        "1-30": "0.00",
        "31-60": "120.00",
        "61-90": "120.00",
        "90+": "120.00",
    }
    assert mail.outbox[-1].attachments[0][0] == "statement.pdf"
    assert "no open invoices" in refused(owner, "sendContactStatement", {"customerName": "Nobody Ltd"})
    assert "contactId" in refused(owner, "sendContactStatement", {})


def test_a_dry_run_asks_no_confirmation_and_a_real_run_does(people):
    owner = people["owner"]
    issued(owner, issue_date=date(2025, 1, 6), customer="Initech", email="late@example.org")
    session = MemorySession()
    call(owner, "getAccountingSummary", {}, session=session)

    # Without a way to ask (no elicitation), a call that needs a confirmation is refused with its token.
    dry = call(owner, "sendInvoiceReminders", {"dryRun": True}, session=session)
    assert dry["isError"] is False and dry["structuredContent"]["due"] == 1 and not mail.outbox
    statement = call(
        owner, "sendContactStatement", {"customerName": "Initech", "dryRun": True}, session=session
    )
    assert statement["isError"] is False and statement["structuredContent"]["sentTo"] is None

    real = call(owner, "sendInvoiceReminders", {}, session=session)
    assert real["isError"] is True and "Confirmation required" in text_of(real) and not mail.outbox
