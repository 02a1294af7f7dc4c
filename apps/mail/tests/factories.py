"""Mail records for tests: mailboxes on the local mail server (unique addresses: the server's
mailboxes outlive each test's rolled-back transaction)."""

import uuid
from typing import Any

from apps.mail.models import Mailbox, MailboxMember


def mailbox(owner: Any, *, shared: bool = False, members: tuple[Any, ...] = (), **fields: Any) -> Mailbox:
    address = fields.pop("address", f"box-{uuid.uuid4().hex[:10]}@acme.example")
    box = Mailbox.objects.create(
        name=fields.pop("name", "Test box"), address=address, owner=owner, shared=shared, **fields
    )
    for member in members:
        MailboxMember.objects.create(mailbox=box, user=member)
    return box
