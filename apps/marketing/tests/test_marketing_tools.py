"""The Marketing tools through call_tool: per tool a normal call, bad input and a refusal; who sees
what under two roles; segments' rules; previewSegmentContacts' reasons; launching under each
autonomy level. Sending itself is test_campaign_sending.py's."""

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.catalogue.dispatch import ToolNotFound
from apps.catalogue.testing import call, confirmed, ok, person_without, refused
from apps.contacts.tests.factories import ContactFactory
from apps.mail import suppression
from apps.mail.tests.factories import mailbox
from apps.marketing import sending, services
from apps.marketing.models import Campaign, Consent, MarketingSettings, Segment, Send
from apps.marketing.tests.factories import campaign, consenting, postal_address, segment, tag

ELICIT = {"capabilities": {"elicitation": {}}, "elicit": confirmed}

TOOLS = {
    "createMarketingSegment": ("marketing.edit", {"segment": {"name": "X"}}),
    "updateMarketingSegment": ("marketing.edit", {"segmentId": 1, "changes": {"name": "Y"}}),
    "deleteMarketingSegment": ("marketing.delete", {"segmentId": 1}),
    "listMarketingSegments": ("marketing.view", {}),
    "previewSegmentContacts": ("marketing.view", {"segmentId": 1}),
    "createMarketingCampaign": ("marketing.edit", {"campaign": {"name": "X", "subject": "S", "body": "B"}}),
    "updateMarketingCampaign": ("marketing.edit", {"campaignId": 1, "changes": {"name": "Y"}}),
    "getMarketingCampaign": ("marketing.view", {"campaignId": 1}),
    "searchMarketingCampaigns": ("marketing.view", {}),
    "deleteMarketingCampaign": ("marketing.delete", {"campaignId": 1}),
    "launchMarketingCampaign": ("marketing.launch", {"campaignId": 1}),
    "pauseMarketingCampaign": ("marketing.launch", {"campaignId": 1}),
    "setCampaignAutonomy": ("marketing.launch", {"campaignId": 1, "autonomy": "manual"}),
    "getCampaignPerformance": ("marketing.view", {"campaignId": 1}),
    "getMarketingDashboard": ("marketing.view", {}),
}


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_a_role_without_the_permission_cannot_call_it(acme, name):
    permission, arguments = TOOLS[name]
    person = person_without(permission, email=f"no-{name.lower()}@acme.example")
    with pytest.raises(ToolNotFound):
        call(person, name, arguments)


@pytest.mark.parametrize("name", [name for name, (perm, _a) in TOOLS.items() if perm != "marketing.view"])
def test_viewers_only_read(people, name):
    with pytest.raises(ToolNotFound):
        call(people["viewer"], name, TOOLS[name][1])


@pytest.mark.parametrize(
    "name", [name for name, (perm, _a) in TOOLS.items() if perm in ("marketing.launch", "marketing.delete")]
)
def test_members_write_but_neither_launch_nor_delete(people, name):
    with pytest.raises(ToolNotFound):
        call(people["member"], name, TOOLS[name][1])


# --- segments -------------------------------------------------------------------------------------


def test_a_segment_is_made_changed_listed_and_deleted(people):
    member, admin = people["member"], people["admin"]
    name = f"Germans {tag()}"
    made = ok(
        member,
        "createMarketingSegment",
        {"segment": {"name": name, "rules": [{"field": "country", "op": "equals", "value": "DE"}]}},
    )
    assert made["rules"] == [{"field": "country", "op": "equals", "value": "DE"}] and made["match"] == "all"
    changed = ok(
        member,
        "updateMarketingSegment",
        {
            "segmentId": made["id"],
            "changes": {"match": "any", "rules": [{"field": "tags", "op": "has", "value": "VIP"}]},
        },
    )
    assert changed["match"] == "any" and changed["rules"][0]["value"] == "vip"
    assert made["id"] in [row["id"] for row in ok(member, "listMarketingSegments", {"query": name})["items"]]
    ok(admin, "deleteMarketingSegment", {"segmentId": made["id"]}, **ELICIT)
    assert Segment.objects.get(pk=made["id"]).deleted_at is not None


