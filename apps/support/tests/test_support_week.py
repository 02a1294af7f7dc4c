"""What a week of a support team found: clocks that stop when a ticket ends, tickets given only to
people who can work them, an out-of-office that leaves a waiting ticket waiting, merges refused
before they are confirmed, escalations kept in the history, and a search page that takes any
text."""

import uuid
from datetime import timedelta

from django.utils import timezone

from apps.catalogue.testing import call, ok, refused
from apps.mail import demo, sync
from apps.support.models import Ticket
from apps.support.tests.test_support_tools import CONFIRM, arrives, inbox_of, support  # noqa: F401


def _ticket(user, **extra):  # type: ignore[no-untyped-def]
    return ok(
        user,
        "createCustomerServiceTicket",
        {
            "subject": f"Printer on fire {uuid.uuid4().hex[:6]}",
            "text": "It smokes when I print.",
            "requesterEmail": f"customer-{uuid.uuid4().hex[:6]}@example.net",
            **extra,
        },
    )


def _past_due(ticket_id: int, **fields) -> None:  # type: ignore[no-untyped-def]
    """Both targets passed a minute ago (the time of a later look at the queue)."""
    now = timezone.now()
    due = now - timedelta(minutes=1)
    Ticket.objects.filter(pk=ticket_id).update(first_reply_due=due, resolution_due=due, **fields)


def _breached(user, ticket_id: int) -> tuple[bool, bool]:  # type: ignore[no-untyped-def]
    """Whether the ticket is among the breached, and what its own answer says."""
    listed = ok(user, "searchTickets", {"breached": True, "limit": 100})["items"]
    read = ok(user, "searchTickets", {"ticketId": ticket_id})["items"][0]["breached"]
    return ticket_id in [item["id"] for item in listed], read


def test_a_ticket_ended_in_time_is_not_breached_later_and_one_still_open_is(acme, people):
    member = people["member"]
    now = timezone.now()
    # Closed two hours before its targets, which have passed since.
    closed = _ticket(member)
    ok(member, "closeTicket", {"ticketId": closed["id"]})
    _past_due(closed["id"], closed_at=now - timedelta(hours=2))
    # Solved on the phone with an internal note, never an e-mailed reply.
    phoned = _ticket(member, requesterEmail="")
    ok(
        member,
        "respondToTicket",
        {"ticketId": phoned["id"], "text": "Fixed", "internal": True, "status": "solved"},
    )
    _past_due(phoned["id"], solved_at=now - timedelta(hours=2))
    # Merged into another (a merge closes it).
    kept, duplicate = (
        _ticket(member, requesterEmail="same@example.net"),
        _ticket(member, requesterEmail="same@example.net"),
    )
    ok(member, "mergeTickets", {"ticketId": duplicate["id"], "intoTicketId": kept["id"]}, **CONFIRM)
    _past_due(duplicate["id"], closed_at=now - timedelta(hours=2))
    for ended in (closed, phoned, duplicate):
        assert _breached(member, ended["id"]) == (False, False)
    # Closed after its targets: late, and it says so.
    late = _ticket(member)
    ok(member, "closeTicket", {"ticketId": late["id"]})
    _past_due(late["id"], closed_at=now)
    assert _breached(member, late["id"]) == (True, True)
    # Still open past its targets.
    waiting = _ticket(member)
    _past_due(waiting["id"])
    assert _breached(member, waiting["id"]) == (True, True)


