"""A campaign sent through the mail app to the real local mail server (the test process's own SMTP
submission and IMAP): 200 contacts, 3 unsubscribed and 2 bounced skipped, one message each with the
RFC 8058 headers, the postal address and tracked links; one-click unsubscribe from the received
message's header; a click and an open counted; a run cut short by the server resumed without
sending anyone twice; quiet hours in the recipient's time zone; the public endpoints' refusals."""

from collections.abc import Iterator
from datetime import UTC, datetime
from urllib.parse import urlsplit

import pytest
from django.test import override_settings

from apps.catalogue.testing import confirmed, ok
from apps.contacts.tests.factories import ContactFactory
from apps.mail import suppression
from apps.mail.models import Outgoing
from apps.mail.testing import inbox_of, using_local_server
from apps.mail.tests.factories import mailbox
from apps.marketing import sending, tracking
from apps.marketing.models import Campaign, Click, Consent, MarketingSettings, Send
from apps.marketing.tests.factories import BROWSER, campaign, consenting, postal_address, segment, tag

ELICIT = {"capabilities": {"elicitation": {}}, "elicit": confirmed}


@pytest.fixture(scope="module")
def mail_server() -> Iterator[dict[str, str]]:
    with using_local_server() as env:
        yield env


def no_quiet_hours() -> None:
    settings = MarketingSettings.current()
    settings.quiet_start = settings.quiet_end = 0
    settings.save()


def test_a_campaign_to_200_contacts_skips_the_suppressed_and_counts_unsubscribes_and_clicks(
    people, mail_server, acme_client
):
    admin = people["admin"]
    postal_address("Acme Ltd, 1 Market Street, Leeds LS1 1AA, UK")
    no_quiet_hours()
    label = f"s{tag()}"
    contacts = consenting(admin, 200, label=label)
    for contact in contacts[:3]:
        suppression.suppress(contact.email, reason="unsubscribed", source="deals.campaign:1")
    for contact in contacts[3:5]:
        suppression.suppress(contact.email, reason="bounced")
    audience = segment(admin, rules=[{"field": "tags", "op": "has", "value": label}])
    draft = campaign(
        admin,
        segment_id=audience.pk,
        mailbox_id=mailbox(admin).pk,
        subject="Spring news, {first_name}",
        body="Hello {first_name},\n\nOur spring range: https://shop.example.org/spring.",
    )
    preview = ok(admin, "previewSegmentContacts", {"segmentId": audience.pk, "limit": 10})
    assert (preview["reached"], preview["skippedByReason"]) == (195, {"unsubscribed": 3, "bounced": 2})

    launched = ok(admin, "launchMarketingCampaign", {"campaignId": draft.pk}, **ELICIT)
    assert launched["figures"]["queued"] == 195 and launched["figures"]["skipped"] == {
        "unsubscribed": 3,
        "bounced": 2,
    }
    # A contact joining the segment after the launch gets nothing of it (the snapshot).
    consenting(admin, 1, label=label)
    assert sending.run(Campaign.objects.select_related("mailbox").get(pk=draft.pk)) == 195

    figures = ok(admin, "getCampaignPerformance", {"campaignId": draft.pk})["figures"]
    assert (figures["sent"], figures["queued"], figures["recipients"]) == (195, 0, 200)
    assert Campaign.objects.get(pk=draft.pk).status == "sent"
    assert inbox_of(mail_server, contacts[0].email) == []  # unsubscribed: skipped
    assert inbox_of(mail_server, contacts[3].email) == []  # bounced: skipped

    received = inbox_of(mail_server, contacts[7].email)
    assert len(received) == 1
    message = received[0]
    assert message["Subject"].startswith("Spring news, ")
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    unsubscribe = str(message["List-Unsubscribe"]).strip("<>")
    text = message.get_body(preferencelist=("plain",)).get_content()
    assert "Acme Ltd, 1 Market Street, Leeds LS1 1AA, UK" in text and unsubscribe in text
    assert "https://shop.example.org/spring" not in text  # the link is a tracked one
    html = message.get_body(preferencelist=("html",)).get_content()
    assert "/m/o/" in html

    # One-click unsubscribe, as a mail client does it from the header (RFC 8058).
    path = urlsplit(unsubscribe).path
    assert acme_client.post(path, {"List-Unsubscribe": "One-Click"}).status_code == 200
    assert suppression.is_suppressed(contacts[7].email)
    # A click on the tracked link: counted, and sent on to the shop.
    tracked = next(word for word in text.split() if "/m/c/" in word).rstrip(".")
    answer = acme_client.get(urlsplit(tracked).path, **BROWSER)
    assert answer.status_code == 302 and answer["Location"] == "https://shop.example.org/spring"
    pixel = next(part for part in html.split('"') if "/m/o/" in part)
    assert acme_client.get(urlsplit(pixel).path)["Content-Type"] == "image/gif"

    figures = ok(admin, "getCampaignPerformance", {"campaignId": draft.pk})
    assert figures["figures"]["unsubscribes"] == 1 and figures["figures"]["clicks"] == 1
    assert figures["figures"]["uniqueClicks"] == 1 and figures["figures"]["opens"] == 1
    assert figures["links"] == [{"url": "https://shop.example.org/spring", "clicks": 1}]
    # The next campaign to the segment skips the one who unsubscribed (the shared list).
    preview = ok(admin, "previewSegmentContacts", {"segmentId": audience.pk, "limit": 1})
    assert preview["skippedByReason"]["unsubscribed"] == 4


