"""Canned replies (macros): a member's own are theirs alone, shared ones are written by the area's
administrators; a body's placeholders are checked on save and filled in safely; applying one
answers the ticket (a reply confirmed as respondToTicket's is, or a note) and does its actions in
one go, counted; the ticket's page fills its reply box from one, and the settings page keeps them."""

from typing import Any

import pytest

from apps.catalogue.dispatch import ToolNotFound
from apps.catalogue.testing import call, ok, refused
from apps.core.errors import FieldInvalid
from apps.mail.models import Mailbox
from apps.support import placeholders
from apps.support.errors import SharedCannedReply
from apps.support.models import CannedReply, SupportMailbox, Ticket
from apps.support.services import canned_replies, tickets
from apps.support.tests.factories import CannedReplyFactory, TicketFactory


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


@pytest.fixture
def support_mailbox(acme, mail_server):
    SupportMailbox.objects.all().delete()
    SupportMailbox.objects.create(mailbox=Mailbox.objects.get(address="support@acme.example"))


def _titles(person: Any, **arguments: Any) -> list[str]:
    return [item["title"] for item in ok(person, "listCannedReplies", {"limit": 100, **arguments})["items"]]


def test_a_personal_canned_reply_is_its_owners_alone(acme, people, acme_client):
    member, owner, admin = people["member"], people["owner"], people["admin"]
    made = ok(
        member,
        "manageCannedReply",
        {"action": "create", "title": "Quillfeather refund", "body": "Refund sent, {{customer.first_name}}."},
    )
    assert (made["shared"], made["owner"]["email"], made["uses"]) == (False, member.email, 0)
    assert "Quillfeather refund" in _titles(member)
    assert "Quillfeather refund" in _titles(member, query="quillfeather", shared=False)

    # Nobody else lists, finds, reads, applies or changes it: administrators and the owner neither.
    ticket = TicketFactory(actor=owner)
    for other in (owner, admin, people["viewer"]):
        assert "Quillfeather refund" not in _titles(other)
        assert _titles(other, query="quillfeather") == []
    for other in (owner, admin):
        message = refused(
            other, "applyCannedReply", {"ticketId": ticket.pk, "cannedReplyId": made["id"], "internal": True}
        )
        assert "not found" in message and "Quillfeather" not in message
        message = refused(
            other, "manageCannedReply", {"action": "update", "cannedReplyId": made["id"], "title": "Mine"}
        )
        assert "not found" in message and "Quillfeather" not in message
    acme_client.force_login(owner)
    assert "Quillfeather" not in acme_client.get("/settings/support/replies/").content.decode()
    page = acme_client.get(f"/settings/support/tickets/{ticket.pk}/?canned={made['id']}").content.decode()
    assert "Quillfeather" not in page and "Refund sent" not in page
    assert acme_client.get(f"/settings/support/replies/{made['id']}/").status_code == 404
    assert CannedReply.objects.get(pk=made["id"]).title == "Quillfeather refund"


def test_only_administrators_write_shared_canned_replies_that_everyone_uses(acme, people):
    member, admin, viewer = people["member"], people["admin"], people["viewer"]
    before = CannedReply.objects.count()
    message = refused(
        member, "manageCannedReply", {"action": "create", "title": "Team", "body": "Hello", "shared": True}
    )
    assert "Only Customer Service administrators" in message
    assert CannedReply.objects.count() == before

    shared = ok(
        admin,
        "manageCannedReply",
        {"action": "create", "title": "Opening hours", "body": "We answer 9 to 5.", "shared": True},
    )
    assert shared["shared"] is True
    assert "Opening hours" in _titles(member) and "Opening hours" in _titles(viewer, shared=True)
    assert "Opening hours" not in _titles(member, shared=False)
    for arguments in (
        {"action": "update", "cannedReplyId": shared["id"], "body": "We answer at night."},
        {"action": "delete", "cannedReplyId": shared["id"]},
    ):
        said = refused(member, "manageCannedReply", arguments)
        assert "is the workspace's: only the area's administrators change or delete it" in said
    assert CannedReply.objects.get(pk=shared["id"]).body == "We answer 9 to 5."
    # A member's own cannot become shared either.
    own = CannedReplyFactory(actor=member)
    assert "Only Customer Service administrators" in refused(
        member, "manageCannedReply", {"action": "update", "cannedReplyId": own.pk, "shared": True}
    )
    # Viewers write none: the tool is not theirs.
    with pytest.raises(ToolNotFound):
        call(viewer, "manageCannedReply", {"action": "create", "title": "T", "body": "B"})

    changed = ok(
        admin, "manageCannedReply", {"action": "update", "cannedReplyId": shared["id"], "title": "Our hours"}
    )
    assert (changed["title"], changed["body"]) == ("Our hours", "We answer 9 to 5.")
    ok(admin, "manageCannedReply", {"action": "delete", "cannedReplyId": shared["id"]})
    assert "Our hours" not in _titles(member)
    assert CannedReply.objects.get(pk=shared["id"]).in_trash


