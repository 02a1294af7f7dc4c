"""Tickets for tests, made through the services as a person makes them (apps.core.factories):
`TicketFactory(actor=people["member"], priority="high", requester_email="jo@example.org")`."""

from typing import Any

from apps.core.factories import ServiceFactory, fake, numbered
from apps.support import services
from apps.support.models import Ticket


def _ticket(*, actor: Any, fields: dict[str, Any]) -> Ticket:
    return services.ticket_create(actor=actor, **fields)


class TicketFactory(ServiceFactory):
    class Meta:
        model = Ticket

    subject = numbered(fake.catch_phrase, " request ")
    text = "The export to CSV stops halfway with an error."
    requester_email = "sam.ortiz@example.net"
    requester_name = "Sam Ortiz"
    _service = staticmethod(_ticket)
