"""Bounces and complaints that come back later: real delivery reports (an RFC 3464 DSN, an RFC 5965
abuse report) put in the campaign mailbox's INBOX on the local mail server, read by the mail app's
sync and handed to Marketing through apps.mail.api.on_delivery_report."""

import base64
import hashlib
import hmac
import imaplib
import json
import secrets
import time
from collections.abc import Iterator

import pytest
from django.test import override_settings

from apps.catalogue.testing import confirmed, ok
from apps.mail import servers, suppression, sync
from apps.mail.models import Mailbox, Message
from apps.mail.testing import complaint, dsn, inbox_of, using_local_server
from apps.mail.tests.factories import mailbox
from apps.marketing import sending
from apps.marketing.models import Campaign, MarketingSettings, Send
from apps.marketing.tests.factories import campaign, consenting, postal_address, segment, tag

ELICIT = {"capabilities": {"elicitation": {}}, "elicit": confirmed}


@pytest.fixture(scope="module")
def mail_server() -> Iterator[dict[str, str]]:
    with using_local_server() as env:
        yield env


def deliver(box: Mailbox, *raw: bytes) -> int:
    """The reports put in the mailbox's INBOX on the server, and the mailbox synced."""
    with using_local_server(), servers.imap(box) as client:
        for message in raw:
            client.append("INBOX", "", imaplib.Time2Internaldate(time.time()), message)
    with using_local_server():
        return sync.sync(box)


def sent_campaign(admin: object, box: Mailbox, label: str, count: int) -> tuple[Campaign, list[object]]:
    contacts = consenting(admin, count, label=label)
    draft = campaign(
        admin,
        segment_id=segment(admin, rules=[{"field": "tags", "op": "has", "value": label}]).pk,
        mailbox_id=box.pk,
    )
    ok(admin, "launchMarketingCampaign", {"campaignId": draft.pk}, **ELICIT)
    assert sending.run(Campaign.objects.select_related("mailbox").get(pk=draft.pk)) == count
    return draft, contacts


def test_bounces_and_complaints_read_from_the_mailbox_reach_the_suppression_list(people, mail_server):
    admin = people["admin"]
    postal_address()
    settings = MarketingSettings.current()
    settings.quiet_start = settings.quiet_end = 0
    settings.save()
    box = mailbox(admin)
    draft, contacts = sent_campaign(admin, box, f"d{tag()}", 5)
    hard, complainer, soft, scanned, bystander = (contact.email.lower() for contact in contacts)
    row = Send.objects.get(campaign=draft, email=hard)
    softly = Send.objects.get(campaign=draft, email=soft)
    received = inbox_of(mail_server, complainer)[0]
    del received["Message-ID"]  # found by its signed List-Unsubscribe link instead
    other = "<personal-1@acme.example>"
    added = deliver(
        box,
        dsn(box.address, hard, status="5.1.1", original=f"Message-ID: {row.message_id}\r\nSubject: x\r\n"),
        complaint(box.address, received),
        dsn(box.address, soft, status="4.2.2", original=f"Message-ID: {softly.message_id}"),
        dsn(box.address, scanned, status="2.0.0", action="delivered", original="Subject: y"),
        # A bounce of a person's own mail is none of Marketing's business.
        dsn(box.address, bystander, status="5.1.1", original=f"Message-ID: {other}\r\n"),
    )
    assert added >= 5  # stored as mail all the same (with the campaign's copies in Sent)
    assert Message.objects.filter(mailbox=box, folder__role="inbox").count() == 5

    assert suppression.reasons_among([hard, complainer, soft, scanned, bystander]) == {
        hard: "bounced",
        complainer: "complained",
    }
    assert dict(Send.objects.filter(campaign=draft).values_list("email", "reported")) == {
        hard: "hard_bounce",
        complainer: "complaint",
        soft: "soft_bounce",
        scanned: "",
        bystander: "",
    }
    figures = ok(admin, "getCampaignPerformance", {"campaignId": draft.pk})["figures"]
    assert (figures["bounced"], figures["complaints"], figures["delivered"]) == (1, 1, 4)

    # The same reports read again (a second sync, a copy in another folder) count nothing twice.
    assert deliver(box) == 0
    # A second soft bounce of another campaign's message: at the limit, the address is suppressed.
    with override_settings(ATRIUM_MARKETING_SOFT_BOUNCES=2):
        later = campaign(
            admin,
            segment_id=segment(admin, rules=[{"field": "email", "op": "equals", "value": soft}]).pk,
            mailbox_id=box.pk,
        )
        ok(admin, "launchMarketingCampaign", {"campaignId": later.pk}, **ELICIT)
        assert sending.run(Campaign.objects.select_related("mailbox").get(pk=later.pk)) == 1
        again = Send.objects.get(campaign=later).message_id
        deliver(box, dsn(box.address, soft, status="4.4.7", original=f"Message-ID: {again}"))
    assert suppression.reasons_among([soft]) == {soft: "bounced"}
    preview = ok(admin, "previewSegmentContacts", {"segmentId": draft.segment_id})
    assert preview["skippedByReason"] == {"bounced": 2, "complained": 1}