def test_unknown_placeholders_and_bad_actions_are_refused_and_nothing_is_saved(acme, people):
    member = people["member"]
    before = CannedReply.objects.count()
    message = refused(
        member, "manageCannedReply", {"action": "create", "title": "Age", "body": "You are {{customer.age}}."}
    )
    assert message.startswith("`body`:") and "{{customer.age}} is not a placeholder" in message
    assert "{{customer.first_name}}" in message
    assert "braces closed" in refused(
        member, "manageCannedReply", {"action": "create", "title": "Open", "body": "Ticket {{ticket.id"}
    )
    assert "title" in refused(member, "manageCannedReply", {"action": "create", "title": " ", "body": "Hi"})
    assert "setStatus" in refused(
        member, "manageCannedReply", {"action": "create", "title": "T", "body": "B", "setStatus": "closed"}
    )
    assert "cannedReplyId" in refused(member, "manageCannedReply", {"action": "update", "title": "T"})
    own = CannedReplyFactory(actor=member)
    assert "Say what to change" in refused(
        member, "manageCannedReply", {"action": "update", "cannedReplyId": own.pk}
    )
    assert CannedReply.objects.count() == before + 1
    with pytest.raises(FieldInvalid):
        canned_replies.canned_create(actor=member, fields={"title": "T", "body": "B", "set_status": "new"})
    with pytest.raises(FieldInvalid):
        canned_replies.canned_update(actor=member, canned=own, fields={"body": "{{ agent.password }}"})
    own.refresh_from_db()
    assert own.body.startswith("Hi {{customer.first_name}}")
    with pytest.raises(SharedCannedReply):
        canned_replies.canned_create(
            actor=member, fields={"title": "T", "body": "B", "visibility": "workspace"}
        )


def test_values_are_put_in_as_they_are_never_read_as_placeholders(acme, people):
    ticket = TicketFactory(actor=people["member"], requester_name="{{agent.name}} Smith")
    member = people["member"]
    member.full_name = "Mina Ortega"
    body = "Hi {{ customer.first_name }}, ticket {{ticket.id}}: {{agent.first_name}} ({{agent.name}})"
    assert placeholders.render(body, ticket=ticket, agent=member) == (
        f"Hi {{{{agent.name}}}}, ticket {ticket.pk}: Mina (Mina Ortega)"
    )
    unnamed = TicketFactory(actor=member, requester_name="")
    assert placeholders.render("Hi {{customer.first_name}}!", ticket=unnamed, agent=member) == "Hi !"


def test_applying_one_answers_the_ticket_and_does_its_actions_in_one_go(support_mailbox, people):
    member = people["member"]
    member.full_name = "Mina Ortega"
    member.save(update_fields=["full_name"])
    asker = Asker()
    canned = CannedReplyFactory(
        actor=member,
        body="Hi {{customer.first_name}}, ticket {{ticket.id}} is refunded. {{agent.name}}",
        set_status="solved",
        set_priority="high",
        add_tags=["Refund"],
    )
    ticket = TicketFactory(actor=member, requester_name="Sam Ortiz", tags=["billing"])

    # As a note: nothing is e-mailed, so nothing is asked.
    noted = ok(
        member,
        "applyCannedReply",
        {"ticketId": ticket.pk, "cannedReplyId": canned.pk, "internal": True},
        **asker.context,
    )
    assert asker.asked == []
    note = noted["comments"][-1]
    assert note["public"] is False and note["emailed"] is False
    assert note["body"] == f"Hi Sam, ticket {ticket.pk} is refunded. Mina Ortega"
    assert (noted["status"], noted["priority"], noted["tags"]) == ("solved", "high", ["billing", "refund"])
    updated = [entry for entry in noted["history"] if entry["kind"] == "updated"]
    assert updated[-1]["changes"]["priority"] == ["normal", "high"]
    canned.refresh_from_db()
    assert canned.uses == 1 and canned.last_used_at is not None

    # As a reply: confirmed as respondToTicket's is, then e-mailed.
    other = TicketFactory(actor=member, requester_name="Ada Byron", requester_email="ada@example.org")
    sent = ok(member, "applyCannedReply", {"ticketId": other.pk, "cannedReplyId": canned.pk}, **asker.context)
    assert len(asker.asked) == 1
    reply = sent["comments"][-1]
    assert reply["public"] is True and reply["emailed"] is True and reply["body"].startswith("Hi Ada,")
    assert sent["status"] == "solved" and sent["assignee"]["email"] == member.email
    assert CannedReply.objects.get(pk=canned.pk).uses == 2