def test_a_rule_on_an_unknown_field_is_refused_by_name_and_nothing_is_written(people):
    name = f"Bad {tag()}"
    text = refused(
        people["member"],
        "createMarketingSegment",
        {"segment": {"name": name, "rules": [{"field": "shoeSize", "op": "equals", "value": "42"}]}},
    )
    assert "rules[0].field" in text and "shoeSize" in text and "firstName" in text
    wrong_op = refused(
        people["member"],
        "createMarketingSegment",
        {"segment": {"name": name, "rules": [{"field": "tags", "op": "startsWith", "value": "x"}]}},
    )
    assert "rules[0].op" in wrong_op and "has" in wrong_op
    assert not Segment.objects.filter(name=name).exists()


def test_a_segment_a_draft_uses_is_not_deleted(people):
    admin = people["admin"]
    used = segment(admin)
    draft = campaign(admin, segment_id=used.pk)
    text = refused(admin, "deleteMarketingSegment", {"segmentId": used.pk}, **ELICIT)
    assert f"campaign {draft.pk}" in text
    assert Segment.objects.get(pk=used.pk).deleted_at is None


def test_preview_shows_who_is_reached_and_who_is_skipped_and_why(people):
    owner = people["owner"]
    label = f"pv{tag()}"
    reached, unsub, bounced, capped = consenting(owner, 4, label=label)
    no_consent = ContactFactory(actor=owner, email=f"{label}-nc@example.org", tags=[label])
    pending = ContactFactory(actor=owner, email=f"{label}-p@example.org", tags=[label])
    Consent.objects.create(contact=pending, status=Consent.Status.PENDING)
    suppression.suppress(unsub.email, reason="unsubscribed")
    suppression.suppress(bounced.email, reason="bounced")
    settings = MarketingSettings.current()
    earlier = campaign(owner)
    for _n in range(settings.frequency_cap):
        Send.objects.create(
            campaign=earlier, email=capped.email, state=Send.State.SENT, sent_at=timezone.now()
        )
        earlier = campaign(owner)
    audience = segment(owner, rules=[{"field": "tags", "op": "has", "value": label}])
    # The owner's private contact is no member in the member's preview (nor in their launch).
    ContactFactory(actor=owner, email=f"{label}-private@example.org", tags=[label], visibility="private")

    answer = ok(people["member"], "previewSegmentContacts", {"segmentId": audience.pk})

    assert answer["members"] == 6 and answer["reached"] == 1
    assert [row["email"] for row in answer["reachedSample"]] == [reached.email]
    reasons = {row["email"]: row["reason"] for row in answer["skippedContacts"]}
    assert reasons == {
        unsub.email: "unsubscribed",
        bounced.email: "bounced",
        capped.email: "cap",
        no_consent.email: "no_consent",
        pending.email: "no_consent",
    }
    assert answer["skippedByReason"] == {"unsubscribed": 1, "bounced": 1, "cap": 1, "no_consent": 2}
    assert "private@" not in str(answer)
    assert ok(owner, "previewSegmentContacts", {"segmentId": audience.pk})["members"] == 7
    assert "not found" in refused(owner, "previewSegmentContacts", {"segmentId": 2**31 - 1}).lower()


# --- campaigns ------------------------------------------------------------------------------------


