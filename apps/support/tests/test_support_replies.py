"""Replies and notes as a support lead works them: the statuses a ticket may be moved to, which
replies are confirmed (and that a refused one is refused before anyone is asked), and the agent's
name on what they wrote."""

from datetime import UTC, datetime, time
from typing import Any

import pytest

from apps.catalogue.dispatch import ToolNotFound
from apps.catalogue.testing import call, ok, refused
from apps.core.errors import FieldInvalid
from apps.mail.models import Mailbox
from apps.support.models import SupportMailbox, Ticket
from apps.support.services import comments, sla, tickets
from apps.support.tests.factories import TicketFactory


class Asker:
    """A client that can elicit, and keeps the questions it was asked (each accepted)."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def __call__(self, message: str, schema: dict[str, Any]) -> dict[str, Any]:
        self.asked.append(message)
        return {"action": "accept", "content": {"confirm": True}}

    @property
    def context(self) -> dict[str, Any]:
        return {"capabilities": {"elicitation": {}}, "elicit": self}


def test_new_is_refused_on_an_existing_ticket_naming_the_statuses_allowed(acme, people):
    member = people["member"]
    ticket = TicketFactory(actor=member, assignee=member)
    assert ticket.status == "open"
    message = refused(
        member,
        "respondToTicket",
        {"ticketId": ticket.pk, "text": "Back to the queue", "internal": True, "status": "new"},
    )
    assert message.startswith("`status`:") and "open, pending, on_hold, solved" in message
    with pytest.raises(FieldInvalid):
        comments.ticket_respond(actor=member, ticket=ticket, text="Again", internal=True, status="new")
    ticket.refresh_from_db()
    assert ticket.status == "open" and not ticket.comments.filter(author_kind="agent").exists()


def test_a_note_is_not_confirmed_and_a_reply_is_checked_before_it_is(acme, people):
    owner = people["owner"]
    asker = Asker()
    SupportMailbox.objects.all().delete()
    ticket = TicketFactory(actor=owner)

    # A note is never e-mailed: no question, with elicitation or without.
    note = ok(
        owner,
        "respondToTicket",
        {"ticketId": ticket.pk, "text": "Logs checked", "internal": True},
        **asker.context,
    )
    assert note["comments"][-1]["public"] is False
    ok(owner, "respondToTicket", {"ticketId": ticket.pk, "text": "And the config", "internal": True})
    assert asker.asked == []

    # A reply that could not go out is refused at once: nobody is asked to confirm it.
    assert "No support mailbox" in refused(
        owner, "respondToTicket", {"ticketId": ticket.pk, "text": "Hello"}, **asker.context
    )
    phoned = TicketFactory(actor=owner, requester_email="")
    SupportMailbox.objects.create(mailbox=Mailbox.objects.get(address="support@acme.example"))
    assert "no requester e-mail" in refused(
        owner, "respondToTicket", {"ticketId": phoned.pk, "text": "Hello"}, **asker.context
    )
    assert "`status`:" in refused(
        owner, "respondToTicket", {"ticketId": ticket.pk, "text": "Hello", "status": "new"}, **asker.context
    )
    assert "not found" in refused(
        owner, "respondToTicket", {"ticketId": 10**12, "text": "Hello"}, **asker.context
    )
    tickets.ticket_close(actor=owner, ticket=phoned)
    assert "is closed" in refused(
        owner, "respondToTicket", {"ticketId": phoned.pk, "text": "Note", "internal": True}, **asker.context
    )
    assert asker.asked == []

    # A reply that can go out is still confirmed first (without elicitation: a token).
    ticket = TicketFactory(actor=owner)
    assert "Confirmation required" in refused(owner, "respondToTicket", {"ticketId": ticket.pk, "text": "Hi"})
    assert not ticket.comments.filter(author_kind="agent").exists()


def test_an_agents_notes_carry_their_name_in_the_tools_and_on_the_page(acme, people, acme_client):
    member = people["member"]
    member.full_name = "Mina Ortega"
    member.save(update_fields=["full_name"])
    ticket = TicketFactory(actor=member, requester_name="Sam Ortiz")
    answer = ok(member, "respondToTicket", {"ticketId": ticket.pk, "text": "Asked billing", "internal": True})
    customer, note = answer["comments"]
    assert (customer["authorName"], customer["authorKind"]) == ("Sam Ortiz", "requester")
    assert (note["authorName"], note["authorEmail"]) == ("Mina Ortega", member.email)
    read = ok(people["viewer"], "searchTickets", {"ticketId": ticket.pk})["items"][0]
    assert read["comments"][1]["authorName"] == "Mina Ortega"
    acme_client.force_login(people["owner"])
    page = acme_client.get(f"/settings/support/tickets/{ticket.pk}/").content.decode()
    assert "Internal note · Mina Ortega" in page
    assert Ticket.objects.get(pk=ticket.pk).comments.count() == 2


def test_a_pause_without_business_time_leaves_the_due_times_where_they_were(acme, people):
    ticket = TicketFactory(actor=people["member"], priority="high")
    policy = ticket.policy
    policy.time_zone, policy.workdays, policy.holidays_country = "UTC", [1, 2, 3, 4, 5], ""
    policy.day_starts, policy.day_ends = time(9), time(17)
    policy.save()
    # Due at Friday's close; paused on Saturday morning, answered on Saturday afternoon.
    friday_close = datetime(2026, 12, 11, 17, 0, tzinfo=UTC)
    ticket.first_reply_due = ticket.resolution_due = friday_close
    sla.set_status(ticket, "pending", people["member"], now=datetime(2026, 12, 12, 10, 0, tzinfo=UTC))
    sla.set_status(ticket, "open", people["member"], now=datetime(2026, 12, 12, 15, 0, tzinfo=UTC))
    assert (ticket.first_reply_due, ticket.resolution_due) == (friday_close, friday_close)
    assert ticket.first_reply_breached(datetime(2026, 12, 12, 15, 0, tzinfo=UTC))
    # Paused an hour of a working day: the due times move on by that hour.
    sla.set_status(ticket, "on_hold", people["member"], now=datetime(2026, 12, 14, 9, 0, tzinfo=UTC))
    sla.set_status(ticket, "open", people["member"], now=datetime(2026, 12, 14, 10, 0, tzinfo=UTC))
    assert ticket.resolution_due == datetime(2026, 12, 14, 10, 0, tzinfo=UTC)


def test_priority_assignee_tags_and_type_change_each_in_the_history(acme, people):
    member, owner, viewer = people["member"], people["owner"], people["viewer"]
    ticket = TicketFactory(actor=member, priority="low")
    due_before = ticket.first_reply_due
    answer = ok(
        member,
        "updateTicket",
        {
            "ticketId": ticket.pk,
            "changes": {
                "priority": "urgent",
                "assigneeEmail": owner.email,
                "tags": ["Billing", "refund"],
                "type": "incident",
            },
        },
    )
    assert (answer["priority"], answer["assignee"]["email"], answer["tags"], answer["type"]) == (
        "urgent",
        owner.email,
        ["billing", "refund"],
        "incident",
    )
    ticket.refresh_from_db()
    assert ticket.policy.priority == "urgent" and ticket.first_reply_due < due_before
    assert ticket.status == "open"  # assigned: no longer new
    updated = [entry for entry in answer["history"] if entry["kind"] == "updated"]
    assert len(updated) == 1 and updated[0]["tool"] == "updateTicket"
    assert updated[0]["actor"]["email"] == member.email
    assert updated[0]["changes"] == {
        "priority": ["low", "urgent"],
        "assignee": [None, owner.pk],
        "tags": [[], ["billing", "refund"]],
        "ticket_type": ["", "incident"],
    }
    assert [entry["kind"] for entry in answer["history"]] == ["status", "status", "updated"]

    # Unassigned and untyped again; a change to the same value is no change.
    again = ok(
        member, "updateTicket", {"ticketId": ticket.pk, "changes": {"assigneeEmail": "", "type": None}}
    )
    assert again["assignee"] is None and again["type"] == ""
    ok(member, "updateTicket", {"ticketId": ticket.pk, "changes": {"priority": "urgent"}})
    read = ok(viewer, "searchTickets", {"ticketId": ticket.pk})["items"][0]
    assert [entry["kind"] for entry in read["history"]].count("updated") == 2

    # Bad input: a clear error, nothing written.
    assert "changes" in refused(member, "updateTicket", {"ticketId": ticket.pk, "changes": {}})
    assert "assigneeEmail" in refused(
        member, "updateTicket", {"ticketId": ticket.pk, "changes": {"assigneeEmail": "nobody@example.org"}}
    )
    assert "type" in refused(member, "updateTicket", {"ticketId": ticket.pk, "changes": {"type": "bug"}})
    assert "not found" in refused(member, "updateTicket", {"ticketId": 10**12, "changes": {"tags": []}})
    # A viewer reads tickets but does not change them; a closed ticket changes no more.
    with pytest.raises(ToolNotFound):
        call(viewer, "updateTicket", {"ticketId": ticket.pk, "changes": {"tags": ["x"]}})
    tickets.ticket_close(actor=member, ticket=ticket)
    assert "is closed" in refused(member, "updateTicket", {"ticketId": ticket.pk, "changes": {"tags": ["x"]}})
    assert ticket.events.count() == 2


def test_satisfaction_is_shown_on_tickets_in_the_summary_and_on_the_page(acme, people, acme_client):
    member, viewer = people["member"], people["viewer"]
    ticket = TicketFactory(actor=member, requester_email=viewer.email)
    assert ok(member, "searchTickets", {"ticketId": ticket.pk})["items"][0]["satisfaction"] is None
    sla.set_status(ticket, "solved", member)
    ticket.save()
    before = ok(viewer, "getSupportSummary")["satisfaction"]
    ok(viewer, "addMyTicketComment", {"ticketId": ticket.pk, "text": "Quick and kind", "satisfied": True})

    read = ok(member, "searchTickets", {"ticketId": ticket.pk})["items"][0]
    assert (read["satisfaction"]["good"], read["satisfaction"]["comment"]) == (True, "Quick and kind")
    found = ok(member, "searchTickets", {"requesterEmail": viewer.email})["items"]
    assert [item["satisfaction"]["good"] for item in found if item["id"] == ticket.pk] == [True]
    after = ok(member, "getSupportSummary")["satisfaction"]
    assert (after["rated"], after["good"], after["bad"]) == (
        before["rated"] + 1,
        before["good"] + 1,
        before["bad"],
    )
    assert after["score"] == round(100 * after["good"] / after["rated"], 1)

    acme_client.force_login(member)
    assert "Customer satisfaction:" in acme_client.get("/settings/support/").content.decode()
    page = acme_client.get(f"/settings/support/tickets/{ticket.pk}/").content.decode()
    assert "Satisfaction" in page and "Quick and kind" in page


def test_a_duplicate_merges_into_the_ticket_kept_with_both_histories(acme, people):
    member, viewer = people["member"], people["viewer"]
    asker = Asker()
    kept = TicketFactory(actor=member, requester_email="ana@example.org", tags=["orders"])
    duplicate = TicketFactory(actor=member, requester_email="ANA@example.org", tags=["late"])
    comments.ticket_respond(
        actor=member, ticket=duplicate, text="Same as the other", internal=True, status=None
    )
    other = TicketFactory(actor=member, requester_email="ben@example.org")

    # Refused before anyone is asked: across customers, into itself, what does not exist.
    assert "different customers" in refused(
        member, "mergeTickets", {"ticketId": other.pk, "intoTicketId": kept.pk}, **asker.context
    )
    assert "intoTicketId" in refused(
        member, "mergeTickets", {"ticketId": kept.pk, "intoTicketId": kept.pk}, **asker.context
    )
    assert "not found" in refused(
        member, "mergeTickets", {"ticketId": duplicate.pk, "intoTicketId": 10**12}, **asker.context
    )
    with pytest.raises(ToolNotFound):  # a viewer reads tickets and changes none
        call(viewer, "mergeTickets", {"ticketId": duplicate.pk, "intoTicketId": kept.pk}, **asker.context)
    assert asker.asked == []

    merged = ok(member, "mergeTickets", {"ticketId": duplicate.pk, "intoTicketId": kept.pk}, **asker.context)
    assert len(asker.asked) == 1  # DESTRUCTIVE: confirmed, once it could be done
    assert merged["id"] == kept.pk and merged["tags"] == ["orders", "late"]
    assert [c["body"] for c in merged["comments"]][-1] == "Same as the other"
    assert len(merged["comments"]) == 3
    assert merged["history"][-1]["kind"] == "merged" and merged["history"][-1]["changes"]["merged"] == [
        None,
        duplicate.pk,
    ]
    closed = ok(member, "searchTickets", {"ticketId": duplicate.pk})["items"][0]
    assert (closed["status"], closed["mergedIntoId"], closed["comments"]) == ("closed", kept.pk, [])
    assert [entry["kind"] for entry in closed["history"]][-2:] == ["status", "merged"]
    assert "merged into" in refused(
        member, "mergeTickets", {"ticketId": duplicate.pk, "intoTicketId": kept.pk}, **asker.context
    )

    # Across customers only when asked.
    ok(
        member,
        "mergeTickets",
        {"ticketId": other.pk, "intoTicketId": kept.pk, "acrossCustomers": True},
        **asker.context,
    )
    assert Ticket.objects.get(pk=other.pk).merged_into_id == kept.pk
