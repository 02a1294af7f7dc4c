"""The data team's e-mail: sent by a task, retried by a sweeper when sending fails, at most once,
over a real SMTP server on loopback, and never with an address or a requester in a log line."""

import logging
from email import message_from_bytes
from email.policy import default as default_policy

import pytest
from aiosmtpd.controller import Controller
from django.core import mail

from apps.core.testing import free_port
from apps.datarights import services
from apps.datarights.models import DataRequest
from apps.datarights.tasks import notify_data_team, retry_data_team_notifications

from .conftest import DATA_TEAM, valid_body

pytestmark = pytest.mark.django_db

PERSONAL = ["Ada Quillfeather", "ada.quillfeather@example.org", "acct-93817", "copy of everything", DATA_TEAM]


class Mailbox:
    """An SMTP server's handler: keeps what it receives; refuses recipients while `refuse` is set."""

    def __init__(self) -> None:
        self.messages: list[tuple[list[str], bytes]] = []
        self.refuse = False

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):  # type: ignore[no-untyped-def]
        if self.refuse:
            return f"550 5.1.1 <{address}>: mailbox unavailable"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):  # type: ignore[no-untyped-def]
        self.messages.append((list(envelope.rcpt_tos), envelope.original_content or envelope.content))
        return "250 Message accepted for delivery"


@pytest.fixture
def smtp(configured):  # type: ignore[no-untyped-def]
    """A real SMTP server (aiosmtpd) on 127.0.0.1, and the SMTP backend pointed at it."""
    mailbox = Mailbox()
    port = free_port()
    controller = Controller(mailbox, hostname="127.0.0.1", port=port)
    controller.start()
    configured.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    configured.EMAIL_HOST = "127.0.0.1"
    configured.EMAIL_PORT = port
    configured.EMAIL_USE_TLS = False
    yield mailbox
    controller.stop()


def records_text(caplog) -> str:  # type: ignore[no-untyped-def]
    """Every captured log line of the service (the test's own SMTP server, `mail.log`, is not it)."""
    return "\n".join(
        f"{record.name} {record.getMessage()} {record.exc_text or ''} {record.stack_info or ''}"
        for record in caplog.records
        if not record.name.startswith("mail.log")
    )


def test_the_notification_reaches_a_real_smtp_server(post, smtp):
    reference = post().json()["reference"]

    assert len(smtp.messages) == 1
    recipients, raw = smtp.messages[0]
    message = message_from_bytes(raw, policy=default_policy)
    assert recipients == [DATA_TEAM]
    assert reference in message["Subject"]
    assert message["X-Atrium-Reference"] == reference
    assert reference in message.get_content()
    assert DataRequest.objects.get(reference=reference).notification == DataRequest.Notification.SENT


def test_a_refused_send_loses_nothing_and_the_sweeper_sends_it_later(post, smtp, caplog):
    smtp.refuse = True
    with caplog.at_level(logging.DEBUG):
        response = post()

    # The caller's request is stored and answered as usual; sending is the data team's problem.
    assert response.status_code == 202
    stored = DataRequest.objects.get(reference=response.json()["reference"])
    assert stored.notification == DataRequest.Notification.PENDING
    # The task's quick retries ran (eagerly here): one attempt each.
    assert stored.notification_attempts == 1 + 3
    assert stored.notification_error == "SMTPRecipientsRefused"
    assert stored.notification_due_at is not None
    assert smtp.messages == []
    # The server's refusal names the recipient; no log line repeats it.
    text = records_text(caplog)
    assert "SMTPRecipientsRefused" in text
    for value in PERSONAL:
        assert value not in text

    smtp.refuse = False
    DataRequest.objects.filter(pk=stored.pk).update(notification_due_at=stored.created_at)
    assert retry_data_team_notifications.apply().get() == 1

    stored.refresh_from_db()
    assert stored.notification == DataRequest.Notification.SENT
    assert len(smtp.messages) == 1
    # Later sweeps and late tasks do not send it again.
    assert retry_data_team_notifications.apply().get() == 0
    assert notify_data_team.apply(args=[stored.pk]).get() == "already_sent"
    assert len(smtp.messages) == 1


def test_an_unreachable_mail_server_leaves_the_request_pending(post, configured):
    configured.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    configured.EMAIL_HOST = "127.0.0.1"
    configured.EMAIL_PORT = free_port()  # nothing listens there

    response = post()

    assert response.status_code == 202
    stored = DataRequest.objects.get(reference=response.json()["reference"])
    assert stored.notification == DataRequest.Notification.PENDING
    assert stored.notification_error == "ConnectionRefusedError"


def test_without_a_data_team_address_requests_are_kept_and_wait(post, configured):
    configured.DATA_TEAM_EMAIL = ""

    response = post()

    assert response.status_code == 202
    stored = DataRequest.objects.get(reference=response.json()["reference"])
    assert (stored.notification, stored.notification_error) == (
        DataRequest.Notification.PENDING,
        "NotConfigured",
    )
    assert mail.outbox == []


def test_the_sweeper_sends_what_was_never_queued(configured):
    # A request stored while the broker was down: no task ran, the row is due for the sweeper.
    request = DataRequest.objects.create(
        reference=services.new_reference(),
        type="delete",
        email="ada.quillfeather@example.org",
        locale="en-GB",
        country="GB",
        received_at="2025-03-14T09:26:53Z",
        host="127.0.0.1",
    )
    DataRequest.objects.filter(pk=request.pk).update(notification_due_at=request.created_at)

    assert services.notifications_retry() == 1
    assert len(mail.outbox) == 1 and request.reference in mail.outbox[0].subject


def test_the_sweeper_waits_for_a_request_not_yet_due(configured):
    DataRequest.objects.create(
        reference=services.new_reference(),
        type="delete",
        email="ada.quillfeather@example.org",
        locale="en-GB",
        country="GB",
        received_at="2025-03-14T09:26:53Z",
        host="127.0.0.1",
        notification_due_at="2999-01-01T00:00:00Z",
    )

    assert services.notifications_retry() == 0
    assert mail.outbox == []


def test_the_logs_of_a_whole_request_carry_no_personal_data(post, smtp, caplog):
    with caplog.at_level(logging.DEBUG):
        response = post()
        post(valid_body(received_at="2025-03-14T09:30:00Z"))  # the same again
        post(valid_body(email="not-an-address"))  # refused

    reference = response.json()["reference"]
    text = records_text(caplog)
    # The audit line is there, by reference...
    assert any(
        record.name == "atrium.audit.datarights"
        and reference in record.getMessage()
        and "accepted" in record.getMessage()
        for record in caplog.records
    )
    assert f"data-rights request {reference}: data team notified" in text
    # ...and nothing about the person, nor the data team's address, nor the client's address.
    for value in PERSONAL:
        assert value not in text
    assert "2001:db8" not in text