def test_a_ticket_goes_only_to_someone_who_can_work_it(acme, people):
    member, viewer, admin = people["member"], people["viewer"], people["admin"]
    made = _ticket(member)
    for name, arguments, field in [
        (
            "updateTicket",
            {"ticketId": made["id"], "changes": {"assigneeEmail": viewer.email}},
            "assigneeEmail",
        ),
        (
            "escalateTicket",
            {"ticketId": made["id"], "reason": "tier 2", "ownerEmail": viewer.email},
            "ownerEmail",
        ),
        (
            "createCustomerServiceTicket",
            {"subject": "x", "text": "y", "assigneeEmail": viewer.email},
            "assigneeEmail",
        ),
    ]:
        said = refused(member, name, arguments)
        assert said.startswith(f"`{field}`: ") and viewer.email in said and "customerservice.edit" in said
    assert Ticket.objects.get(pk=made["id"]).assignee_id is None
    assert not Ticket.objects.filter(subject="x").exists()
    # Someone unknown is named with the argument that named them.
    assert refused(
        member,
        "createCustomerServiceTicket",
        {"subject": "x", "text": "y", "assigneeEmail": "ghost@acme.example"},
    ).startswith("`assigneeEmail`: ")
    assert refused(member, "searchTickets", {"assigneeEmail": "ghost@acme.example"}).startswith(
        "`assigneeEmail`: "
    )
    assert (
        ok(member, "updateTicket", {"ticketId": made["id"], "changes": {"assigneeEmail": admin.email}})[
            "assignee"
        ]["email"]
        == admin.email
    )


def test_an_escalation_that_hands_a_ticket_over_is_in_its_history(acme, people):
    member, admin = people["member"], people["admin"]
    made = _ticket(member, assigneeEmail=member.email)
    ok(member, "escalateTicket", {"ticketId": made["id"], "reason": "tier 2", "ownerEmail": admin.email})
    read = ok(member, "searchTickets", {"ticketId": made["id"]})["items"][0]
    assert read["assignee"]["email"] == admin.email
    escalated = [entry for entry in read["history"] if entry["kind"] == "escalated"]
    assert len(escalated) == 1
    assert escalated[0]["changes"]["assignee"] == [member.pk, admin.pk]
    assert "level 1" in escalated[0]["summary"] and admin.email not in escalated[0]["summary"]


def test_a_merge_is_refused_before_it_is_confirmed_and_phone_tickets_are_not_one_customer(acme, people):
    member = people["member"]
    asked: list[str] = []

    def elicit(message, schema):  # type: ignore[no-untyped-def]
        asked.append(message)
        return {"action": "accept", "content": {"confirm": True}}

    asking = {"capabilities": {"elicitation": {}}, "elicit": elicit}
    full = _ticket(member, requesterEmail="t@example.net", tags=[f"t{number}" for number in range(30)])
    one_more = _ticket(member, requesterEmail="t@example.net", tags=["extra"])
    result = call(member, "mergeTickets", {"ticketId": one_more["id"], "intoTicketId": full["id"]}, **asking)
    assert result["isError"] and "tags" in result["content"][0]["text"] and asked == []
    assert Ticket.objects.get(pk=one_more["id"]).merged_into_id is None
    # Two calls logged by hand, with no address: not known to be one customer's.
    first = _ticket(member, requesterEmail="", requesterName="Caller One")
    second = _ticket(member, requesterEmail="", requesterName="Caller Two")
    said = refused(member, "mergeTickets", {"ticketId": second["id"], "intoTicketId": first["id"]}, **asking)
    assert "different customers" in said and asked == []
    merged = ok(
        member,
        "mergeTickets",
        {"ticketId": second["id"], "intoTicketId": first["id"], "acrossCustomers": True},
        **asking,
    )
    assert merged["id"] == first["id"] and len(asked) == 1


def test_a_priority_cannot_be_cleared(acme, people):
    member = people["member"]
    made = _ticket(member, priority="high")
    said = refused(member, "updateTicket", {"ticketId": made["id"], "changes": {"priority": None}})
    assert said.startswith("`priority`: ") and "urgent" in said
    assert Ticket.objects.get(pk=made["id"]).priority == "high"


