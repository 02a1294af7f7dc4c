"""The support mailbox is a shared mailbox of the workspace, never a person's own: a person's
private mail must not become tickets every support agent reads, nor replies leave from it. Its
choice is kept with who made it and when."""

import uuid
from datetime import UTC, datetime, timedelta

import pytest

from apps.catalogue.testing import ok
from apps.core.errors import AppError
from apps.mail.models import Folder, Mailbox, Message
from apps.support.models import SupportMailbox, SupportMailboxChange, Ticket
from apps.support.services import inbound, tickets


def mailbox(owner, *, shared: bool) -> Mailbox:
    name = "Help desk" if shared else "Private"
    address = f"{name.lower()[:4]}-{uuid.uuid4().hex[:8]}@acme.example"
    return Mailbox.objects.create(name=name, address=address, owner=owner, shared=shared)


def delivered(box: Mailbox, subject: str) -> Message:
    """A message in `box`'s INBOX as the mail app keeps it once synchronised."""
    inbox, _ = Folder.objects.get_or_create(mailbox=box, role=Folder.Role.INBOX, defaults={"name": "INBOX"})
    return Message.objects.create(
        mailbox=box,
        folder=inbox,
        uid=1,
        message_id=f"<{uuid.uuid4().hex}@example.net>",
        subject=subject,
        from_address="friend@example.net",
        sender="A Friend <friend@example.net>",
        to=[box.address],
        text="Something only the mailbox's owner should read.",
        date=datetime.now(UTC),
    )


@pytest.mark.parametrize("chooser", ["owner", "admin"])
def test_a_persons_private_mailbox_is_never_offered_nor_taken(people, acme_client, chooser):
    private = mailbox(people["member"], shared=False)
    shared = mailbox(people["owner"], shared=True)
    acme_client.force_login(people[chooser])

    page = acme_client.get("/settings/support/").content.decode()
    assert shared.address in page and private.address not in page

    answer = acme_client.post("/settings/support/mailbox/", {"mailbox": private.pk}, follow=True)
    assert "The support mailbox is saved." not in answer.content.decode()
    assert not SupportMailbox.objects.filter(mailbox=private).exists()
    with pytest.raises(AppError) as refused:
        inbound.support_mailbox_set(actor=people[chooser], mailbox=private)
    assert refused.value.code == "MAILBOX_NOT_SHARED"
    assert not SupportMailbox.objects.filter(mailbox=private).exists()


@pytest.mark.parametrize("reader", ["member", "viewer"])
def test_mail_of_a_private_mailbox_chosen_before_never_becomes_a_ticket(people, reader):
    # Chosen before only shared mailboxes could be: it serves support no more.
    private = mailbox(people["owner"], shared=False)
    SupportMailbox.objects.all().delete()
    SupportMailbox.objects.create(mailbox=private, since=datetime.now(UTC) - timedelta(hours=1))
    delivered(private, "Your test results")

    inbound.inbound_all()

    assert tickets.support_mailbox() is None
    assert not Ticket.objects.filter(subject="Your test results").exists()
    assert ok(people[reader], "searchTickets", {"query": "test results"})["total"] == 0
    assert ok(people[reader], "getSupportSummary", {})["mailbox"] is None


def test_choosing_the_support_mailbox_is_kept_with_who_and_when(people, acme_client):
    first, second = mailbox(people["owner"], shared=True), mailbox(people["owner"], shared=True)
    SupportMailbox.objects.all().delete()
    acme_client.force_login(people["admin"])
    for chosen in (first, second, None):
        answer = acme_client.post("/settings/support/mailbox/", {"mailbox": chosen.pk if chosen else ""})
        assert answer.status_code == 302
    trail = list(SupportMailboxChange.objects.order_by("at", "id"))
    assert [(change.old_address, change.new_address) for change in trail][-3:] == [
        ("", first.address),
        (first.address, second.address),
        (second.address, ""),
    ]
    assert {change.actor_id for change in trail[-3:]} == {people["admin"].pk}
    # Saving the same choice again is no change.
    acme_client.post("/settings/support/mailbox/", {"mailbox": ""})
    assert SupportMailboxChange.objects.count() == len(trail)
    page = acme_client.get("/settings/support/").content.decode()
    assert people["admin"].email in page and second.address in page


def test_the_demo_support_mailbox_is_the_shared_support_address(acme):
    # Seeded as `make up` seeds (Customer Service before the mail area's demo).
    chosen = SupportMailbox.objects.select_related("mailbox").get()
    assert chosen.mailbox.address == "support@acme.example" and chosen.mailbox.shared
    assert tickets.support_mailbox() == chosen.mailbox
