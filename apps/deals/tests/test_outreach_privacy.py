"""Export and erasure of one person's data reach every deal finder and reachout model and the mail
app's suppression list (docs/privacy.md); everyone else's rows stay, and an erased address stays
suppressed."""

import io
import json

from apps.accounts.models import Role, User
from apps.datarights.personal_data import personal_data_erase, personal_data_export
from apps.deals import finding, reachout
from apps.deals.models import CampaignMessage, CampaignRecipient, DealFinder, FoundLead, ReachoutCampaign
from apps.mail import suppression
from apps.mail.models import Suppression
from apps.mail.tests import factories

EMAIL = "ines.moreau@acme.example"


def test_export_and_erasure_reach_finders_campaigns_recipients_leads_and_the_suppression_list(acme, people):
    owner = people["owner"]
    ines = User.objects.create_user(email=EMAIL, password=None, role=Role.objects.get(key="member"))
    private = finding.finder_create(
        actor=ines,
        name="Ines's private search",
        criteria={"keywords": ["x"]},
        sources=["contacts"],
        private=True,
    )
    shared = finding.finder_create(
        actor=ines, name="Ines's search", criteria={"keywords": ["y"]}, sources=["contacts"]
    )
    others = finding.finder_create(
        actor=owner, name="Owner's search", criteria={"keywords": ["z"]}, sources=["contacts"]
    )
    FoundLead.objects.create(finder=others, key=EMAIL, source="provider", email=EMAIL, name="Ines Moreau")
    FoundLead.objects.create(
        finder=others, key="kept@example.org", source="provider", email="kept@example.org"
    )
    box = factories.mailbox(owner)
    campaign = reachout.campaign_create(
        actor=owner,
        name="Owner's outreach",
        mailbox=box,
        steps=[reachout.Step("Hi", "Hello")],
        emails=[EMAIL, "kept@example.org"],
    )
    own_campaign = reachout.campaign_create(
        actor=ines,
        name="Ines's outreach",
        mailbox=box,
        steps=[reachout.Step("Hi", "Hello")],
        emails=["a@example.org"],
    )
    recipient = CampaignRecipient.objects.get(campaign=campaign, email=EMAIL)
    CampaignMessage.objects.create(
        recipient=recipient, position=1, mailbox=box, message_id="<m1@acme.example>"
    )
    suppression.suppress(EMAIL, reason="unsubscribed", source=f"deals.campaign:{campaign.pk}")

    out = io.BytesIO()
    summary = personal_data_export(workspace=acme, email=EMAIL, out=out, performed_by="test")
    records = json.loads(out.getvalue())["records"]
    assert {
        key: n for key, n in summary.counts.items() if key.startswith("deals.") or key == "mail.suppression"
    } == {
        "deals.dealfinder": 2,
        "deals.foundlead": 1,
        "deals.reachoutcampaign": 1,
        "deals.campaignrecipient": 1,
        "deals.campaignmessage": 1,
        "mail.suppression": 1,
    }
    assert records["mail.suppression"][0]["reason"] == "unsubscribed"
    assert "kept@example.org" not in out.getvalue().decode()

    personal_data_erase(workspace=acme, email=EMAIL, performed_by="test")

    assert not DealFinder.objects.filter(pk=private.pk).exists()
    assert DealFinder.objects.get(pk=shared.pk).owner is None
    assert ReachoutCampaign.objects.get(pk=own_campaign.pk).owner is None
    assert not FoundLead.objects.filter(email=EMAIL).exists()
    assert FoundLead.objects.filter(email="kept@example.org").exists()
    assert not CampaignRecipient.objects.filter(email=EMAIL).exists()
    assert not CampaignMessage.objects.filter(message_id="<m1@acme.example>").exists()
    assert CampaignRecipient.objects.filter(campaign=campaign, email="kept@example.org").exists()
    # The objection outlives the address: no campaign may write to it again.
    assert Suppression.objects.get(digest=suppression.digest(EMAIL)).address == ""
    assert suppression.is_suppressed(EMAIL)
