"""A month of marketing for a small company, as its people do it: the rules and consent on
Settings → Marketing, a segment, a campaign sent to 20 contacts through the local mail server (one
address bounces by a DSN, one unsubscribes with the header's one click, one complains), a sequence
of three steps to who is left, a landing page with a form visited with UTM parameters (and by a
crawler), a design made and refined, a social post scheduled to a loopback Mastodon, and the
figures read. Each step asserts what the person sees."""

from collections.abc import Iterator
from datetime import timedelta
from urllib.parse import urlsplit

import pytest
from django.test import Client
from django.utils import timezone

from apps.catalogue.testing import confirmed, ok
from apps.contacts.tests.factories import ContactFactory
from apps.forms.models import Submission
from apps.forms.tests.factories import published
from apps.mail.testing import inbox_of, using_local_server
from apps.mail.tests.factories import mailbox
from apps.marketing import sending, sequences
from apps.marketing.models import Campaign, EmailSequence, Send
from apps.marketing.tests.factories import BROWSER, consenting, tag
from apps.marketing.tests.test_delivery_reports import complaint, deliver, dsn
from apps.social import services as social_services
from apps.social.tests import servers

ELICIT = {"capabilities": {"elicitation": {}}, "elicit": confirmed}
CRAWLER = {"HTTP_USER_AGENT": "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)"}


@pytest.fixture(scope="module")
def mail_server() -> Iterator[dict[str, str]]:
    with using_local_server() as env:
        yield env