def test_an_out_of_office_answer_leaves_a_waiting_ticket_waiting(support, people, mail_server):  # noqa: F811
    member = people["member"]
    customer = f"grace-{uuid.uuid4().hex[:6]}@example.net"
    asked = demo._message(
        sender=customer, to=support.address, subject="Export broken", text="It stops.", days_ago=0
    )
    assert arrives(support, asked) == 1
    ticket = Ticket.objects.get(requester_email=customer)
    ok(member, "respondToTicket", {"ticketId": ticket.pk, "text": "Looking into it."}, **CONFIRM)
    sent = sync.parse(inbox_of(mail_server, customer)[0])
    ticket.refresh_from_db()
    assert ticket.status == "pending"

    away = demo._message(
        sender=customer,
        to=support.address,
        subject=f"Auto: {sent['Subject']}",
        text="Out until Monday.",
        days_ago=0,
    )
    away["In-Reply-To"] = sent["Message-ID"]
    away["Auto-Submitted"] = "auto-replied"
    assert arrives(support, away) == 1
    ticket.refresh_from_db()
    assert ticket.status == "pending" and ticket.paused_at is not None
    assert ticket.comments.filter(body__contains="Out until Monday").count() == 1
    # The customer's own answer opens it again.
    back = demo._message(
        sender=customer, to=support.address, subject=sent["Subject"], text="Still broken.", days_ago=0
    )
    back["In-Reply-To"] = sent["Message-ID"]
    assert arrives(support, back) == 1
    ticket.refresh_from_db()
    assert ticket.status == "open"


def test_the_canned_replies_page_takes_any_search_text(acme, people, acme_client):
    acme_client.force_login(people["member"])
    assert acme_client.get("/settings/support/replies/?q=%00").status_code == 200
    assert acme_client.get("/settings/support/replies/?q=a%00b").status_code == 200


POLICY = {
    "first_reply_hours": "2",
    "resolution_hours": "16",
    "workdays": ["1", "2", "3", "4", "5"],
    "day_starts": "08:00",
    "day_ends": "18:00",
    "time_zone": "Europe/Berlin",
    "holidays_country": "de",
}


def test_the_sla_policies_are_set_on_their_page_and_new_tickets_take_them(acme, people, acme_client):
    from apps.support.models import SlaPolicy

    owner, member = people["owner"], people["member"]
    SlaPolicy.objects.all().delete()
    acme_client.force_login(owner)
    listed = acme_client.get("/settings/support/policies/")
    assert listed.status_code == 200 and "No targets" in listed.text
    assert acme_client.get("/settings/support/policies/someday/").status_code == 404

    # Refused with the form kept, nothing saved: a resolution before the first reply, no such zone.
    for wrong, says in [
        ({"resolution_hours": "1"}, "before it is resolved"),
        ({"time_zone": "Mars/Olympus"}, "no time zone"),
        ({"day_ends": "07:00"}, "ends after it starts"),
        ({"holidays_country": "ZZ"}, "no country"),
        ({"workdays": []}, "This field is required"),
        ({"time_zone": "Europe/Ber\x00lin"}, "Null characters"),
    ]:
        answer = acme_client.post("/settings/support/policies/urgent/", {**POLICY, **wrong})
        assert answer.status_code == 200 and says in answer.text, (wrong, answer.text[:300])
    assert not SlaPolicy.objects.exists()

    saved = acme_client.post("/settings/support/policies/urgent/", POLICY)
    assert saved.status_code == 302
    policy = SlaPolicy.objects.get(priority="urgent", deleted_at__isnull=True)
    assert (policy.time_zone, policy.workdays, policy.holidays_country) == (
        "Europe/Berlin",
        [1, 2, 3, 4, 5],
        "DE",
    )
    made = _ticket(member, priority="urgent")
    assert made["firstReplyDue"] is not None and made["resolutionDue"] is not None
    assert _ticket(member, priority="low")["firstReplyDue"] is None

    # A member sees the policies and cannot change them.
    acme_client.force_login(member)
    seen = acme_client.get("/settings/support/policies/")
    assert (
        seen.status_code == 200
        and "Europe/Berlin" in seen.text
        and "/settings/support/policies/urgent/" not in seen.text
    )
    assert (
        acme_client.post(
            "/settings/support/policies/urgent/", {**POLICY, "first_reply_hours": "9"}
        ).status_code
        == 403
    )
    assert acme_client.post("/settings/support/policies/urgent/remove/").status_code == 403

    acme_client.force_login(owner)
    assert acme_client.post("/settings/support/policies/urgent/remove/").status_code == 302
    assert _ticket(member, priority="urgent")["firstReplyDue"] is None
    # The ticket made under it keeps its due times.
    assert Ticket.objects.get(pk=made["id"]).first_reply_due is not None


