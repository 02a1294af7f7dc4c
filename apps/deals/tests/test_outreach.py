"""Reachout campaigns and the Deals area's e-mail against the real local mail server (Dovecot and
the SMTP submission server, the test process's own): a three-step sequence that stops for the
recipient who replied and skips the one who unsubscribed through the one-click link (RFC 8058
headers and page), bounces, the mailbox's daily cap, send windows in the recipient's time zone,
and the mail doors (search, read, reply in the thread, send a draft, ask a deal's contact)."""

import imaplib
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit

import pytest
from django.test import override_settings
from django.utils import timezone

from apps.catalogue.testing import confirmed, ok, refused
from apps.contacts.tests.factories import ContactFactory
from apps.deals import reachout
from apps.deals.models import CampaignMessage, CampaignRecipient, Deal, Pipeline, ReachoutCampaign, Stage
from apps.files.tests.factories import FileFactory
from apps.mail import demo, servers, services, suppression, sync
from apps.mail.models import Mailbox, Message, Outgoing
from apps.mail.testing import complaint, dsn, inbox_of, using_local_server
from apps.mail.tests import factories

CONFIRM = {"capabilities": {"elicitation": {}}, "elicit": confirmed}
EVERY_DAY = [1, 2, 3, 4, 5, 6, 7]


@pytest.fixture(scope="module")
def mail_server() -> Iterator[dict[str, str]]:
    with using_local_server() as env:
        yield env


def arrives(mailbox: Mailbox, message) -> None:
    with servers.imap(mailbox) as client:
        client.append("INBOX", "", imaplib.Time2Internaldate(time.time()), message.as_bytes())


def addresses(*names: str) -> list[str]:
    tag = uuid.uuid4().hex[:8]
    return [f"{name}-{tag}@example.org" for name in names]


def sent_a_first_step(owner, box: Mailbox, name: str, emails: list[str]) -> ReachoutCampaign:
    """A two-step campaign to `emails`, started, its first step sent to each of them."""
    campaign = reachout.campaign_create(
        actor=owner,
        name=f"{name} {uuid.uuid4().hex[:6]}",
        mailbox=box,
        steps=[reachout.Step("Hello", "Hi"), reachout.Step("Again", "Hi again", 1)],
        emails=emails,
        window=(0, 24),
        weekdays=EVERY_DAY,
    )
    ok(owner, "controlReachoutCampaign", {"campaignId": campaign.pk, "action": "start"}, **CONFIRM)
    campaign.refresh_from_db()
    assert reachout.campaign_tick(campaign) == len(emails)
    return campaign


def make_due(campaign: ReachoutCampaign) -> None:
    campaign.recipients.filter(state="active").update(next_due_at=timezone.now() - timedelta(minutes=1))


