"""Tickets for tests, made through the services as a person makes them (apps.core.factories):
`TicketFactory(actor=people["member"], priority="high", requester_email="jo@example.org")`."""

from typing import Any

from apps.catalogue.testing import listed
from apps.core import factories
from apps.core.factories import AccessRows, ServiceFactory, access_rows, fake, numbered, private_rows
from apps.support.models import CannedReply, SlaPolicy, Ticket
from apps.support.services import canned_replies, comments, sla, tickets


def _ticket(*, actor: Any, fields: dict[str, Any]) -> Ticket:
    return tickets.ticket_create(actor=actor, **fields)


class TicketFactory(ServiceFactory):
    class Meta:
        model = Ticket

    subject = numbered(fake.catch_phrase, " request ")
    text = "The export to CSV stops halfway with an error."
    requester_email = "sam.ortiz@example.net"
    requester_name = "Sam Ortiz"
    _service = staticmethod(_ticket)


def _canned(*, actor: Any, fields: dict[str, Any]) -> CannedReply:
    return canned_replies.canned_create(actor=actor, fields=fields)


class CannedReplyFactory(ServiceFactory):
    """A canned reply, personal unless `visibility="workspace"` (made by an administrator)."""

    class Meta:
        model = CannedReply

    title = numbered(lambda: "Export fixed", " ")
    body = "Hi {{customer.first_name}}, the export is fixed in today's release. {{agent.name}}"
    _service = staticmethod(_canned)


# --- the rows of each support record, for the access test (tests/test_access_per_model.py): every one
# is the whole area's ---------------------------------------------------------------------------------


@access_rows("support.SlaPolicy")
def _policies(people: dict[str, Any]) -> AccessRows:
    # One policy per priority: the demo's, when it made them.
    policy = sla.policy_for("urgent") or SlaPolicy.objects.create(
        name="Urgent tickets",
        priority="urgent",
        first_reply_hours=1,
        resolution_hours=8,
        workdays=[1, 2, 3, 4, 5],
    )
    return AccessRows(everyone=[policy])


@access_rows("support.Ticket")
def _tickets(people: dict[str, Any]) -> AccessRows:
    return AccessRows(
        everyone=[TicketFactory(actor=people["member"])],
        listed=lambda person: listed(person, "searchTickets", {"limit": 100}),
    )


@access_rows("support.TicketComment")
def _comments(people: dict[str, Any]) -> AccessRows:
    ticket = TicketFactory(actor=people["member"])
    comments.ticket_respond(actor=people["member"], ticket=ticket, text="Looking", internal=True, status=None)
    return AccessRows(everyone=list(ticket.comments.all()))


@access_rows("support.Escalation")
def _escalations(people: dict[str, Any]) -> AccessRows:
    ticket = TicketFactory(actor=people["member"])
    escalated = tickets.ticket_escalate(
        actor=people["member"], ticket=ticket, reason="Needs engineering", owner=people["admin"]
    )
    return AccessRows(everyone=[escalated])


@access_rows("support.CannedReply")
def _canned_replies(people: dict[str, Any]) -> AccessRows:
    # A shared canned reply is an administrator's to make, whoever private_rows names.
    def make(actor: Any, visibility: str) -> CannedReply:
        maker = people["admin"] if visibility == "workspace" else actor
        return CannedReplyFactory(actor=maker, visibility=visibility)

    rows = private_rows(people, make)
    rows.listed = lambda person: listed(person, "listCannedReplies", {"limit": 100})
    return rows


@factories.privacy_rows("support")
def _private(people: dict[str, Any], marker: str, rows: factories.PrivateRows) -> None:
    """The owner's personal canned reply, and a shared one beside it."""
    owner = people["owner"]
    hidden = CannedReplyFactory(
        actor=owner,
        title=f"{marker} title",
        body=f"{marker} body {{{{ticket.id}}}}",
        add_tags=[f"{marker}-tag"],
        visibility="private",
    )
    rows.add("cannedReplyId", record=hidden)
    rows.add("cannedReplyId", record=CannedReplyFactory(actor=owner, visibility="workspace"))
