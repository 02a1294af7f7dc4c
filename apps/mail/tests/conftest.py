from collections.abc import Iterator

import pytest

from apps.mail import demo, servers, sync
from apps.mail.models import Folder, Mailbox
from apps.mail.testing import using_local_server


@pytest.fixture(scope="session")
def mail_server() -> Iterator[dict[str, str]]:
    """The test process's own local mail server (apps.mail.testing), named in the settings."""
    with using_local_server() as env:
        yield env


@pytest.fixture
def filled(people):
    """The owner's demo mailbox holding the demo threads alone, synchronised from the start. The
    server outlives each test's transaction: whatever earlier tests of this process left there
    (moved, deleted, sent) is emptied first, and the stored cursor starts again."""
    mailbox = Mailbox.objects.get(address="owner@acme.example")
    with servers.imap(mailbox) as client:
        for name, _role in sync.folders(client):
            if client.select(sync.quoted(name))[0] == "OK":
                client.uid("STORE", "1:*", "+FLAGS.SILENT", "(\\Deleted)")
                client.expunge()
    assert demo._fill(mailbox, demo.threads(mailbox.address))
    Folder.objects.filter(mailbox=mailbox).update(uidnext=1)
    sync.sync(mailbox)
    mailbox.refresh_from_db()
    return mailbox
