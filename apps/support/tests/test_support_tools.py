"""Customer Service against the real local mail server (Dovecot IMAP and the SMTP submission
server, the tests' own instance): a customer's e-mail becomes a ticket, the agent's reply is
e-mailed in its thread, the customer's answer threads back and the SLA clock pauses and resumes;
a closed ticket stays closed (a new message opens a follow-up). Per tool a normal call, bad input
and a refusal for a role without the permission; business hours with public holidays."""

import imaplib
import re
import time
import uuid
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from apps.catalogue.testing import assert_refused_without_its_permission, ok, refused, tools_of
from apps.departments.models import Department
from apps.mail import demo, servers, sync
from apps.mail.models import Mailbox
from apps.mcp.testing import Door, pat_and_key
from apps.notifications.models import Notification
from apps.support import hours
from apps.support.models import SlaPolicy, SupportMailbox, Ticket, TicketComment
from apps.support.services import inbound, sla
from apps.support.tests.factories import TicketFactory

SUPPORT_TOOLS = tools_of("customerservice")
CONFIRM = {
    "capabilities": {"elicitation": {}},
    "elicit": lambda message, schema: {"action": "accept", "content": {"confirm": True}},
}


def inbox_of(mail_server, address: str) -> list[bytes]:
    """What the local server holds in the INBOX of `address` (raw messages)."""
    host, _, port = mail_server["ATRIUM_MAIL_LOCAL_IMAP"].rpartition(":")
    client = imaplib.IMAP4(host, int(port))
    client.login(address, mail_server["ATRIUM_MAIL_LOCAL_PASSWORD"])
    client.select("INBOX", readonly=True)
    _status, data = client.uid("SEARCH", "ALL")
    found = []
    for uid in (data[0] or b"").split():
        _status, fetched = client.uid("FETCH", uid.decode(), "(BODY.PEEK[])")
        found.append(fetched[0][1])
    client.logout()
    return found


def arrives(mailbox: Mailbox, message) -> int:
    """A customer's message put in the support mailbox's INBOX on the server, synchronised, then
    taken into tickets; how many messages were taken."""
    with servers.imap(mailbox) as client:
        client.append("INBOX", "", imaplib.Time2Internaldate(time.time()), message.as_bytes())
    sync.sync(mailbox)
    return inbound.inbound(support=SupportMailbox.objects.get(mailbox=mailbox))


@pytest.fixture
def support(people, mail_server):
    """A support mailbox of its own on the local server (unique address), taking mail from now."""
    box = Mailbox.objects.create(
        name="Help desk",
        address=f"help-{uuid.uuid4().hex[:8]}@acme.example",
        owner=people["owner"],
        shared=True,
    )
    SupportMailbox.objects.all().delete()
    SupportMailbox.objects.create(mailbox=box, since=datetime.now(UTC) - timedelta(hours=1))
    return box


def test_the_area_has_its_tools_and_only_the_replies_are_high_risk():
    assert sorted(spec.name for spec in SUPPORT_TOOLS) == [
        "addMyTicketComment",
        "applyCannedReply",
        "closeTicket",
        "createCustomerServiceTicket",
        "escalateTicket",
        "getCustomerServiceOverview",
        "getSupportSummary",
        "listCannedReplies",
        "manageCannedReply",
        "mergeTickets",
        "resolveEscalation",
        "respondToTicket",
        "searchTickets",
        "updateTicket",
    ]
    high_risk = {spec.name for spec in SUPPORT_TOOLS if "HIGH RISK" in spec.definition["description"]}
    assert high_risk == {"respondToTicket", "applyCannedReply"}


@pytest.mark.parametrize("spec", SUPPORT_TOOLS, ids=lambda spec: spec.name)
def test_a_role_without_the_permission_cannot_call_it(acme, spec):
    assert_refused_without_its_permission(spec)


