"""Deal finders through the real dispatcher: a saved ideal-customer search over the workspace's
contacts and group accounts and the enrichment provider (a loopback server speaking its JSON),
leads deduplicated against existing contacts, the schedule, control, bad input and refusals; and
the refusal of every outreach tool to a role without its permission."""

import uuid
from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone

from apps.catalogue.testing import assert_refused_without_its_permission, confirmed, ok, refused, tools_of
from apps.contacts.tests.factories import ContactFactory
from apps.deals import finding
from apps.deals.models import DealFinder, FoundLead
from apps.deals.tests.servers import Provider, provider
from apps.groupaccounts.models import GroupAccountContact
from apps.groupaccounts.tests.factories import GroupAccountFactory

CONFIRM = {"capabilities": {"elicitation": {}}, "elicit": confirmed}
OUTREACH = {
    "createDealFinder",
    "controlDealFinder",
    "getDealFinder",
    "listDealFinders",
    "createReachoutCampaign",
    "controlReachoutCampaign",
    "getReachoutCampaign",
    "listReachoutCampaigns",
    "previewReachoutRecipients",
    "getInboxMessage",
    "replyEmail",
    "searchMail",
    "sendDraft",
    "requestDealInfoEmail",
}
OUTREACH_TOOLS = [spec for spec in tools_of("deals") if spec.name in OUTREACH]


def test_the_outreach_tools_are_registered_with_their_markers():
    assert {spec.name for spec in OUTREACH_TOOLS} == OUTREACH
    marked = {
        spec.name: [
            label for label in ("GATED", "HIGH RISK") if spec.definition["description"].startswith(label)
        ]
        for spec in OUTREACH_TOOLS
    }
    assert {name for name, labels in marked.items() if labels == ["HIGH RISK"]} == {
        "controlReachoutCampaign",
        "replyEmail",
        "sendDraft",
        "requestDealInfoEmail",
    }
    assert {name for name, labels in marked.items() if labels == ["GATED"]} == {
        "createDealFinder",
        "controlDealFinder",
    }


@pytest.mark.parametrize("spec", OUTREACH_TOOLS, ids=lambda spec: spec.name)
def test_a_role_without_the_permission_cannot_call_it(acme, spec):
    assert_refused_without_its_permission(spec)


@pytest.fixture
def market(acme, people):
    """A slice of the workspace that matches "logistics in Germany" and some that does not."""
    tag = f"icp{uuid.uuid4().hex[:6]}"
    owner = people["owner"]
    account = GroupAccountFactory(
        actor=owner, name=f"Rhein Freight {tag}", industry="Logistics", email_domains=[f"rhein-{tag}.example"]
    )
    buyer = ContactFactory(
        actor=owner,
        first_name="Greta",
        last_name="Vogel",
        email=f"greta@rhein-{tag}.example",
        job_title="Head of Logistics",
        country="DE",
        tags=[tag],
    )
    GroupAccountContact.objects.create(account=account, contact=buyer)
    ContactFactory(
        actor=owner,
        first_name="Paul",
        email=f"paul@{tag}.example",
        job_title="Chef",
        country="FR",
        tags=[tag],
    )
    return {"tag": tag, "account": account, "buyer": buyer}


