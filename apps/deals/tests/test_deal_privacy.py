"""Export and erasure of one person's data reach every Deals Pipeline model that holds any
(docs/privacy.md); everyone else's rows stay. A deal names nobody's private contact to others."""

import io
import json

import pytest

from apps.accounts.models import Role, User
from apps.catalogue.testing import call, ok
from apps.contacts.tests.factories import ContactFactory
from apps.core import sharing
from apps.datarights.personal_data import personal_data_erase, personal_data_export
from apps.deals import services
from apps.deals.models import Activity, Deal, DealEvent, DealShare
from apps.deals.tests.factories import DealFactory, PipelineFactory

EMAIL = "rowan.tate@acme.example"


def test_export_and_erasure_reach_every_deals_model(acme, people):
    admin = people["admin"]
    rowan = User.objects.create_user(email=EMAIL, password=None, role=Role.objects.get(key="member"))
    pipeline = PipelineFactory(actor=admin)
    mine = DealFactory(actor=rowan, pipeline=pipeline, title="Rowan's renewal")
    private = DealFactory(actor=rowan, pipeline=pipeline, title="Rowan's side deal", visibility="private")
    theirs = DealFactory(actor=admin, pipeline=pipeline, title="Admin's deal", visibility="private")
    sharing.share_set(theirs, actor=admin, person=rowan, access="view", person_may_see=True)
    services.follow_up_schedule(
        actor=admin, deal_id=theirs.pk, due=theirs.created_at.date(), summary="x", owner_email=EMAIL
    )
    services.contact_log(actor=rowan, deal_id=mine.pk, channel="call", summary="Called the buyer")

    out = io.BytesIO()
    summary = personal_data_export(workspace=acme, email=EMAIL, out=out, performed_by="test")
    records = json.loads(out.getvalue())["records"]

    assert {key: n for key, n in summary.counts.items() if key.startswith("deals.")} == {
        "deals.activity": 2,
        "deals.deal": 2,
        "deals.dealevent": 3,
        "deals.dealshare": 1,
    }
    assert {row["title"] for row in records["deals.deal"]} == {"Rowan's renewal", "Rowan's side deal"}

    personal_data_erase(workspace=acme, email=EMAIL, performed_by="test")

    assert Deal.objects.get(pk=mine.pk).owner_id is None
    assert not Deal.objects.filter(pk=private.pk).exists()
    assert not DealShare.objects.filter(user__email=EMAIL).exists()
    assert not Activity.objects.filter(owner__email=EMAIL).exists()
    assert not DealEvent.objects.filter(actor__email=EMAIL).exists()
    # Everyone else's rows stay, the deal Rowan logged a call on among them.
    assert Deal.objects.get(pk=theirs.pk).owner_id == admin.pk
    logged = Activity.objects.get(deal=mine, summary="Called the buyer")
    assert logged.owner_id is None


def test_a_contacts_export_holds_the_deals_about_them_and_their_erasure_keeps_the_deals(acme, people):
    admin = people["admin"]
    contact = ContactFactory(actor=admin, first_name="Ines", email="INES@buyer.example")
    about = DealFactory(
        actor=admin, pipeline=PipelineFactory(actor=admin), title="Buyer renewal", contact_id=contact.pk
    )
    DealFactory(actor=admin, pipeline=about.pipeline, title="Someone else's")

    out = io.BytesIO()
    personal_data_export(workspace=acme, email="ines@buyer.example", out=out, performed_by="test")
    assert [row["title"] for row in json.loads(out.getvalue())["records"]["deals.deal"]] == ["Buyer renewal"]

    personal_data_erase(workspace=acme, email="ines@buyer.example", performed_by="test")

    kept = Deal.objects.get(pk=about.pk)
    assert (kept.title, kept.owner_id, kept.contact_id) == ("Buyer renewal", admin.pk, None)


@pytest.mark.parametrize("reader", ["member", "viewer"])
def test_a_deal_does_not_name_a_private_contact(people, reader):
    owner = people["owner"]
    contact = ContactFactory(actor=owner, first_name="Zanzibar", last_name="Quill", visibility="private")
    deal = DealFactory(actor=owner, pipeline=PipelineFactory(actor=people["admin"]), contact_id=contact.pk)

    answer = ok(people[reader], "getDeal", {"dealId": deal.pk})

    assert "Zanzibar" not in json.dumps(answer)
    assert answer["contact"] == {"id": contact.pk, "name": ""}
    assert ok(owner, "getDeal", {"dealId": deal.pk})["contact"]["name"] == "Zanzibar Quill"


@pytest.mark.parametrize("reader", ["member", "viewer"])
def test_a_workspace_finder_finds_no_private_contact_of_the_person_who_runs_it(people, reader):
    from apps.deals import finding
    from apps.deals.models import DealFinder

    owner = people["owner"]
    ContactFactory(actor=owner, first_name="Zanzibar", job_title="Head of procurement", visibility="private")
    ContactFactory(actor=owner, first_name="Open", job_title="Procurement lead")
    finder = finding.finder_create(
        actor=owner,
        name="Buyers",
        criteria={"titles": ["procurement"]},
        sources=["contacts"],
        schedule=DealFinder.Schedule.MANUAL,
    )
    finding.finder_run(finder=finder, actor=owner)

    answer = ok(people[reader], "getDealFinder", {"finderId": finder.pk})

    assert "Zanzibar" not in json.dumps(answer)
    assert "Open" in json.dumps(answer)


@pytest.mark.parametrize("reader", ["member", "viewer"])
def test_a_campaign_to_a_private_contact_is_private(people, reader):
    from apps.deals import reachout
    from apps.mail.tests.factories import mailbox

    owner = people["owner"]
    contact = ContactFactory(
        actor=owner, first_name="Zanzibar", email="zanzibar@example.org", visibility="private"
    )
    campaign = reachout.campaign_create(
        actor=owner,
        name="Spring",
        mailbox=mailbox(owner),
        steps=[reachout.Step("Hello", "A short note.")],
        contact_ids=[contact.pk],
    )

    assert campaign.visibility == "private"
    answer = call(people[reader], "getReachoutCampaign", {"campaignId": campaign.pk})
    assert answer["isError"] and "Zanzibar" not in json.dumps(answer)