def test_a_month_of_marketing(people, mail_server, acme_client):
    admin, member = people["admin"], people["member"]
    office = Client(HTTP_HOST="127.0.0.1")
    office.force_login(admin)
    label = f"m{tag()}"

    # Day 1: the rules on Settings → Marketing, and consent: 19 from the shop's sign-up, one by hand.
    rules = {"postal_address": "Acme Ltd, 1 Market Street, Leeds", "frequency_cap": 4, "frequency_days": 7}
    saved = office.post(
        "/settings/marketing/settings/", {**rules, "quiet_start": 0, "quiet_end": 0, "time_zone": "UTC"}
    )
    assert saved.status_code == 302
    contacts = consenting(admin, 19, label=label)
    walk_in = ContactFactory(
        actor=admin, email=f"walkin-{label}@example.org", tags=[label], first_name="Wren"
    )
    assert (
        office.post("/settings/marketing/consent/", {"email": walk_in.email, "status": "granted"}).status_code
        == 302
    )
    contacts.append(walk_in)
    audience = ok(
        member,
        "createMarketingSegment",
        {
            "segment": {
                "name": f"Shop list {label}",
                "rules": [{"field": "tags", "op": "has", "value": label}],
            }
        },
    )
    preview = ok(member, "previewSegmentContacts", {"segmentId": audience["id"]})
    assert (preview["members"], preview["reached"], preview["skippedByReason"]) == (20, 20, {})

    # Day 2: the spring campaign to the 20, through the mail app.
    box = mailbox(admin)
    draft = ok(
        admin,
        "createMarketingCampaign",
        {
            "campaign": {
                "name": f"Spring {label}",
                "subject": "Spring is here, {first_name}",
                "body": "Hello {first_name},\n\nOur spring range: https://shop.example.org/spring",
                "segmentId": audience["id"],
                "mailboxId": box.pk,
            }
        },
    )
    launched = ok(admin, "launchMarketingCampaign", {"campaignId": draft["id"]}, **ELICIT)
    assert launched["figures"]["queued"] == 20
    assert sending.run(Campaign.objects.select_related("mailbox").get(pk=draft["id"])) == 20
    bounced, leaver, complainer, clicker = (contact.email.lower() for contact in contacts[:4])
    received = inbox_of(mail_server, leaver)[0]
    assert received["Subject"].startswith("Spring is here, ")

    # Days 3-5: one unsubscribes with the header's one click, one address bounces (a DSN), one
    # marks it as spam (a feedback loop's report), one clicks; a link scanner's click is no click.
    header = str(received["List-Unsubscribe"]).strip("<>")
    assert acme_client.post(urlsplit(header).path, {"List-Unsubscribe": "One-Click"}).status_code == 200
    original = Send.objects.get(campaign_id=draft["id"], email=bounced).message_id
    deliver(
        box,
        dsn(box.address, bounced, status="5.1.1", original=f"Message-ID: {original}"),
        complaint(box.address, inbox_of(mail_server, complainer)[0], recipient=complainer),
    )
    text = inbox_of(mail_server, clicker)[0].get_body(preferencelist=("plain",)).get_content()
    tracked = urlsplit(next(word for word in text.split() if "/m/c/" in word)).path
    assert acme_client.get(tracked, **CRAWLER).status_code == 302
    assert acme_client.get(tracked, **BROWSER)["Location"] == "https://shop.example.org/spring"
    figures = ok(member, "getCampaignPerformance", {"campaignId": draft["id"]})["figures"]
    assert (figures["sent"], figures["delivered"], figures["bounced"]) == (20, 19, 1)
    assert (figures["unsubscribes"], figures["complaints"], figures["clicks"]) == (1, 1, 1)

    # Week 2: an onboarding sequence of three steps to who may still get mail.
    steps = [
        {"subject": "Welcome", "body": "Hello {first_name}: https://shop.example.org/start"},
        {"subject": "Tips", "body": "Two tips for your first week.", "delayHours": 48},
        {"subject": "An offer", "body": "10% off: https://shop.example.org/offer", "delayHours": 96},
    ]
    flow = ok(
        admin,
        "createEmailSequence",
        {"sequence": {"name": f"Onboarding {label}", "steps": steps, "mailboxId": box.pk}},
    )
    enrolled = ok(
        admin, "enrollInEmailSequence", {"sequenceId": flow["id"], "segmentId": audience["id"]}, **ELICIT
    )
    assert enrolled["enrolled"] == 17
    assert enrolled["skippedByReason"] == {"unsubscribed": 1, "bounced": 1, "complained": 1}
    ok(admin, "activateEmailSequence", {"sequenceId": flow["id"]}, **ELICIT)
    start = timezone.now()
    live = EmailSequence.objects.select_related("mailbox")
    assert sequences.tick(live.get(pk=flow["id"]), now=start) == 17
    assert sequences.tick(live.get(pk=flow["id"]), now=start + timedelta(hours=49)) == 17
    shown = ok(member, "getEmailSequence", {"sequenceId": flow["id"]})
    assert shown["figures"]["enrollments"]["active"] == 17 and len(shown["sequence"]["steps"]) == 3
    assert shown["figures"]["sentByStep"][:2] == [17, 17]

    # Week 3: a landing page with the sign-up form, for the campaign; visited from Mastodon.
    form = published(admin, title=f"Spring sign-up {label}", slug=f"spring-{label}")
    page = ok(
        admin,
        "createLandingPage",
        {
            "landingPage": {
                "name": f"Spring offer {label}",
                "status": "published",
                "campaignId": draft["id"],
                "blocks": [
                    {"type": "heading", "text": "Spring offer", "level": 1},
                    {"type": "cta", "label": "Sign up", "url": "#form"},
                    {"type": "form", "formId": form.pk},
                ],
            }
        },
        **ELICIT,
    )
    path = urlsplit(page["url"]).path
    visitor = {"REMOTE_ADDR": "203.0.113.7", **BROWSER}
    assert (
        acme_client.get(
            f"{path}?utm_source=mastodon&utm_medium=social&utm_campaign=spring", **visitor
        ).status_code
        == 200
    )
    assert acme_client.get(path, **CRAWLER).status_code == 200
    sent = acme_client.post(
        path,
        {
            "name": "Ada",
            "email": "ada@example.org",
            "utm_source": "mastodon",
            "utm_medium": "social",
            "utm_campaign": "spring",
        },
        **visitor,
    )
    assert sent.status_code == 302
    answer = Submission.objects.get(form=form)
    assert answer.utm == {"utm_source": "mastodon", "utm_medium": "social", "utm_campaign": "spring"}
    figures = ok(member, "getCampaignPerformance", {"campaignId": draft["id"]})["figures"]
    assert (figures["landingVisits"], figures["conversions"]) == (1, 1)

    # A design for the post, made and refined.
    design = ok(
        member,
        "createDesign",
        {"name": f"Spring tile {label}", "preset": "instagram-square", "design": {"headline": "Spring sale"}},
    )
    refined = ok(
        member, "refineDesign", {"designId": design["id"], "changes": {"headline": "Spring sale: 20% off"}}
    )
    assert refined["version"] == 2 and refined["pngFileId"] != design["pngFileId"]

    # Week 4: a post to Mastodon, scheduled, and delivered by the beat task on time.
    with servers.mastodon() as mastodon:
        account = social_services.account_connect(
            actor=admin, network="mastodon", server=mastodon.url, handle="", secret=servers.MASTODON_TOKEN
        )
        at = timezone.now() + timedelta(hours=3)
        scheduled = ok(
            admin,
            "scheduleSocialPost",
            {
                "accountId": account.pk,
                "text": "Spring sale: 20% off",
                "links": [page["url"]],
                "at": at.isoformat(),
            },
            **ELICIT,
        )
        assert scheduled["post"]["state"] == "scheduled" and mastodon.posts() == []
        assert social_services.deliver_due(now=at + timedelta(minutes=1)) == 1
        assert mastodon.posts()[0]["text"] == f"Spring sale: 20% off\n\n{page['url']}"

    # The month read back: the analytics, the dashboard and the Settings page.
    month = ok(member, "getMarketingAnalytics", {})
    row = next(row for row in month["campaigns"] if row["id"] == draft["id"])
    assert (row["sent"], row["bounced"], row["unsubscribes"], row["clicks"], row["conversions"]) == (
        20,
        1,
        1,
        1,
        1,
    )
    assert next(row for row in month["sequences"] if row["id"] == flow["id"])["sent"] == 34
    settings_page = office.get("/settings/marketing/").content.decode()
    for seen in (draft["name"], audience["name"], flow["name"], page["name"], design["name"], "complained"):
        assert seen in settings_page, seen
