"""Export and erasure of one person's data reach every Customer Service model (docs/privacy.md):
a requester's tickets go with everything on them; an agent's work on others' tickets stays,
without their name."""

import io
import json

from apps.accounts.models import Role, User
from apps.datarights.personal_data import personal_data_erase, personal_data_export
from apps.support.models import Escalation, SatisfactionRating, StatusChange, Ticket, TicketComment
from apps.support.services import comments, sla, tickets
from apps.support.tests.factories import TicketFactory

EMAIL = "erin.vale@acme.example"


def test_export_and_erasure_reach_every_support_model(acme, people):
    owner = people["owner"]
    erin = User.objects.create_user(email=EMAIL, password=None, role=Role.objects.get(key="member"))
    asked = TicketFactory(
        actor=owner, requester_email=EMAIL, requester_name="Erin Vale", subject="Erin's export"
    )
    comments.requester_comment(actor=erin, ticket=asked, text="Still broken on Monday")
    sla.set_status(asked, "solved", owner)
    asked.save()
    comments.requester_comment(actor=erin, ticket=asked, text="Works, thank you", satisfied=True)
    worked = TicketFactory(actor=owner, requester_email="someone@example.org", subject="Someone's invoice")
    comments.ticket_respond(
        actor=erin, ticket=worked, text="Waiting for accounting", internal=True, status="on_hold"
    )
    escalation = tickets.ticket_escalate(actor=owner, ticket=worked, reason="Needs a credit note", owner=erin)

    out = io.BytesIO()
    summary = personal_data_export(workspace=acme, email=EMAIL, out=out, performed_by="test")
    records = json.loads(out.getvalue())["records"]

    assert {key: n for key, n in summary.counts.items() if key.startswith("support.")} == {
        "support.escalation": 1,
        "support.satisfactionrating": 1,
        "support.statuschange": 1,
        "support.ticket": 1,
        "support.ticketcomment": 4,
    }
    assert [ticket["subject"] for ticket in records["support.ticket"]] == ["Erin's export"]

    personal_data_erase(workspace=acme, email=EMAIL, performed_by="test")

    assert not Ticket._base_manager.filter(pk=asked.pk).exists()
    assert not TicketComment.objects.filter(ticket_id=asked.pk).exists()
    assert not SatisfactionRating.objects.filter(ticket_id=asked.pk).exists()
    # Their work on someone else's ticket stays, without them.
    note = TicketComment.objects.get(ticket=worked, public=False)
    assert note.body == "Waiting for accounting" and note.author_id is None
    assert Escalation.objects.get(pk=escalation.pk).owner_id is None
    assert not StatusChange.objects.filter(ticket=worked, actor__email=EMAIL).exists()
    assert Ticket.objects.filter(pk=worked.pk).exists()