def test_a_three_step_campaign_stops_for_who_replied_and_skips_who_unsubscribed(
    acme, people, mail_server, acme_client
):
    owner = people["owner"]
    box = factories.mailbox(owner)
    ada, ben, cleo = addresses("ada", "ben", "cleo")
    campaign = reachout.campaign_create(
        actor=owner,
        name=f"Q4 outreach {uuid.uuid4().hex[:6]}",
        mailbox=box,
        steps=[
            reachout.Step("Quick question, {first_name}", "Hello {first_name}, may I show you Atrium?"),
            reachout.Step("Following up", "Did you see my note?", 2),
            reachout.Step("Last note", "I will not write again.", 4),
        ],
        emails=[ada, ben, cleo],
        window=(0, 24),
        weekdays=EVERY_DAY,
    )
    assert ok(owner, "getReachoutCampaign", {"campaignId": campaign.pk})["status"] == "draft"
    started = ok(owner, "controlReachoutCampaign", {"campaignId": campaign.pk, "action": "start"}, **CONFIRM)
    assert started["status"] == "running"
    campaign.refresh_from_db()
    assert reachout.campaign_tick(campaign) == 3

    first = inbox_of(mail_server, cleo)[0]
    assert first["Subject"] == "Quick question, there"
    assert first["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    url = str(first["List-Unsubscribe"]).strip("<>")
    assert url in first.get_body(preferencelist=("plain",)).get_content()
    # Ben answers the first message, in its thread.
    to_ben = CampaignMessage.objects.get(recipient__email=ben, position=1)
    answer = demo._message(
        sender=ben, to=box.address, subject="Re: Quick question", text="Call me", days_ago=0
    )
    answer["In-Reply-To"] = to_ben.message_id
    arrives(box, answer)
    # Cleo unsubscribes: GET asks (a link scanner unsubscribes nobody), the one-click POST does it.
    path = urlsplit(url).path
    asked = acme_client.get(path)
    assert asked.status_code == 200 and b'<form method="post"' in asked.content
    assert not suppression.is_suppressed(cleo)
    assert acme_client.post(path, {"List-Unsubscribe": "One-Click"}).status_code == 200
    assert suppression.is_suppressed(cleo)
    assert acme_client.post(path[:-3] + "xyz").status_code == 404

    make_due(campaign)
    assert reachout.campaign_tick(campaign) == 1
    states = dict(campaign.recipients.values_list("email", "state"))
    assert states == {ada: "active", ben: "replied", cleo: "unsubscribed"}
    make_due(campaign)
    assert reachout.campaign_tick(campaign) == 1
    assert [m["Subject"] for m in inbox_of(mail_server, ada)] == [
        "Quick question, there",
        "Following up",
        "Last note",
    ]
    assert len(inbox_of(mail_server, ben)) == len(inbox_of(mail_server, cleo)) == 1
    done = ok(owner, "getReachoutCampaign", {"campaignId": campaign.pk})
    assert done["status"] == "finished"
    assert done["counts"] == {
        "active": 0, "done": 1, "replied": 1, "bounced": 0, "unsubscribed": 1, "failed": 0, "sent": 5,
    }  # fmt: skip
    # Each step went once: another run sends nothing again.
    make_due(campaign)
    assert reachout.campaign_tick(campaign) == 0


def test_the_daily_cap_bounces_and_the_suppression_list_in_the_preview(acme, people, mail_server):
    owner = people["owner"]
    box = factories.mailbox(owner)
    dan, eve, fay = addresses("dan", "eve", "fay")
    suppression.suppress(fay, reason="unsubscribed", source="marketing")
    campaign = reachout.campaign_create(
        actor=owner,
        name=f"Capped {uuid.uuid4().hex[:6]}",
        mailbox=box,
        steps=[reachout.Step("Hello", "Hi"), reachout.Step("Again", "Hi again", 1)],
        emails=[dan, eve, fay],
        window=(0, 24),
        weekdays=EVERY_DAY,
        daily_cap=1,
    )
    preview = {
        row["email"]: row
        for row in ok(owner, "previewReachoutRecipients", {"campaignId": campaign.pk})["items"]
    }
    assert preview[fay]["sends"] is False and preview[fay]["reason"] == "on the suppression list"
    assert preview[eve]["sends"] is True and preview[eve]["nextSendAt"]
    ok(owner, "controlReachoutCampaign", {"campaignId": campaign.pk, "action": "start"}, **CONFIRM)
    campaign.refresh_from_db()
    assert reachout.campaign_tick(campaign) == 1  # the mailbox's cap for 24 hours
    # Dan's message bounces: a delivery report arrives naming it.
    to_dan = CampaignMessage.objects.get(recipient__email=dan)
    report = demo._message(
        sender=f"MAILER-DAEMON@{box.address.rpartition('@')[2]}",
        to=box.address,
        subject="Undelivered Mail Returned to Sender",
        text=f"Final-Recipient: rfc822; {dan}\nAction: failed\nMessage-ID: {to_dan.message_id}",
        days_ago=0,
    )
    arrives(box, report)
    assert reachout.campaign_tick(campaign) == 0  # the cap still holds
    assert CampaignRecipient.objects.get(campaign=campaign, email=dan).state == "bounced"
    assert suppression.is_suppressed(dan)
    assert CampaignRecipient.objects.get(campaign=campaign, email=fay).state == "unsubscribed"
    paused = ok(owner, "controlReachoutCampaign", {"campaignId": campaign.pk, "action": "pause"}, **CONFIRM)
    assert paused["status"] == "paused"
    assert "cannot pause" in refused(
        owner, "controlReachoutCampaign", {"campaignId": campaign.pk, "action": "pause"}, **CONFIRM
    )


def test_a_complaint_or_a_hard_bounce_reported_later_stops_the_recipient_and_suppresses_the_address(
    acme, people, mail_server
):
    """Delivery reports in the standard formats (an RFC 5965 abuse report, an RFC 3464 DSN) reach
    the campaign through the mail app's handlers, whatever their sender and subject say."""
    owner = people["owner"]
    box = factories.mailbox(owner)
    gia, hal, ivy = addresses("gia", "hal", "ivy")
    campaign = sent_a_first_step(owner, box, "Reported", [gia, hal, ivy])
    to_gia = inbox_of(mail_server, gia)[0]
    del to_gia["Message-ID"]  # found by its signed List-Unsubscribe link instead
    to_hal = CampaignMessage.objects.get(recipient__email=hal).message_id
    to_ivy = CampaignMessage.objects.get(recipient__email=ivy).message_id
    for raw in (
        complaint(box.address, to_gia),
        dsn(box.address, hal, status="5.1.1", original=f"Message-ID: {to_hal}\r\nSubject: Hello\r\n"),
        # A transient failure: the next step tries again.
        dsn(box.address, ivy, status="4.2.2", action="delayed", original=f"Message-ID: {to_ivy}"),
    ):
        with servers.imap(box) as client:
            client.append("INBOX", "", imaplib.Time2Internaldate(time.time()), raw)
    sync.sync(box)

    states = dict(campaign.recipients.values_list("email", "state"))
    assert states == {gia: "unsubscribed", hal: "bounced", ivy: "active"}
    assert suppression.reasons_among([gia, hal, ivy]) == {gia: "complained", hal: "bounced"}
    # The campaign's own reading of its mailbox takes none of the three reports for a reply.
    reachout.check_answers(campaign)
    assert dict(campaign.recipients.values_list("email", "state")) == states
    assert ok(owner, "getReachoutCampaign", {"campaignId": campaign.pk})["counts"]["bounced"] == 1


def test_a_delay_warning_is_neither_a_bounce_nor_a_reply_and_a_later_failure_is_a_bounce(
    acme, people, mail_server
):
    """A sending server's warning that it is still trying (Gmail's "Delivery Status Notification
    (Delay)", naming the address) stops nothing and suppresses nothing; its later notice that the
    message failed does. A person's reply that mentions a delay is a reply."""
    owner = people["owner"]
    box = factories.mailbox(owner)
    jo, kim = addresses("jo", "kim")
    campaign = sent_a_first_step(owner, box, "Delayed", [jo, kim])
    to_kim = inbox_of(mail_server, kim)[0]
    daemon = "Mail Delivery Subsystem <mailer-daemon@googlemail.com>"
    warning = demo._message(
        sender=daemon,
        to=box.address,
        subject="Delivery Status Notification (Delay)",
        text=f"There was a temporary problem delivering your message to {jo}. Gmail will retry for 47 "
        "more hours. You'll be notified if the delivery fails permanently.",
        days_ago=0,
    )
    arrives(box, warning)
    arrives(
        box,
        demo._message(
            sender=kim,
            to=box.address,
            subject="Re: Hello (sorry for the delay)",
            text="Happy to talk next week.",
            days_ago=0,
            replying=to_kim,
        ),
    )
    sync.sync(box)
    reachout.check_answers(campaign)
    assert dict(campaign.recipients.values_list("email", "state")) == {jo: "active", kim: "replied"}
    assert not suppression.is_suppressed(jo)

    failed = demo._message(
        sender=daemon,
        to=box.address,
        subject="Delivery Status Notification (Failure)",
        text=f"Your message wasn't delivered to {jo} because the address couldn't be found.\n"
        f"Final-Recipient: rfc822; {jo}\nAction: failed\nStatus: 5.1.1",
        days_ago=0,
    )
    arrives(box, failed)
    sync.sync(box)
    reachout.check_answers(campaign)
    assert campaign.recipients.get(email=jo).state == "bounced"
    assert suppression.reasons_among([jo]) == {jo: "bounced"}


def test_steps_wait_for_the_send_window_in_the_recipient_s_time_zone(acme, people):
    campaign = ReachoutCampaign(
        window_start=9, window_end=17, weekdays=[1, 2, 3, 4, 5], time_zone="Europe/Lisbon"
    )
    new_york = CampaignRecipient(time_zone="America/New_York")
    thursday_afternoon_there = datetime(2026, 11, 26, 20, 0, tzinfo=UTC)  # 15:00 in New York
    assert reachout.in_window(campaign, new_york, thursday_afternoon_there) == thursday_afternoon_there
    friday_evening_there = datetime(2026, 11, 27, 23, 0, tzinfo=UTC)  # 18:00: the window is closed
    assert reachout.in_window(campaign, new_york, friday_evening_there) == datetime(
        2026, 11, 30, 14, 0, tzinfo=UTC
    )
    # Unknown zone: the campaign's (Lisbon, UTC+0 in winter); Saturday waits for Monday.
    assert reachout.in_window(
        campaign, CampaignRecipient(), datetime(2026, 11, 28, 10, tzinfo=UTC)
    ) == datetime(2026, 11, 30, 9, tzinfo=UTC)
    assert reachout.country_zones()["DE"] == "Europe/Berlin"


def test_creating_a_campaign_over_mcp_and_its_bad_input(acme, people):
    member = people["member"]
    box = factories.mailbox(member)
    contact = ContactFactory(
        actor=member, first_name="Ida", email=f"ida-{uuid.uuid4().hex[:6]}@example.de", country="DE"
    )
    steps = [
        {"subject": "Hi {first_name}", "body": "Hello {first_name}"},
        {"subject": "Again", "body": "Hi", "delayDays": 2},
    ]
    made = ok(
        member,
        "createReachoutCampaign",
        {"name": "Berlin", "inboxId": box.pk, "steps": steps, "contactIds": [contact.pk]},
    )
    assert made["status"] == "draft" and [s["delayDays"] for s in made["steps"]] == [0, 2]
    assert made["counts"]["active"] == 1 and made["window"] == "9-17h days 1,2,3,4,5"
    recipient = CampaignRecipient.objects.get(campaign_id=made["id"])
    assert recipient.time_zone == "Europe/Berlin" and recipient.name == contact.display_name
    assert [c["id"] for c in ok(member, "listReachoutCampaigns", {"status": "draft"})["items"]].count(
        made["id"]
    ) == 1
    before = ReachoutCampaign.objects.count()
    assert "'nobody' is not an e-mail address" in refused(
        member,
        "createReachoutCampaign",
        {"name": "Bad", "inboxId": box.pk, "steps": steps, "emails": ["nobody"]},
    )
    assert "give contactIds" in refused(
        member, "createReachoutCampaign", {"name": "Empty", "inboxId": box.pk, "steps": steps}
    )
    assert "already a campaign called" in refused(
        member,
        "createReachoutCampaign",
        {"name": "berlin", "inboxId": box.pk, "steps": steps, "emails": ["a@example.org"]},
    )
    # Someone else's mailbox is not found, like an id that does not exist.
    assert "not found" in refused(people["viewer"], "getReachoutCampaign", {"campaignId": 10**9})
    other = factories.mailbox(people["admin"])
    assert "not found" in refused(
        member,
        "createReachoutCampaign",
        {"name": "Theirs", "inboxId": other.pk, "steps": steps, "emails": ["a@example.org"]},
    )
    assert ReachoutCampaign.objects.count() == before
    ok(member, "controlReachoutCampaign", {"campaignId": made["id"], "action": "stop"}, **CONFIRM)
    assert "cannot start" in refused(
        member, "controlReachoutCampaign", {"campaignId": made["id"], "action": "start"}, **CONFIRM
    )


def test_the_deal_mail_doors_search_read_reply_send_and_ask_a_deal_s_contact(acme, people, mail_server):
    owner = people["owner"]
    box = factories.mailbox(owner)
    customer = addresses("buyer")[0]
    subject = f"Renewal terms {uuid.uuid4().hex[:6]}"
    arrives(
        box, demo._message(sender=customer, to=box.address, subject=subject, text="Can we talk?", days_ago=0)
    )
    sync.sync(box)
    found = ok(owner, "searchMail", {"query": subject})["items"]
    assert [item["subject"] for item in found] == [subject]
    read = ok(owner, "getInboxMessage", {"messageId": found[0]["id"]})
    assert read["text"].strip() == "Can we talk?" and read["inboxId"] == box.pk
    assert "not found" in refused(people["member"], "getInboxMessage", {"messageId": found[0]["id"]})

    sent = ok(owner, "replyEmail", {"messageId": found[0]["id"], "body": "Yes, Friday?"}, **CONFIRM)
    assert sent["status"] == "sent"
    answer = inbox_of(mail_server, customer)[-1]
    original = Message.objects.get(pk=found[0]["id"])
    assert answer["In-Reply-To"] == original.message_id and answer["Subject"] == f"Re: {subject}"
    assert "Yes, Friday?" in answer.get_body(preferencelist=("plain",)).get_content()

    draft = services.draft_save(
        actor=owner, mailbox=box, to=[customer], subject="Contract", body="Attached soon."
    )
    assert ok(owner, "sendDraft", {"draftId": draft.pk}, **CONFIRM)["status"] == "sent"
    assert "already sent" in refused(owner, "sendDraft", {"draftId": draft.pk}, **CONFIRM)
    assert inbox_of(mail_server, customer)[-1]["Subject"] == "Contract"

    pipeline = Pipeline.objects.create(name=f"Sales {uuid.uuid4().hex[:6]}")
    stage = Stage.objects.create(pipeline=pipeline, name="Qualified", position=1, probability=20)
    contact = ContactFactory(actor=owner, first_name="Nora", email=addresses("nora")[0])
    deal = Deal.objects.create(
        title="Nora's rollout", pipeline=pipeline, stage=stage, owner=owner, contact=contact,
        stage_entered_at=timezone.now(),
    )  # fmt: skip
    asked = ok(
        owner, "requestDealInfoEmail", {"dealId": deal.pk, "question": "What is your budget?"}, **CONFIRM
    )
    assert asked["status"] == "sent"
    letter = inbox_of(mail_server, contact.email)[-1]
    # The deal's title is the team's own name for it: the customer reads the question instead.
    assert letter["Subject"] == "What is your budget?"
    assert "Nora's rollout" not in letter.as_string()
    assert "Hello Nora," in letter.get_content() and "What is your budget?" in letter.get_content()
    logged = deal.activities.get(kind="contact")
    assert logged.channel == "email" and logged.summary == "Asked by e-mail: What is your budget?"
    ok(
        owner,
        "requestDealInfoEmail",
        {"dealId": deal.pk, "question": "And your timeline?", "subject": "Your rollout plans"},
        **CONFIRM,
    )
    assert inbox_of(mail_server, contact.email)[-1]["Subject"] == "Your rollout plans"
    lonely = Deal.objects.create(
        title="No contact", pipeline=pipeline, stage=stage, owner=owner, stage_entered_at=timezone.now()
    )
    assert "has no contact with an e-mail address" in refused(
        owner, "requestDealInfoEmail", {"dealId": lonely.pk, "question": "Budget?"}, **CONFIRM
    )
    assert "not found" in refused(
        owner, "requestDealInfoEmail", {"dealId": 10**9, "question": "?"}, **CONFIRM
    )


def test_a_reply_carries_files_the_writer_may_read_within_the_limit(acme, people, mail_server):
    owner, member = people["owner"], people["member"]
    box = factories.mailbox(member)
    customer = addresses("files")[0]
    subject = f"Send the terms {uuid.uuid4().hex[:6]}"
    arrives(box, demo._message(sender=customer, to=box.address, subject=subject, text="Terms?", days_ago=0))
    sync.sync(box)
    message = Message.objects.get(mailbox=box, subject=subject)
    terms = FileFactory(actor=member, name="terms-2027.txt", text="Net 30, renewal yearly")
    sent = ok(
        member,
        "replyEmail",
        {"messageId": message.pk, "body": "The terms are attached.", "attachmentFileIds": [terms.pk]},
        **CONFIRM,
    )
    assert sent["status"] == "sent"
    answer = inbox_of(mail_server, customer)[-1]
    assert answer["In-Reply-To"] == message.message_id
    parts = [part for part in answer.iter_attachments() if part.get_filename() == "terms-2027.txt"]
    assert len(parts) == 1 and "Net 30, renewal yearly" in parts[0].get_content()
    assert "The terms are attached." in answer.get_body(preferencelist=("plain",)).get_content()

    # Too large together: refused with their size, nothing sent.
    outgoing, received = Outgoing.objects.count(), len(inbox_of(mail_server, customer))
    big = FileFactory(actor=member, name="big-zq.txt", text="x" * 2000)
    with override_settings(ATRIUM_MAIL_MAX_BYTES=1024):
        large = refused(
            member,
            "replyEmail",
            {"messageId": message.pk, "body": "x", "attachmentFileIds": [terms.pk, big.pk]},
            **CONFIRM,
        )
    assert "The files come to" in large and "at most 768 bytes of files" in large
    # A file the writer may not read is "not found" as one that does not exist, its name never said.
    secret = FileFactory(actor=owner, name="payroll-zq.txt", text="secret", visibility="private")
    hidden = refused(
        member,
        "replyEmail",
        {"messageId": message.pk, "body": "x", "attachmentFileIds": [secret.pk]},
        **CONFIRM,
    )
    assert "not found" in hidden and "payroll" not in hidden
    missing = refused(
        member, "replyEmail", {"messageId": message.pk, "body": "x", "attachmentFileIds": [2**62]}, **CONFIRM
    )
    assert missing.replace(str(2**62), str(secret.pk)) == hidden
    assert Outgoing.objects.count() == outgoing and len(inbox_of(mail_server, customer)) == received