def test_an_email_becomes_a_ticket_the_reply_threads_and_the_answer_comes_back(support, people, mail_server):
    owner = people["owner"]
    customer = f"sam-{uuid.uuid4().hex[:8]}@example.net"
    question = demo._message(
        sender=f"Sam Ortiz <{customer}>",
        to=support.address,
        subject="Cannot sign in since yesterday",
        text="The sign-in page says my password is wrong.",
        days_ago=0,
    )
    assert arrives(support, question) == 1
    ticket = Ticket.objects.get(requester_email=customer)
    assert (ticket.status, ticket.channel, ticket.requester_name) == ("new", "email", "Sam Ortiz")
    assert ticket.policy.priority == "normal" and ticket.first_reply_due > ticket.created_at
    # Taken once: a second pass finds nothing new.
    assert inbound.inbound(support=SupportMailbox.objects.get(mailbox=support)) == 0

    # An internal note is never e-mailed; the reply is, once, in the customer's thread.
    ok(
        owner,
        "respondToTicket",
        {"ticketId": ticket.pk, "text": "Checked the logs: locked.", "internal": True},
        **CONFIRM,
    )
    assert inbox_of(mail_server, customer) == []
    answer = ok(
        owner, "respondToTicket", {"ticketId": ticket.pk, "text": "Unlocked: please try again."}, **CONFIRM
    )
    assert answer["status"] == "pending" and answer["assignee"]["email"] == owner.email
    assert answer["comments"][-1]["authorName"] == owner.get_full_name()
    received = inbox_of(mail_server, customer)
    assert len(received) == 1
    sent = sync.parse(received[0])
    assert sent["In-Reply-To"] == question["Message-ID"]
    assert f"[#{ticket.pk}]" in sent["Subject"] and "locked." not in sent.get_content()
    ticket.refresh_from_db()
    assert ticket.first_replied_at is not None and ticket.paused_at is not None
    due_before = ticket.resolution_due

    # The customer answers the reply: it threads back, the ticket opens, the clock resumes.
    Ticket.objects.filter(pk=ticket.pk).update(paused_at=ticket.paused_at - timedelta(hours=2))
    again = demo._message(
        sender=customer,
        to=support.address,
        subject=sent["Subject"],
        text="Works now, thanks!\n\nOn Monday, Help desk wrote:\n> Unlocked: please try again.\n",
        days_ago=0,
    )
    again["In-Reply-To"] = sent["Message-ID"]
    assert arrives(support, again) == 1
    ticket.refresh_from_db()
    assert ticket.status == "open" and ticket.paused_at is None
    assert ticket.resolution_due >= due_before  # moved on by the business time it was paused
    assert ticket.comments.filter(author_kind="requester").count() == 2
    # The ticket keeps what is new in the answer, not the thread it quotes.
    assert ticket.comments.order_by("-id")[0].body == "Works now, thanks!"
    assert list(ticket.status_changes.values_list("new", flat=True)) == ["new", "pending", "open"]
    # The reply was an agent's tool call; the mail that came in, nobody's (apps.core.history).
    assert list(ticket.status_changes.values_list("door", "tool", "actor")) == [
        ("", "", None),
        ("mcp", "respondToTicket", owner.pk),
        ("", "", None),
    ]

    # Read over the tool: the thread with the note marked internal.
    read = ok(owner, "searchTickets", {"ticketId": ticket.pk})["items"][0]
    assert [c["public"] for c in read["comments"]] == [True, False, True, True]
    assert read["comments"][2]["emailed"] is True

    # Closed is closed: a change is refused, and a new message opens a follow-up.
    ok(owner, "closeTicket", {"ticketId": ticket.pk})
    assert "is closed" in refused(owner, "closeTicket", {"ticketId": ticket.pk})
    assert "is closed" in refused(
        owner, "respondToTicket", {"ticketId": ticket.pk, "text": "One more thing"}, **CONFIRM
    )
    later = demo._message(
        sender=customer, to=support.address, subject=sent["Subject"], text="It broke again.", days_ago=0
    )
    later["In-Reply-To"] = sent["Message-ID"]
    assert arrives(support, later) == 1
    follow_up = Ticket.objects.get(follow_up_of=ticket)
    assert follow_up.requester_email == customer and follow_up.status == "new"
    assert Ticket.objects.get(pk=ticket.pk).comments.count() == 4


