"""A normal call of every outreach tool of the Deals area (deal finders, reachout campaigns, the
area's e-mail), for the catalogue's contract test; apps/deals/tests/samples.py imports it. The
e-mail tools work on the owner's demo mailbox through the test process's local mail server."""

import imaplib
import time
import uuid
from typing import Any

from django.utils import timezone

from apps.catalogue.testing import Sample, sample
from apps.contacts.tests.factories import ContactFactory
from apps.deals import finding, reachout
from apps.deals.models import Deal, DealFinder, Pipeline, ReachoutCampaign, Stage
from apps.mail import demo, servers, services, sync
from apps.mail.models import Mailbox, Message
from apps.mail.testing import using_local_server


def _unique(word: str) -> str:
    return f"{word} {uuid.uuid4().hex[:8]}"


def _finder(actor: Any) -> DealFinder:
    ContactFactory(actor=actor, first_name="Sampled", job_title="Head of Procurement", country="NL")
    return finding.finder_create(
        actor=actor,
        name=_unique("Procurement NL"),
        criteria={"titles": ["procurement"]},
        sources=["contacts"],
    )


def _campaign(actor: Any) -> ReachoutCampaign:
    return reachout.campaign_create(
        actor=actor,
        name=_unique("Sample outreach"),
        mailbox=Mailbox.objects.get(address=actor.email),
        steps=[reachout.Step("Hello {first_name}", "A short note.")],
        emails=[f"prospect-{uuid.uuid4().hex[:8]}@example.org"],
    )


def _message(actor: Any) -> Message:
    mailbox = Mailbox.objects.get(address=actor.email)
    subject = _unique("Deal question")
    message = demo._message(
        sender="buyer@example.org", to=mailbox.address, subject=subject, text="Price?", days_ago=0
    )
    with using_local_server():
        with servers.imap(mailbox) as client:
            client.append("INBOX", "", imaplib.Time2Internaldate(time.time()), message.as_bytes())
        sync.sync(mailbox)
    return Message.objects.get(mailbox=mailbox, subject=subject)


@sample("createDealFinder")
def create_deal_finder(actor: Any) -> Sample:
    # The same call in another workspace makes a finder of that name there: nothing private.
    return Sample({"name": _unique("Logistics DE"), "industries": ["logistics"], "countries": ["DE"]})


@sample("controlDealFinder")
def control_deal_finder(actor: Any) -> Sample:
    finder = _finder(actor)
    return Sample({"finderId": finder.pk, "action": "run"}, private=[finder.name])


@sample("getDealFinder")
def get_deal_finder(actor: Any) -> Sample:
    finder = _finder(actor)
    return Sample({"finderId": finder.pk}, private=[finder.name])


@sample("listDealFinders")
def list_deal_finders(actor: Any) -> Sample:
    return Sample({"limit": 100}, private=[_finder(actor).name])


@sample("createReachoutCampaign")
def create_reachout_campaign(actor: Any) -> Sample:
    name = _unique("Spring outreach")
    mailbox = Mailbox.objects.get(address=actor.email)
    steps = [
        {"subject": "Hi {first_name}", "body": "Hello"},
        {"subject": "Again", "body": "Hi", "delayDays": 2},
    ]
    return Sample({"name": name, "inboxId": mailbox.pk, "steps": steps, "emails": ["lead@example.org"]})


@sample("controlReachoutCampaign")
def control_reachout_campaign(actor: Any) -> Sample:
    campaign = _campaign(actor)
    return Sample({"campaignId": campaign.pk, "action": "start"}, private=[campaign.name])


@sample("getReachoutCampaign")
def get_reachout_campaign(actor: Any) -> Sample:
    campaign = _campaign(actor)
    return Sample({"campaignId": campaign.pk}, private=[campaign.name])


@sample("listReachoutCampaigns")
def list_reachout_campaigns(actor: Any) -> Sample:
    return Sample({"limit": 100}, private=[_campaign(actor).name])


@sample("previewReachoutRecipients")
def preview_reachout_recipients(actor: Any) -> Sample:
    campaign = _campaign(actor)
    return Sample({"campaignId": campaign.pk}, private=[campaign.recipients.get().email])


@sample("getInboxMessage")
def get_inbox_message(actor: Any) -> Sample:
    message = _message(actor)
    return Sample({"messageId": message.pk}, private=[message.subject])


@sample("searchMail")
def search_mail(actor: Any) -> Sample:
    message = _message(actor)
    return Sample({"query": message.subject}, private=[message.subject])


@sample("replyEmail")
def reply_email(actor: Any) -> Sample:
    return Sample({"messageId": _message(actor).pk, "body": "Thank you."}, around=using_local_server)


@sample("sendDraft")
def send_draft(actor: Any) -> Sample:
    mailbox = Mailbox.objects.get(address=actor.email)
    draft = services.draft_save(
        actor=actor, mailbox=mailbox, to=["buyer@example.org"], subject="Offer", body="Hi"
    )
    return Sample({"draftId": draft.pk}, around=using_local_server)


@sample("requestDealInfoEmail")
def request_deal_info_email(actor: Any) -> Sample:
    pipeline = Pipeline.objects.create(name=_unique("Sample sales"))
    stage = Stage.objects.create(pipeline=pipeline, name="Lead", position=1)
    contact = ContactFactory(actor=actor, first_name="Rita", email=f"rita-{uuid.uuid4().hex[:8]}@example.org")
    deal = Deal.objects.create(
        title=_unique("Rollout"), pipeline=pipeline, stage=stage, owner=actor, contact=contact,
        stage_entered_at=timezone.now(),
    )  # fmt: skip
    return Sample({"dealId": deal.pk, "question": "When do you decide?"}, around=using_local_server)