def test_a_campaign_is_written_found_and_changed_while_a_draft(people):
    member = people["member"]
    audience = segment(member)
    name = f"Spring {tag()}"
    made = ok(
        member,
        "createMarketingCampaign",
        {
            "campaign": {
                "name": name,
                "subject": "Spring is here",
                "body": "Hi {first_name}",
                "segmentId": audience.pk,
            }
        },
    )
    assert (
        made["status"] == "draft" and made["autonomy"] == "approve" and made["segment"]["id"] == audience.pk
    )
    found = ok(member, "searchMarketingCampaigns", {"query": name})["items"]
    assert [row["id"] for row in found] == [made["id"]]
    changed = ok(
        member, "updateMarketingCampaign", {"campaignId": made["id"], "changes": {"subject": "Spring!"}}
    )
    assert changed["subject"] == "Spring!"
    got = ok(member, "getMarketingCampaign", {"campaignId": made["id"]})
    assert got["campaign"]["body"] == "Hi {first_name}" and got["figures"]["sent"] == 0
    Campaign.objects.filter(pk=made["id"]).update(status=Campaign.Status.SENT)
    text = refused(
        member, "updateMarketingCampaign", {"campaignId": made["id"], "changes": {"body": "Other"}}
    )
    assert "is sent" in text
    assert ok(
        member, "updateMarketingCampaign", {"campaignId": made["id"], "changes": {"name": f"{name} done"}}
    )


def test_a_subject_with_a_line_break_is_refused_and_nothing_is_written(people):
    name = f"Inject {tag()}"
    text = refused(
        people["member"],
        "createMarketingCampaign",
        {"campaign": {"name": name, "subject": "Hello\r\nBcc: everyone@example.org", "body": "x"}},
    )
    assert "subject" in text and "line breaks" in text
    assert not Campaign.objects.filter(name=name).exists()


def test_another_persons_private_campaign_is_never_listed_found_or_quoted(people):
    owner, member = people["owner"], people["member"]
    secret = campaign(owner, name=f"Secret {tag()}", visibility="private")
    assert secret.pk not in [
        row["id"] for row in ok(member, "searchMarketingCampaigns", {"limit": 100})["items"]
    ]
    text = refused(member, "getMarketingCampaign", {"campaignId": secret.pk})
    assert "Secret" not in text and "not found" in text.lower()
    assert secret.name not in str(ok(member, "getMarketingDashboard"))
    assert ok(owner, "getMarketingCampaign", {"campaignId": secret.pk})["campaign"]["name"] == secret.name


def test_delete_asks_first_and_goes_to_the_trash(people):
    admin = people["admin"]
    made = campaign(admin)
    assert "confirm" in refused(admin, "deleteMarketingCampaign", {"campaignId": made.pk}).lower()
    assert Campaign.objects.get(pk=made.pk).deleted_at is None
    ok(admin, "deleteMarketingCampaign", {"campaignId": made.pk}, **ELICIT)
    assert Campaign.objects.get(pk=made.pk).deleted_at is not None
    assert "in the trash" in refused(admin, "getMarketingCampaign", {"campaignId": made.pk})


# --- launching --------------------------------------------------------------------------------------


@pytest.fixture
def ready(people):
    """A draft of the admin's to a segment of three consenting contacts, from their mailbox."""
    admin = people["admin"]
    label = f"l{tag()}"
    consenting(admin, 3, label=label)
    audience = segment(admin, rules=[{"field": "tags", "op": "has", "value": label}])
    box = mailbox(admin)
    return campaign(admin, segment_id=audience.pk, mailbox_id=box.pk)


def test_launching_without_a_postal_address_is_refused_before_anyone_confirms(people, ready):
    asked = []
    text = refused(
        people["admin"],
        "launchMarketingCampaign",
        {"campaignId": ready.pk},
        capabilities={"elicitation": {}},
        elicit=lambda message, schema: asked.append(message) or confirmed(message, schema),
    )
    assert "postal address" in text and asked == []
    assert not Send.objects.filter(campaign=ready).exists()