def mailgun(
    event: str, recipient: str, message_id: str, *, key: str = "mailgun-signing-key-for-tests", **more: object
):
    """A Mailgun tracking webhook's body (its JSON webhooks), signed as Mailgun signs it."""
    timestamp, token = str(int(time.time())), secrets.token_hex(25)
    signature = hmac.new(key.encode(), f"{timestamp}{token}".encode(), hashlib.sha256).hexdigest()
    return {
        "signature": {"timestamp": timestamp, "token": token, "signature": signature},
        "event-data": {
            "event": event,
            "id": secrets.token_hex(8),
            "timestamp": time.time(),
            "recipient": recipient,
            "message": {"headers": {"message-id": message_id.strip("<>")}},
            **more,
        },
    }


def test_bounces_and_complaints_an_esp_reports_by_its_signed_webhook_reach_the_suppression_list(
    people, mail_server, acme_client
):
    admin = people["admin"]
    postal_address()
    settings = MarketingSettings.current()
    settings.quiet_start = settings.quiet_end = 0
    settings.save()
    box = mailbox(admin)
    draft, contacts = sent_campaign(admin, box, f"e{tag()}", 4)
    hard, complainer, soft, leaver = (contact.email.lower() for contact in contacts)
    sent = dict(Send.objects.filter(campaign=draft).values_list("email", "message_id"))
    url = "/mail/esp/mailgun/tracking/"
    auth = {"HTTP_AUTHORIZATION": "Basic " + base64.b64encode(b"esp-test:webhook-secret-for-tests").decode()}

    def post(body: dict, **headers: str) -> int:
        return acme_client.post(url, json.dumps(body), content_type="application/json", **headers).status_code

    # Refused, and nothing changes: no credentials, a wrong signature.
    bounce = mailgun("failed", hard, sent[hard], severity="permanent", reason="bounce")
    assert post(bounce) in (400, 401, 403)
    assert post(mailgun("failed", hard, sent[hard], key="not-the-key", severity="permanent"), **auth) == 400
    assert suppression.reasons_among([hard]) == {}

    assert post(bounce, **auth) == 200
    assert post(mailgun("complained", complainer, sent[complainer]), **auth) == 200
    assert post(mailgun("failed", soft, sent[soft], severity="temporary", reason="generic"), **auth) == 200
    assert post(mailgun("unsubscribed", leaver, sent[leaver]), **auth) == 200
    # An open is none of the suppression list's business.
    assert post(mailgun("opened", soft, sent[soft]), **auth) == 200

    assert suppression.reasons_among([hard, complainer, soft, leaver]) == {
        hard: "bounced",
        complainer: "complained",
        leaver: "unsubscribed",
    }
    assert dict(Send.objects.filter(campaign=draft).values_list("email", "reported")) == {
        hard: "hard_bounce",
        complainer: "complaint",
        soft: "soft_bounce",
        leaver: "",
    }
    # The same event delivered again (an ESP retries) counts once.
    assert post(mailgun("failed", hard, sent[hard], severity="permanent", reason="bounce"), **auth) == 200
    figures = ok(admin, "getCampaignPerformance", {"campaignId": draft.pk})["figures"]
    assert (figures["bounced"], figures["complaints"]) == (1, 1)