def test_the_tools_answer_and_bad_input_is_a_clear_error(acme, people):
    owner, member, viewer = people["owner"], people["member"], people["viewer"]
    made = ok(
        member,
        "createCustomerServiceTicket",
        {
            "subject": "Invoice missing",
            "text": "Never arrived.",
            "requesterEmail": viewer.email,
            "priority": "urgent",
        },
    )
    assert made["priority"] == "urgent" and made["firstReplyDue"] is not None
    assert "`requesterEmail`" in refused(
        member,
        "createCustomerServiceTicket",
        {"subject": "x", "text": "y", "requesterEmail": "not an address"},
    )
    assert "not found" in refused(member, "searchTickets", {"ticketId": 10**12})
    found = ok(member, "searchTickets", {"query": "invoice missing", "status": ["new"], "priority": "urgent"})
    assert made["id"] in [item["id"] for item in found["items"]]
    assert ok(member, "searchTickets", {"requesterEmail": "nobody@example.org"})["total"] == 0

    # The requester's side: their own ticket only, and a rating once it is solved.
    mine = ok(viewer, "addMyTicketComment", {"ticketId": made["id"], "text": "Any news?"})
    assert mine["comments"][-1]["authorKind"] == "requester"
    other = TicketFactory(actor=member, requester_email="someone@example.org")
    assert "not found" in refused(viewer, "addMyTicketComment", {"ticketId": other.pk, "text": "Hi"})
    assert "solved" in refused(
        viewer, "addMyTicketComment", {"ticketId": made["id"], "text": "ok", "satisfied": True}
    )
    ok(
        member,
        "respondToTicket",
        {"ticketId": made["id"], "text": "Resent.", "internal": True, "status": "solved"},
        **CONFIRM,
    )
    ok(viewer, "addMyTicketComment", {"ticketId": made["id"], "text": "Got it, thanks", "satisfied": True})
    assert Ticket.objects.get(pk=made["id"]).satisfaction.good is True

    # Escalation to a department and a person, with a due time; resolved once.
    department = Department.objects.create(name=f"Billing {uuid.uuid4().hex[:6]}")
    assert "`ownerEmail`" in refused(member, "escalateTicket", {"ticketId": other.pk, "reason": "Stuck"})
    assert "not found" in refused(
        member, "escalateTicket", {"ticketId": other.pk, "reason": "Stuck", "departmentId": 10**12}
    )
    assert "`dueAt`" in refused(
        member,
        "escalateTicket",
        {"ticketId": other.pk, "reason": "Stuck", "ownerEmail": owner.email, "dueAt": "2001-01-01T00:00:00Z"},
    )
    escalated = ok(
        member,
        "escalateTicket",
        {
            "ticketId": other.pk,
            "reason": "Needs a credit note",
            "departmentId": department.pk,
            "ownerEmail": owner.email,
        },
    )
    assert escalated["level"] == 1 and escalated["owner"]["email"] == owner.email and escalated["dueAt"]
    assert Notification.objects.filter(recipient=owner, title__contains=f"[#{other.pk}]").exists()
    overview = ok(owner, "getCustomerServiceOverview")
    assert overview["openEscalations"] >= 1 and overview["byStatus"]["open"] >= 1
    resolved = ok(
        owner, "resolveEscalation", {"escalationId": escalated["id"], "resolution": "Credit note sent."}
    )
    assert resolved["resolvedAt"] is not None
    assert "already resolved" in refused(
        owner, "resolveEscalation", {"escalationId": escalated["id"], "resolution": "x"}
    )

    summary = ok(viewer, "getSupportSummary")
    assert {p["priority"] for p in summary["policies"]} == {"low", "normal", "high", "urgent"}
    assert summary["closeAfterDays"] == 4


def test_a_reply_without_a_support_mailbox_or_an_address_says_so_and_sends_nothing(acme, people):
    owner = people["owner"]
    SupportMailbox.objects.all().delete()
    ticket = TicketFactory(actor=owner)
    assert "No support mailbox" in refused(
        owner, "respondToTicket", {"ticketId": ticket.pk, "text": "Hi"}, **CONFIRM
    )
    SupportMailbox.objects.create(mailbox=Mailbox.objects.get(address="support@acme.example"))
    phoned = TicketFactory(actor=owner, requester_email="")
    assert "no requester e-mail" in refused(
        owner, "respondToTicket", {"ticketId": phoned.pk, "text": "Hi"}, **CONFIRM
    )
    assert not TicketComment.objects.filter(ticket__in=[ticket, phoned], author_kind="agent").exists()