def test_a_campaign_with_no_consenting_recipient_is_refused(people):
    admin = people["admin"]
    postal_address()
    label = f"n{tag()}"
    ContactFactory(actor=admin, email=f"{label}@example.org", tags=[label])
    audience = segment(admin, rules=[{"field": "tags", "op": "has", "value": label}])
    draft = campaign(admin, segment_id=audience.pk, mailbox_id=mailbox(admin).pk)
    text = refused(admin, "launchMarketingCampaign", {"campaignId": draft.pk}, **ELICIT)
    assert "reach nobody" in text and "1 no_consent" in text
    assert Campaign.objects.get(pk=draft.pk).status == "draft"


def test_autonomy_decides_who_launches(people, ready):
    admin = people["admin"]
    postal_address()
    ok(admin, "setCampaignAutonomy", {"campaignId": ready.pk, "autonomy": "manual"}, **ELICIT)
    text = refused(admin, "launchMarketingCampaign", {"campaignId": ready.pk}, **ELICIT)
    assert "a person launches it" in text
    # approve: the person confirms (a client that cannot ask is refused).
    ok(admin, "setCampaignAutonomy", {"campaignId": ready.pk, "autonomy": "approve"}, **ELICIT)
    assert "confirm" in refused(admin, "launchMarketingCampaign", {"campaignId": ready.pk}).lower()
    # autonomous: the agent alone.
    answer = ok(admin, "setCampaignAutonomy", {"campaignId": ready.pk, "autonomy": "autonomous"}, **ELICIT)
    assert answer["was"] == "approve"
    launched = ok(admin, "launchMarketingCampaign", {"campaignId": ready.pk})
    assert launched["campaign"]["status"] == "sending" and launched["figures"]["queued"] == 3
    assert "is sending" in refused(admin, "launchMarketingCampaign", {"campaignId": ready.pk})


def test_pause_and_resume_keep_the_snapshot(people, ready):
    admin = people["admin"]
    postal_address()
    ok(admin, "launchMarketingCampaign", {"campaignId": ready.pk}, **ELICIT)
    assert "sending" in refused(admin, "launchMarketingCampaign", {"campaignId": ready.pk}, **ELICIT)
    paused = ok(admin, "pauseMarketingCampaign", {"campaignId": ready.pk})
    assert paused["campaign"]["status"] == "paused" and paused["figures"]["recipients"] == 3
    assert "pausing is for" in refused(admin, "pauseMarketingCampaign", {"campaignId": ready.pk})
    # A contact joining the segment later is not in the launched campaign.
    late = ContactFactory(
        actor=admin, email=f"late-{tag()}@example.org", tags=[ready.segment.rules[0]["value"]]
    )
    Consent.objects.create(contact=late, status=Consent.Status.GRANTED)
    ok(admin, "launchMarketingCampaign", {"campaignId": ready.pk}, **ELICIT)
    assert Send.objects.filter(campaign=ready).count() == 3


def test_performance_and_dashboard(people, ready):
    admin = people["admin"]
    postal_address()
    services.campaign_launch(actor=admin, campaign=ready)
    row = Send.objects.filter(campaign=ready).first()
    Send.objects.filter(pk=row.pk).update(
        state=Send.State.SENT, sent_at=timezone.now() - timedelta(minutes=1)
    )
    row.clicks.create(url="https://example.org/a")
    Send.objects.filter(pk=row.pk).update(clicked_at=timezone.now())
    suppression.suppress(row.email, reason="unsubscribed", source=sending.source_of(ready.pk))
    found = ok(admin, "getCampaignPerformance", {"campaignId": ready.pk})
    assert (
        found["figures"]["sent"] == 1
        and found["figures"]["clicks"] == 1
        and found["figures"]["unsubscribes"] == 1
    )
    assert found["links"] == [{"url": "https://example.org/a", "clicks": 1}]
    board = ok(admin, "getMarketingDashboard")
    assert board["postalAddressSet"] is True and board["campaigns"]["sending"] >= 1
    assert "not found" in refused(admin, "getCampaignPerformance", {"campaignId": 2**31 - 1}).lower()
