"""The demo workspaces' Customer Service (`manage.py seed_demo`; idempotent): SLA policies per
priority in business hours, the demo Support mailbox (apps.mail.demo) as the support mailbox
(its mail of the last month becomes tickets), and a phone ticket with an internal note."""

from datetime import timedelta
from decimal import Decimal
from typing import Any

from django.db import transaction
from django.utils import timezone

from apps.mail import api as mail
from apps.support.models import SlaPolicy, SupportMailbox, Ticket, TicketComment
from apps.support.services import inbound, tickets

POLICIES = (  # priority, first reply and resolution in business hours
    ("urgent", "1", "8"),
    ("high", "4", "16"),
    ("normal", "8", "40"),
    ("low", "16", "80"),
)


@transaction.atomic
def seed(*, people: list[Any], domain: str) -> None:
    owner = next(person for person in people if person.role.key == "owner")
    if not SlaPolicy.objects.exists():
        for priority, first, resolution in POLICIES:
            SlaPolicy.objects.create(
                name=f"{priority.capitalize()} priority",
                priority=priority,
                first_reply_hours=Decimal(first),
                resolution_hours=Decimal(resolution),
                time_zone="Europe/London",
                workdays=[1, 2, 3, 4, 5],
                holidays_country="GB-ENG",
                created_by=owner,
            )
    # Seeded before the mail area's demo (areas in key order): the shared mailbox is made here
    # when missing, and its demo mail becomes tickets on the next seed or Celery's next minute.
    support = mail.demo_support_mailbox(people=people, domain=domain)
    if not SupportMailbox.objects.exists():
        SupportMailbox.objects.create(mailbox=support, since=timezone.now() - timedelta(days=30))
    inbound.inbound_all()
    if not Ticket.objects.filter(channel=Ticket.Channel.PHONE).exists():
        ticket = tickets.ticket_create(
            actor=owner,
            subject="Invoice shows the wrong VAT number",
            text="Called: the March invoice shows our old VAT number; they need it corrected for an audit.",
            requester_email="priya.nair@example.com",
            requester_name="Priya Nair",
            priority="high",
            channel=Ticket.Channel.PHONE,
            assignee=owner,
            tags=["billing"],
        )
        TicketComment.objects.create(
            ticket=ticket,
            public=False,
            author_kind=TicketComment.Author.AGENT,
            author=owner,
            body="Accounting confirmed the new VAT number; reissue the invoice once the credit note is out.",
        )