def test_on_a_ticket_s_page_an_agent_sets_the_status_gives_the_ticket_and_closes_it(
    acme, people, acme_client
):
    member, viewer, admin = people["member"], people["viewer"], people["admin"]
    made = _ticket(member)
    page = f"/settings/support/tickets/{made['id']}/"
    acme_client.force_login(member)
    shown = acme_client.get(page).text
    assert "Who works it" in shown and "Close the ticket" in shown and viewer.email not in shown
    # A note that solves the ticket (a call ended on the phone).
    acme_client.post(f"{page}reply/", {"text": "Solved on the phone.", "internal": "on", "status": "solved"})
    ticket = Ticket.objects.get(pk=made["id"])
    assert ticket.status == "solved" and ticket.comments.filter(public=False).count() == 1
    refused_status = acme_client.post(f"{page}reply/", {"text": "x", "internal": "on", "status": "closed"})
    assert refused_status.status_code == 302 and Ticket.objects.get(pk=made["id"]).comments.count() == 2
    # Given to someone who works tickets; a viewer is not among the choices.
    acme_client.post(f"{page}assign/", {"assignee": admin.pk})
    assert Ticket.objects.get(pk=made["id"]).assignee_id == admin.pk
    acme_client.post(f"{page}assign/", {"assignee": viewer.pk})
    assert Ticket.objects.get(pk=made["id"]).assignee_id == admin.pk
    acme_client.post(f"{page}assign/", {"assignee": ""})
    assert Ticket.objects.get(pk=made["id"]).assignee_id is None
    # A viewer cannot; then the agent closes it.
    acme_client.force_login(viewer)
    assert acme_client.post(f"{page}close/").status_code == 403
    assert "Close the ticket" not in acme_client.get(page).text
    acme_client.force_login(member)
    acme_client.post(f"{page}close/")
    assert Ticket.objects.get(pk=made["id"]).status == "closed"
    assert "Close the ticket" not in acme_client.get(page).text


def test_a_policy_keeps_a_region_s_holidays(acme, people, acme_client):
    from datetime import UTC, datetime

    from apps.support import hours
    from apps.support.models import SlaPolicy

    SlaPolicy.objects.all().delete()
    acme_client.force_login(people["owner"])
    refused_region = acme_client.post(
        "/settings/support/policies/normal/", {**POLICY, "holidays_country": "GB-XX"}
    )
    assert "no country or region" in refused_region.text, refused_region.text[
        refused_region.text.find("<main") :
    ][:3000]
    assert not SlaPolicy.objects.exists()
    acme_client.post(
        "/settings/support/policies/normal/",
        {
            **POLICY,
            "time_zone": "Europe/London",
            "day_starts": "09:00",
            "day_ends": "17:00",
            "holidays_country": "gb-eng",
        },
    )
    policy = SlaPolicy.objects.get(priority="normal")
    assert policy.holidays_country == "GB-ENG"
    # From Thursday before Easter 2027: Good Friday and Easter Monday are England's holidays (the
    # United Kingdom's as a whole leave Easter Monday out); two hours end on Tuesday.
    thursday = datetime(2027, 3, 25, 16, 0, tzinfo=UTC)  # 16:00 in London (before summer time)
    assert hours.add(policy, thursday, 2) == datetime(2027, 3, 30, 9, 0, tzinfo=UTC)  # 10:00 BST
    policy.holidays_country = "GB"
    assert hours.add(policy, thursday, 2) == datetime(2027, 3, 29, 9, 0, tzinfo=UTC)
