"""What a week of a sales team found: a date no one can read back refused before it is kept, a
private contact's or account's name finding nothing for someone who may not see it, a private
deal handed over, deals and follow-ups given only to people who can work them, and currencies of
no money or a rate that means nothing refused."""

import pytest

from apps.accounts.models import Role, User
from apps.catalogue.testing import ok, refused
from apps.contacts.tests.factories import ContactFactory
from apps.deals.models import Activity, Deal
from apps.groupaccounts.tests.factories import GroupAccountFactory


@pytest.fixture
def pipeline(people):  # type: ignore[no-untyped-def]
    made = ok(
        people["admin"],
        "createPipeline",
        {
            "name": "Week",
            "currency": "EUR",
            "stages": [{"name": "Lead", "probability": 10}, {"name": "Won", "probability": 90}],
        },
    )
    return made["id"]


def _deal(user, pipeline_id: int, **extra):  # type: ignore[no-untyped-def]
    return ok(
        user, "createDeal", {"title": "Fleet renewal", "value": 1000, "pipelineId": pipeline_id, **extra}
    )


def test_a_date_far_outside_the_years_is_refused_before_anything_is_kept(people, pipeline):
    member, owner = people["member"], people["owner"]
    deal = _deal(member, pipeline)
    for arguments, field in [
        ({"dealId": deal["id"], "summary": "x", "happenedAt": "0001-01-01T00:00:00+05:00"}, "happenedAt"),
        ({"dealId": deal["id"], "summary": "x", "happenedAt": "0999-12-31T23:00:00Z"}, "happenedAt"),
    ]:
        said = refused(member, "logDealContact", arguments)
        assert field in said and "1000 to 2999" in said
    said = refused(
        member,
        "scheduleDealFollowUp",
        {"dealId": deal["id"], "summary": "x", "due": "9999-12-31T23:00:00-05:00"},
    )
    assert "due" in said and "1000 to 2999" in said
    assert "1000 to 2999" in refused(
        member, "scheduleDealFollowUp", {"dealId": deal["id"], "summary": "x", "due": "9999-12-31"}
    )
    assert not Activity.objects.filter(deal_id=deal["id"]).exists()
    # The deal and the pipeline read as before, for everyone.
    assert ok(owner, "getDeal", {"dealId": deal["id"]})["id"] == deal["id"]
    assert ok(owner, "getPipelineOverview", {"pipelineId": pipeline})


def test_a_private_contact_s_name_finds_no_deal_for_who_may_not_see_it(people, pipeline):
    owner, member = people["owner"], people["member"]
    contact = ContactFactory(actor=owner, first_name="Quintessa", last_name="Marlowe", visibility="private")
    account = GroupAccountFactory(actor=owner, name="Obsidian Holdings")  # every account is everyone's
    deal = _deal(owner, pipeline, title="Plain deal", contactId=contact.pk, groupAccountId=account.pk)
    for word in ("Quintessa", "Marlowe"):
        assert ok(member, "searchDeals", {"query": word})["items"] == []
        assert [item["id"] for item in ok(owner, "searchDeals", {"query": word})["items"]] == [deal["id"]]
    for word in ("Plain", "Obsidian"):
        assert [item["id"] for item in ok(member, "searchDeals", {"query": word})["items"]] == [deal["id"]]


def test_a_private_deal_is_handed_over_and_deals_go_only_to_people_who_can_work_them(people, pipeline):
    member, viewer = people["member"], people["viewer"]
    nora = User.objects.create_user(
        email="nora.vale@acme.example", password=None, role=Role.objects.get(key="member")
    )
    deal = _deal(member, pipeline)
    ok(member, "shareDeal", {"dealId": deal["id"], "visibility": "private"})
    # A follow-up for someone who may not see the private deal would wait on them for ever.
    said = refused(
        member,
        "scheduleDealFollowUp",
        {"dealId": deal["id"], "summary": "Call", "due": "2099-01-05", "ownerEmail": nora.email},
    )
    assert said.startswith("`ownerEmail`: ") and "may not see deal" in said
    said = refused(member, "updateDeal", {"dealId": deal["id"], "changes": {"ownerEmail": viewer.email}})
    assert said.startswith("`ownerEmail`: ") and "deals.manage" in said
    handed = ok(member, "updateDeal", {"dealId": deal["id"], "changes": {"ownerEmail": nora.email}})
    assert handed["deal"]["owner"]["email"] == nora.email and handed["changed"] == ["owner"]
    assert Deal.objects.get(pk=deal["id"]).owner_id == nora.pk
    assert "not found" in refused(member, "getDeal", {"dealId": deal["id"]})
    assert ok(nora, "getDeal", {"dealId": deal["id"]})["id"] == deal["id"]


def test_currencies_of_no_money_and_a_rate_that_means_nothing_are_refused(people, pipeline):
    member = people["member"]
    for code in ("XXX", "XAU", "XTS"):
        said = refused(
            member, "createDeal", {"title": "x", "pipelineId": pipeline, "currency": code, "rate": 1}
        )
        assert "currency of money" in said
    deal = _deal(member, pipeline)
    said = refused(member, "updateDeal", {"dealId": deal["id"], "changes": {"rate": 2}})
    assert said.startswith("`rate`: ") and "EUR" in said
    assert ok(member, "updateDeal", {"dealId": deal["id"], "changes": {"rate": 1, "value": 5}})["changed"]