def test_a_refused_apply_changes_nothing_and_is_not_confirmed(acme, people):
    member, viewer = people["member"], people["viewer"]
    asker = Asker()
    SupportMailbox.objects.all().delete()
    canned = CannedReplyFactory(actor=member, set_priority="urgent", add_tags=["x"])
    ticket = TicketFactory(actor=member, priority="low")

    # A reply that cannot go out (no support mailbox) is refused before anyone is asked.
    assert "No support mailbox" in refused(
        member, "applyCannedReply", {"ticketId": ticket.pk, "cannedReplyId": canned.pk}, **asker.context
    )
    tickets.ticket_close(actor=member, ticket=ticket)
    assert "is closed" in refused(
        member,
        "applyCannedReply",
        {"ticketId": ticket.pk, "cannedReplyId": canned.pk, "internal": True},
        **asker.context,
    )
    assert asker.asked == []
    assert "not found" in refused(
        member, "applyCannedReply", {"ticketId": ticket.pk, "cannedReplyId": 10**12, "internal": True}
    )
    # A viewer may read the shared ones but not apply one: the tool is not theirs.
    with pytest.raises(ToolNotFound):
        call(
            viewer, "applyCannedReply", {"ticketId": ticket.pk, "cannedReplyId": canned.pk, "internal": True}
        )
    ticket.refresh_from_db()
    assert (ticket.priority, ticket.tags) == ("low", [])
    assert not ticket.comments.filter(author_kind="agent").exists()
    assert CannedReply.objects.get(pk=canned.pk).uses == 0


def test_the_ticket_page_fills_its_reply_box_and_the_settings_page_keeps_them(acme, people, acme_client):
    member, admin = people["member"], people["admin"]
    shared = CannedReplyFactory(
        actor=admin, title="Team greeting", body="Dear {{customer.name}},", visibility="workspace"
    )
    ticket = TicketFactory(actor=member, requester_name="Sam Ortiz")
    acme_client.force_login(member)

    page = acme_client.get(f"/settings/support/tickets/{ticket.pk}/").content.decode()
    assert "Team greeting" in page and 'name="canned"' in page
    page = acme_client.get(f"/settings/support/tickets/{ticket.pk}/?canned={shared.pk}").content.decode()
    assert "Dear Sam Ortiz," in page and f'value="{shared.pk}"' in page

    # Sent as a note from the page, edited: its count goes up.
    response = acme_client.post(
        f"/settings/support/tickets/{ticket.pk}/reply/",
        {"text": "Dear Sam Ortiz, checking.", "internal": "on", "canned": shared.pk},
    )
    assert response.status_code == 302
    assert ticket.comments.get(public=False).body == "Dear Sam Ortiz, checking."
    assert CannedReply.objects.get(pk=shared.pk).uses == 1

    # The settings page: a member makes their own; an unknown placeholder is told, nothing saved.
    response = acme_client.post(
        "/settings/support/replies/new/",
        {"title": "Mine", "body": "Hi {{customer.first_name}}", "set_priority": "high", "add_tags": "a, b"},
    )
    assert response.status_code == 302
    mine = CannedReply.objects.get(title="Mine", owner=member)
    assert (mine.visibility, mine.set_priority, mine.add_tags) == ("private", "high", ["a", "b"])
    response = acme_client.post(
        "/settings/support/replies/new/", {"title": "Bad", "body": "{{nope}}"}, follow=True
    )
    assert "{{nope}} is not a placeholder" in response.content.decode()
    assert not CannedReply.objects.filter(title="Bad").exists()
    # A member's form has no "shared"; a shared one is not theirs to edit.
    listing = acme_client.get("/settings/support/replies/").content.decode()
    assert "Team greeting" in listing and 'name="shared"' not in listing
    assert acme_client.get(f"/settings/support/replies/{shared.pk}/").status_code == 403
    response = acme_client.post(
        f"/settings/support/replies/{mine.pk}/", {"title": "Mine again", "body": "Hi"}
    )
    assert response.status_code == 302 and CannedReply.objects.get(pk=mine.pk).title == "Mine again"
    assert acme_client.post(f"/settings/support/replies/{mine.pk}/delete/").status_code == 302
    assert CannedReply.objects.get(pk=mine.pk).in_trash
    assert Ticket.objects.get(pk=ticket.pk).status == ticket.status