def test_a_run_cut_short_reports_who_got_it_and_resumes_without_sending_twice(people, mail_server):
    admin = people["admin"]
    postal_address()
    no_quiet_hours()
    label = f"r{tag()}"
    contacts = consenting(admin, 6, label=label)
    box = mailbox(admin)
    draft = campaign(
        admin,
        segment_id=segment(admin, rules=[{"field": "tags", "op": "has", "value": label}]).pk,
        mailbox_id=box.pk,
    )
    ok(admin, "setCampaignAutonomy", {"campaignId": draft.pk, "autonomy": "autonomous"}, **ELICIT)
    ok(admin, "launchMarketingCampaign", {"campaignId": draft.pk})
    live = Campaign.objects.select_related("mailbox").get(pk=draft.pk)
    assert sending.run(live, batch=2) == 2
    # The mail server stops answering: the run ends, what went is reported, the rest waits.
    live = Campaign.objects.select_related("mailbox").get(pk=draft.pk)
    with override_settings(ATRIUM_MAIL_LOCAL_SMTP="127.0.0.1:1"):
        assert sending.run(live) == 0
    figures = ok(admin, "getCampaignPerformance", {"campaignId": draft.pk})["figures"]
    assert (figures["sent"], figures["queued"]) == (2, 4)
    failed = Send.objects.get(campaign=draft, state="queued", outgoing__isnull=False)
    assert failed.outgoing.status == Outgoing.Status.FAILED
    # Back up: the rest go, the failed one with its Message-ID, nobody twice.
    live = Campaign.objects.select_related("mailbox").get(pk=draft.pk)
    assert sending.run(live) == 4
    assert [len(inbox_of(mail_server, contact.email)) for contact in contacts] == [1] * 6
    assert inbox_of(mail_server, failed.email)[0]["Message-ID"] == failed.message_id
    assert sending.run(live) == 0


def test_quiet_hours_are_the_recipients_own():
    settings = MarketingSettings(quiet_start=21, quiet_end=8, time_zone="UTC")
    late_in_tokyo = datetime(2026, 5, 4, 13, 30, tzinfo=UTC)  # 22:30 in Tokyo
    assert sending.out_of_quiet(late_in_tokyo, "Asia/Tokyo", settings) == datetime(
        2026, 5, 4, 23, 0, tzinfo=UTC
    )
    assert sending.out_of_quiet(late_in_tokyo, "Europe/London", settings) == late_in_tokyo  # 14:30 there
    early = datetime(2026, 5, 4, 5, 0, tzinfo=UTC)
    assert sending.out_of_quiet(early, "UTC", settings) == datetime(2026, 5, 4, 8, 0, tzinfo=UTC)
    assert sending.out_of_quiet(early, "UTC", MarketingSettings(quiet_start=0, quiet_end=0)) == early


def test_a_recipient_in_quiet_hours_waits(people):
    admin = people["admin"]
    postal_address()
    settings = MarketingSettings.current()
    settings.quiet_start, settings.quiet_end = 0, 23  # nearly always quiet, in Tokyo
    settings.save()
    label = f"q{tag()}"
    contact = ContactFactory(
        actor=admin, email=f"{label}@example.org", tags=[label], data={"timeZone": "Asia/Tokyo"}
    )
    Consent.objects.create(contact=contact, status=Consent.Status.GRANTED)
    draft = campaign(
        admin,
        segment_id=segment(admin, rules=[{"field": "tags", "op": "has", "value": label}]).pk,
        mailbox_id=mailbox(admin).pk,
    )
    ok(admin, "launchMarketingCampaign", {"campaignId": draft.pk}, **ELICIT)
    row = Send.objects.get(campaign=draft)
    assert row.time_zone == "Asia/Tokyo"
    Send.objects.filter(pk=row.pk).update(due_at=datetime(2026, 5, 4, 0, 0, tzinfo=UTC))
    now = datetime(2026, 5, 4, 3, 0, tzinfo=UTC)  # 12:00 in Tokyo
    assert sending.run(Campaign.objects.select_related("mailbox").get(pk=draft.pk), now=now) == 0
    row.refresh_from_db()
    assert row.state == "queued" and row.due_at == datetime(2026, 5, 4, 14, 0, tzinfo=UTC)  # 23:00 in Tokyo


def test_the_public_endpoints_refuse_forged_tokens(acme_client, people):
    assert acme_client.get("/m/c/forged/").status_code == 404
    assert acme_client.get("/m/confirm/forged/").status_code == 404
    made = Send.objects.create(campaign=campaign(people["admin"]), email="x@example.org", state="sent")
    # A token for another link's address is no redirect anywhere else.
    token = urlsplit(tracking.click_url(made.pk, "https://example.org/a")).path.split("/")[3]
    assert acme_client.get(f"/m/c/{token[:-2]}xx/").status_code == 404
    assert Click.objects.filter(send=made).count() == 0
    assert acme_client.get(f"/m/c/{token}/", **BROWSER).status_code == 302
    assert Click.objects.filter(send=made).count() == 1
    # A link scanner or a chat's preview that says what it is: redirected, not counted.
    preview = acme_client.get(
        f"/m/c/{token}/", HTTP_USER_AGENT="Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)"
    )
    assert preview.status_code == 302 and Click.objects.filter(send=made).count() == 1