def test_business_hours_skip_nights_weekends_and_public_holidays(acme):
    policy = SlaPolicy(
        priority="normal",
        first_reply_hours=Decimal(8),
        resolution_hours=Decimal(40),
        time_zone="Europe/London",
        workdays=[1, 2, 3, 4, 5],
        holidays_country="GB",
    )
    friday_four = datetime(2026, 12, 18, 16, 0, tzinfo=UTC)  # London is on UTC in December
    assert hours.add(policy, friday_four, 2) == datetime(2026, 12, 21, 10, 0, tzinfo=UTC)
    # 24 and 25 Dec: the 25th and the 28th (Boxing Day's substitute) are holidays in England.
    assert hours.add(policy, datetime(2026, 12, 24, 16, 0, tzinfo=UTC), 2) == datetime(
        2026, 12, 29, 10, 0, tzinfo=UTC
    )
    assert hours.between(policy, friday_four, datetime(2026, 12, 21, 10, 0, tzinfo=UTC)) == timedelta(hours=2)


def test_near_breaches_and_breaches_are_told_to_the_assignee_once(acme, people):
    owner = people["owner"]
    ticket = TicketFactory(actor=owner, assignee=owner, priority="urgent")
    now = ticket.first_reply_due - timedelta(minutes=30)
    assert sla.sla_warnings(now) >= 1
    assert sla.sla_warnings(now) == 0
    sla.sla_warnings(ticket.resolution_due + timedelta(minutes=1))
    titles = list(
        Notification.objects.filter(recipient=owner, title__contains=f"[#{ticket.pk}]").values_list(
            "title", flat=True
        )
    )
    assert any("close to its first reply" in t for t in titles)
    assert any("missed its resolution" in t for t in titles)
    assert (
        ok(owner, "searchTickets", {"breached": True, "ticketId": None, "query": ticket.subject})["total"]
        == 0
    )


def test_every_support_tool_answers_over_mcp(people, acme_client, mail_server):
    from apps.catalogue.testing import samples

    owner = people["owner"]
    door = Door(pat_and_key("owner@acme.example"))
    door.initialize()
    found = samples()
    answers = {}
    for spec in SUPPORT_TOOLS:
        made = found[spec.name](owner)
        result = door.call(spec.name, made.arguments)["result"]
        if spec.needs_confirmation:
            assert result["isError"] is True and "Confirmation required" in result["content"][0]["text"]
            token = re.search(r'"confirmationToken": "([^"]+)"', result["content"][0]["text"]).group(1)
            result = door.call(spec.name, {**made.arguments, "confirmationToken": token})["result"]
        assert result["isError"] is False, (spec.name, result["content"])
        answers[spec.name] = result["structuredContent"]
    assert answers["respondToTicket"]["comments"][-1]["emailed"] is True
    assert answers["closeTicket"]["status"] == "closed"
    assert answers["mergeTickets"]["history"][-1]["kind"] == "merged"
    acme_client.force_login(owner)
    ticket_id = answers["respondToTicket"]["id"]
    assert "Fixed in today" in acme_client.get(f"/settings/support/tickets/{ticket_id}/").content.decode()
    assert "Ottilie" in acme_client.get("/settings/support/?show=live").content.decode()


def test_mail_arriving_the_moment_a_support_mailbox_is_chosen_becomes_a_ticket(people, mail_server):
    owner = people["owner"]
    box = Mailbox.objects.create(
        name="Help desk",
        address=f"help-{uuid.uuid4().hex[:8]}@acme.example",
        owner=owner,
        shared=True,
    )
    inbound.support_mailbox_set(actor=owner, mailbox=box)
    # Dated by the sender's clock, to the second: the same second the mailbox was chosen.
    customer = f"kai-{uuid.uuid4().hex[:8]}@example.net"
    first = demo._message(
        sender=customer, to=box.address, subject="Order late", text="Where is it?", days_ago=0
    )
    assert arrives(box, first) == 1
    assert Ticket.objects.filter(requester_email=customer).count() == 1
    # What came long before the choice stays mail.
    old = demo._message(sender=customer, to=box.address, subject="Last year", text="Hello", days_ago=1)
    assert arrives(box, old) == 0