def test_a_finder_finds_matching_contacts_and_accounts_and_deduplicates_provider_leads(market, people):
    tag, buyer = market["tag"], market["buyer"]
    people_found = [
        # Already a contact (same address): existing, with that contact.
        {"id": "p1", "name": "Greta Vogel", "email": buyer.email.upper(), "title": "Head of Logistics",
         "company": "Rhein Freight", "domain": f"rhein-{tag}.example", "industry": "Logistics",
         "country": "DE"},
        # New person at a company whose domain is a contact's: existing (the company is known).
        {"id": "p2", "name": "Jonas Kraft", "email": f"jonas@rhein-{tag}.example", "title": "COO",
         "company": "Rhein Freight", "industry": "Logistics", "country": "DE"},
        # Nobody we know: a new lead.
        {"id": "p3", "name": "Lena Hoff", "email": f"lena@elbe-{tag}.example", "title": "Logistics Director",
         "company": "Elbe Cargo", "domain": f"elbe-{tag}.example", "industry": "Logistics", "country": "DE"},
    ]  # fmt: skip
    with provider(Provider(people_found, credits=3)) as served:
        answer = ok(
            people["member"],
            "createDealFinder",
            {
                "name": f"Logistics DE {tag}",
                "industries": ["logistics"],
                "countries": ["de"],
                "tags": [tag],
                "sources": ["contacts", "accounts", "provider"],
            },
            **CONFIRM,
        )
    assert served.searches == [
        {"keywords": [], "industries": ["logistics"], "countries": ["DE"], "titles": [], "size": 50}
    ]
    assert answer["lastRun"] == {"found": 4, "new": 1, "existing": 3, "credits": 3}
    assert answer["creditsUsed"] == 3 and answer["schedule"] == "daily" and answer["nextRunAt"]
    leads = {lead["email"] or lead["name"]: lead for lead in answer["topLeads"]["items"]}
    # Greta is one lead, whether found among the contacts or by the provider.
    assert leads[buyer.email]["contactId"] == buyer.pk and leads[buyer.email]["status"] == "existing"
    assert leads[f"jonas@rhein-{tag}.example"]["status"] == "existing"
    assert leads[f"jonas@rhein-{tag}.example"]["groupAccountId"] == market["account"].pk
    lena = leads[f"lena@elbe-{tag}.example"]
    assert lena["status"] == "new" and lena["source"] == "provider" and lena["contactId"] is None
    assert set(lena["matched"]) == {"industries: logistics", "countries: DE"}
    # The French chef matches neither the tag-and-country nor the industry: not a lead.
    assert not any("Paul" in name for name in leads)
    # The account is found with its domain as the key; its tags do not include the ICP's tag.
    assert f"Rhein Freight {tag}" not in leads

    finder_id = answer["id"]
    assert any(
        item["id"] == finder_id for item in ok(people["viewer"], "listDealFinders", {"limit": 100})["items"]
    )
    got = ok(people["viewer"], "getDealFinder", {"finderId": finder_id})
    assert got["leads"] == 3 and got["lastRun"] is None

    # Dismissed leads stay dismissed when the finder runs again; a provider that is down is a
    # clear error and the run's changes are not kept.
    lena_id = lena["id"]
    paused = ok(
        people["member"],
        "controlDealFinder",
        {"finderId": finder_id, "action": "pause", "dismissLeadIds": [lena_id]},
        **CONFIRM,
    )
    assert paused["status"] == "paused" and paused["leads"] == 2
    with provider(Provider(people_found, status=503)):
        message = refused(
            people["member"], "controlDealFinder", {"finderId": finder_id, "action": "run"}, **CONFIRM
        )
    assert "does not answer" in message or "answered 503" in message
    assert FoundLead.objects.get(pk=lena_id).status == "dismissed"
    with provider(Provider(people_found)):
        again = ok(people["member"], "controlDealFinder", {"finderId": finder_id, "action": "run"}, **CONFIRM)
    assert again["lastRun"]["found"] == 4 and FoundLead.objects.get(pk=lena_id).status == "dismissed"
    stopped = ok(people["member"], "controlDealFinder", {"finderId": finder_id, "action": "stop"}, **CONFIRM)
    assert stopped["status"] == "stopped"
    assert "is stopped" in refused(
        people["member"], "controlDealFinder", {"finderId": finder_id, "action": "resume"}, **CONFIRM
    )


def test_bad_input_names_the_problem_and_keeps_nothing(acme, people):
    member = people["member"]
    before = DealFinder.objects.count()
    assert "give at least one of" in refused(member, "createDealFinder", {"name": "Empty"}, **CONFIRM)
    assert "not a two-letter country code" in refused(
        member, "createDealFinder", {"name": "Bad country", "countries": ["Germany"]}, **CONFIRM
    )
    assert "no enrichment provider is configured" in refused(
        member,
        "createDealFinder",
        {"name": "No provider", "keywords": ["x"], "sources": ["provider"]},
        **CONFIRM,
    )
    with provider(Provider([], status=402)):
        assert "no credits left" in refused(
            member,
            "createDealFinder",
            {"name": "Broke", "keywords": ["x"], "sources": ["provider"]},
            **CONFIRM,
        )
    with override_settings(ATRIUM_DEALS_ENRICHMENT_URL="http://127.0.0.1:9"):
        assert "does not answer" in refused(
            member,
            "createDealFinder",
            {"name": "Down", "keywords": ["x"], "sources": ["provider"]},
            **CONFIRM,
        )
    assert DealFinder.objects.count() == before
    assert "not found" in refused(member, "getDealFinder", {"finderId": 10**9})
    # A private finder is its owner's alone.
    secret = ok(
        member, "createDealFinder", {"name": f"Mine {uuid.uuid4().hex[:6]}", "keywords": ["zzz"]}, **CONFIRM
    )
    DealFinder.objects.filter(pk=secret["id"]).update(visibility="private")
    assert "not found" in refused(people["viewer"], "getDealFinder", {"finderId": secret["id"]})


def test_scheduled_finders_run_when_due_and_record_a_failing_provider(market, people):
    finder = finding.finder_create(
        actor=people["owner"],
        name=f"Due {market['tag']}",
        criteria={"tags": [market["tag"]]},
        sources=["contacts"],
    )
    manual = finding.finder_create(
        actor=people["owner"], name=f"Manual {market['tag']}", criteria={"tags": [market["tag"]]},
        sources=["contacts"], schedule="manual",
    )  # fmt: skip
    assert manual.next_run_at is None
    assert finding.run_due() >= 1
    finder.refresh_from_db()
    assert finder.leads.count() == 2 and finder.next_run_at > timezone.now() + timedelta(hours=23)
    assert not manual.leads.exists()
    with provider(Provider([], status=500)):
        failing = finding.finder_create(
            actor=people["owner"],
            name=f"Failing {market['tag']}",
            criteria={"keywords": ["x"]},
            sources=["provider"],
        )
        finding.run_due()
    failing.refresh_from_db()
    assert "answered 500" in failing.problem and failing.last_run_at is not None
