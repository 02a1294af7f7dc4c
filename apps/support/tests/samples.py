"""A normal call of every Customer Service tool, for the catalogue's contract test
(apps/catalogue/tests/test_contract.py). Each creates what it needs as `actor`; the reply is
e-mailed through the test process's local mail server."""

from typing import Any

from apps.catalogue.testing import Sample, sample
from apps.mail.models import Mailbox
from apps.mail.testing import using_local_server
from apps.support.models import SupportMailbox
from apps.support.services import tickets
from apps.support.tests.factories import CannedReplyFactory, TicketFactory


def _ticket(actor: Any, arguments: dict[str, Any] | None = None, **fields: Any) -> Sample:
    ticket = TicketFactory(actor=actor, subject="Ottilie cannot export", **fields)
    return Sample({"ticketId": ticket.pk, **(arguments or {})}, private=["Ottilie cannot export"])


@sample("getCustomerServiceOverview")
def get_customer_service_overview(actor: Any) -> Sample:
    return Sample({}, private=_ticket(actor).private)


@sample("getSupportSummary")
def get_support_summary(actor: Any) -> Sample:
    return Sample({})


@sample("createCustomerServiceTicket")
def create_customer_service_ticket(actor: Any) -> Sample:
    return Sample(
        {
            "subject": "Ottilie's invoice is missing",
            "text": "Called: the March invoice never arrived.",
            "requesterEmail": "ottilie@example.org",
            "priority": "high",
            "tags": ["billing"],
        }
    )


@sample("searchTickets")
def search_tickets(actor: Any) -> Sample:
    _ticket(actor)
    return Sample({"query": "Ottilie export", "status": ["new", "open"]}, private=["Ottilie cannot export"])


def _support_mailbox(actor: Any) -> None:
    if tickets.support_mailbox() is None:
        # The workspace's shared Support mailbox (the mail demo's): a person's own never serves.
        domain = actor.email.partition("@")[2]
        shared, _ = Mailbox.objects.get_or_create(
            address=f"support@{domain}", defaults={"name": "Support", "owner": actor, "shared": True}
        )
        SupportMailbox.objects.all().delete()
        SupportMailbox.objects.create(mailbox=shared)


@sample("respondToTicket")
def respond_to_ticket(actor: Any) -> Sample:
    _support_mailbox(actor)
    return Sample(
        {
            **_ticket(actor, requester_email="ottilie@example.org").arguments,
            "text": "Fixed in today's release.",
        },
        private=["Ottilie cannot export"],
        around=using_local_server,
    )


@sample("updateTicket")
def update_ticket(actor: Any) -> Sample:
    return _ticket(actor, {"changes": {"priority": "urgent", "tags": ["billing"], "type": "incident"}})


@sample("mergeTickets")
def merge_tickets(actor: Any) -> Sample:
    kept = TicketFactory(actor=actor, subject="Ottilie cannot export")
    duplicate = TicketFactory(actor=actor, subject="Ottilie cannot export either")
    return Sample({"ticketId": duplicate.pk, "intoTicketId": kept.pk}, private=["Ottilie cannot export"])


@sample("addMyTicketComment")
def add_my_ticket_comment(actor: Any) -> Sample:
    return _ticket(actor, {"text": "It happens again today."}, requester_email=actor.email)


@sample("escalateTicket")
def escalate_ticket(actor: Any) -> Sample:
    return _ticket(actor, {"reason": "Needs an engineer.", "ownerEmail": actor.email})


@sample("resolveEscalation")
def resolve_escalation(actor: Any) -> Sample:
    ticket = TicketFactory(actor=actor, subject="Ottilie cannot export")
    escalation = tickets.ticket_escalate(actor=actor, ticket=ticket, reason="Needs an engineer.", owner=actor)
    return Sample(
        {"escalationId": escalation.pk, "resolution": "Patched."}, private=["Ottilie cannot export"]
    )


@sample("closeTicket")
def close_ticket(actor: Any) -> Sample:
    return _ticket(actor)


@sample("listCannedReplies")
def list_canned_replies(actor: Any) -> Sample:
    CannedReplyFactory(actor=actor, title="Ottilie's export answer")
    return Sample({"query": "export"}, private=["Ottilie's export answer"])


@sample("manageCannedReply")
def manage_canned_reply(actor: Any) -> Sample:
    return Sample(
        {
            "action": "create",
            "title": "Refund on its way",
            "body": "Hi {{customer.first_name}}, your refund for ticket {{ticket.id}} is on its way.",
            "setStatus": "solved",
            "addTags": ["refund"],
        }
    )


@sample("applyCannedReply")
def apply_canned_reply(actor: Any) -> Sample:
    _support_mailbox(actor)
    canned = CannedReplyFactory(actor=actor, title="Ottilie's export answer", add_tags=["export"])
    return Sample(
        {
            **_ticket(actor, requester_email="ottilie@example.org").arguments,
            "cannedReplyId": canned.pk,
        },
        private=["Ottilie cannot export", "Ottilie's export answer"],
        around=using_local_server,
    )
