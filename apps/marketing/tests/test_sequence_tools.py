"""The e-mail sequence, plan and analytics tools through call_tool: per tool a normal call, bad
input (a clear error, nothing written) and a refusal; who sees what under two roles; the model
tools through the gateway's scripted model server on loopback, metered against the caller's key.
Sending is test_sequence_sending.py's."""

import json

import pytest
from django.test import override_settings
from django.utils import timezone

from apps.apikeys.services import api_key_create
from apps.catalogue import dispatch
from apps.catalogue.dispatch import ToolNotFound
from apps.catalogue.testing import (
    call,
    confirmed,
    context_for,
    ok,
    person_with,
    person_without,
    principal_for,
    refused,
    structured,
    text_of,
)
from apps.forms.tests.forms_models import model_api
from apps.gateway.tests.servers import openai_text
from apps.mail import suppression
from apps.mail.tests.factories import mailbox
from apps.marketing import analytics, sequences
from apps.marketing.models import Campaign, Click, EmailSequence, Enrollment, MarketingPlan, Send, StepSend
from apps.marketing.tests.factories import campaign, consenting, postal_address, segment, sent_row, tag
from apps.marketing.tests.marketing_models import marketing_api

ELICIT = {"capabilities": {"elicitation": {}}, "elicit": confirmed}
STEP = {"subject": "Hello {first_name}", "body": "Welcome."}

TOOLS = {
    "createEmailSequence": ("marketing.edit", {"sequence": {"name": "X"}}),
    "getEmailSequence": ("marketing.view", {"sequenceId": 1}),
    "updateEmailSequence": ("marketing.edit", {"sequenceId": 1, "changes": {"name": "Y"}}),
    "deleteEmailSequence": ("marketing.delete", {"sequenceId": 1}),
    "activateEmailSequence": ("marketing.launch", {"sequenceId": 1}),
    "enrollInEmailSequence": ("marketing.launch", {"sequenceId": 1, "contactIds": [1]}),
    "generateSequenceStep": ("marketing.edit", {"sequenceId": 1, "brief": "a welcome"}),
    "createMarketingPlan": ("marketing.edit", {"plan": {"name": "X"}}),
    "getMarketingPlan": ("marketing.view", {"planId": 1}),
    "updateMarketingPlan": ("marketing.edit", {"planId": 1, "changes": {"name": "Y"}}),
    "generateMarketingStrategy": ("marketing.edit", {"brief": "a bakery"}),
    "getMarketingAnalytics": ("marketing.view", {}),
    "getMarketingRecommendations": ("marketing.view", {}),
    "listCampaignSuggestions": ("marketing.view", {}),
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


def _sequence(actor, **fields) -> EmailSequence:
    fields.setdefault("name", f"Sequence {tag()}")
    fields.setdefault("steps", [STEP])
    return sequences.sequence_create(actor=actor, fields=fields)


# --- sequences ------------------------------------------------------------------------------------


def test_a_sequence_is_written_read_changed_and_deleted(people):
    member, admin = people["member"], people["admin"]
    box = mailbox(member)
    made = ok(
        member,
        "createEmailSequence",
        {
            "sequence": {
                "name": f"Welcome {tag()}",
                "steps": [STEP, {**STEP, "delayHours": 24, "condition": "not_opened"}],
                "goalStage": "customer",
                "mailboxId": box.pk,
            }
        },
    )
    assert made["status"] == "draft" and [s["delayHours"] for s in made["steps"]] == [0, 24]
    assert made["steps"][1]["condition"] == "not_opened" and made["mailboxId"] == box.pk
    read = ok(member, "getEmailSequence", {"sequenceId": made["id"]})
    assert read["figures"]["enrollments"]["active"] == 0 and read["figures"]["sentByStep"] == [0, 0]
    changed = ok(member, "updateEmailSequence", {"sequenceId": made["id"], "changes": {"goalStage": ""}})
    assert changed["goalStage"] == "" and len(changed["steps"]) == 2
    deleted = ok(admin, "deleteEmailSequence", {"sequenceId": made["id"]}, **ELICIT)
    assert deleted["id"] == made["id"]
    assert "in the trash" in refused(member, "getEmailSequence", {"sequenceId": made["id"]})


def test_bad_steps_are_named_and_nothing_is_written(people):
    member = people["member"]
    name = f"Bad {tag()}"
    said = refused(
        member,
        "createEmailSequence",
        {"sequence": {"name": name, "steps": [{"subject": "Hi\r\nBcc: x@example.org", "body": "x"}]}},
    )
    assert "steps[0].subject" in said and "line breaks" in said
    said = refused(
        member,
        "createEmailSequence",
        {"sequence": {"name": name, "steps": [{**STEP, "condition": "clicked"}]}},
    )
    assert "steps[0].condition" in said
    assert not EmailSequence.objects.filter(name=name).exists()
    made = _sequence(member)
    said = refused(member, "updateEmailSequence", {"sequenceId": made.pk, "changes": {"mailboxId": 999_999}})
    assert "mailboxId" in said
    EmailSequence.objects.filter(pk=made.pk).update(status="active")
    said = refused(member, "updateEmailSequence", {"sequenceId": made.pk, "changes": {"steps": [STEP, STEP]}})
    assert "MARKETING_SEQUENCE_STATE" in said or "is active" in said
    assert len(EmailSequence.objects.get(pk=made.pk).steps) == 1


def test_activating_checks_first_and_asks_a_person(people):
    admin = people["admin"]
    postal_address()
    empty = _sequence(admin, steps=[], mailbox_id=mailbox(admin).pk)
    assert "no steps" in refused(admin, "activateEmailSequence", {"sequenceId": empty.pk}, **ELICIT)
    postal_address("")
    ready = _sequence(admin, mailbox_id=mailbox(admin).pk)
    assert "postal address" in refused(admin, "activateEmailSequence", {"sequenceId": ready.pk}, **ELICIT)
    postal_address()
    # Without a client that can ask, a HIGH RISK call is refused and nothing changes.
    refused(admin, "activateEmailSequence", {"sequenceId": ready.pk})
    assert EmailSequence.objects.get(pk=ready.pk).status == "draft"
    done = ok(admin, "activateEmailSequence", {"sequenceId": ready.pk}, **ELICIT)
    assert done["sequence"]["status"] == "active" and done["was"] == "draft"
    paused = ok(admin, "activateEmailSequence", {"sequenceId": ready.pk, "pause": True})
    assert paused["sequence"]["status"] == "paused"


def test_enrolling_skips_who_may_not_get_mail_and_asks_for_bulk(people):
    admin = people["admin"]
    label = f"e{tag()}"
    contacts = consenting(admin, 12, label=label)
    suppression.suppress(contacts[0].email, reason="unsubscribed")
    made = _sequence(admin)
    few = ok(
        admin, "enrollInEmailSequence", {"sequenceId": made.pk, "contactIds": [c.pk for c in contacts[:3]]}
    )
    assert few["enrolled"] == 2 and few["skippedByReason"] == {"unsubscribed": 1}
    # Eleven contacts is bulk: a person confirms it.
    ids = [c.pk for c in contacts[1:]]
    refused(admin, "enrollInEmailSequence", {"sequenceId": made.pk, "contactIds": ids})
    assert Enrollment.objects.filter(sequence=made).count() == 2
    bulk = ok(admin, "enrollInEmailSequence", {"sequenceId": made.pk, "contactIds": ids}, **ELICIT)
    assert bulk["enrolled"] == 9 and bulk["skippedByReason"] == {"already_enrolled": 2}
    said = refused(
        admin, "enrollInEmailSequence", {"sequenceId": made.pk, "contactIds": [c.pk for c in contacts[1:3]]}
    )
    assert "Nobody was enrolled" in said and "already_enrolled" in said
    said = refused(admin, "enrollInEmailSequence", {"sequenceId": made.pk})
    assert "contactIds" in said
    audience = segment(admin, rules=[{"field": "tags", "op": "has", "value": label}])
    said = refused(
        admin, "enrollInEmailSequence", {"sequenceId": made.pk, "segmentId": audience.pk}, **ELICIT
    )
    assert "2 already" not in said and "unsubscribed" in said


def test_another_person_s_private_contact_and_sequence_stay_hidden(people):
    owner, member = people["owner"], people["member"]
    hidden = _sequence(owner, visibility="private", name=f"Secret {tag()}")
    assert "not found" in refused(member, "getEmailSequence", {"sequenceId": hidden.pk}).lower()
    from apps.contacts.tests.factories import ContactFactory

    private = ContactFactory(actor=owner, email=f"p-{tag()}@example.org", visibility="private")
    launcher = person_with(
        {"marketing.view", "marketing.edit", "marketing.launch", "contacts.view"},
        email=f"l-{tag()}@acme.example",
    )
    mine = _sequence(launcher)
    said = refused(launcher, "enrollInEmailSequence", {"sequenceId": mine.pk, "contactIds": [private.pk]})
    assert private.email not in said and not Enrollment.objects.filter(sequence=mine).exists()
    EmailSequence.objects.filter(pk=hidden.pk).update(status="active")
    assert hidden.name not in json.dumps(ok(member, "getMarketingAnalytics", {}))
    assert hidden.name in json.dumps(ok(owner, "getMarketingAnalytics", {}))


def _call(user, name, arguments, key=None):
    context = context_for(user)
    context.principal = principal_for(user, api_key_id=key.pk if key else None)
    return dispatch.call_tool(context, name, arguments)


def test_the_model_writes_a_step_and_a_strategy_metered_and_nothing_without_it(people):
    member = people["member"]
    made = _sequence(member)
    key = api_key_create(user=member, label="marketing tests").key
    with marketing_api() as server:
        step = structured(
            _call(member, "generateSequenceStep", {"sequenceId": made.pk, "brief": "a nudge"}, key)
        )
        plan = structured(_call(member, "generateMarketingStrategy", {"brief": "a bakery in Leeds"}, key))
        saved = structured(
            _call(
                member,
                "generateMarketingStrategy",
                {
                    "brief": "a bakery",
                    "budget": 1000,
                    "currency": "GBP",
                    "save": True,
                    "startsOn": "2026-03-01",
                },
                key,
            )
        )
    assert step["position"] == 1 and step["sequence"]["steps"][1]["aiGenerated"] is True
    assert step["sequence"]["steps"][1]["subject"] == "Still there?" and step["costMicroUsd"] == 100 + 100
    assert plan["proposed"]["channels"] == ["email", "sequences"] and plan["savedPlan"] is None
    assert "a bakery in Leeds" in server.requests[1]["messages"][-1]["content"]
    assert saved["savedPlan"]["aiGenerated"] and saved["savedPlan"]["budget"] in ("1000.00", 1000.0, "1000")
    key.refresh_from_db()
    assert key.spent_micro_usd == 3 * 200
    before = EmailSequence.objects.get(pk=made.pk).steps
    plans = MarketingPlan.objects.count()
    with override_settings(GATEWAY_MODEL_BACKEND="", GATEWAY_MODEL_URL=""):
        said = text_of(_call(member, "generateSequenceStep", {"sequenceId": made.pk, "brief": "more"}, key))
    assert "no model is configured" in said and "ATRIUM_GATEWAY_MODEL_BACKEND" in said
    with model_api():
        assert "has no API key" in text_of(_call(member, "generateMarketingStrategy", {"brief": "a shop"}))
    with model_api(lambda body, index: openai_text("no JSON", usage=(5, 5))):
        said = text_of(_call(member, "generateSequenceStep", {"sequenceId": made.pk, "brief": "x y z"}, key))
    assert "not the JSON object asked for" in said
    assert EmailSequence.objects.get(pk=made.pk).steps == before and MarketingPlan.objects.count() == plans


# --- plans ----------------------------------------------------------------------------------------


def test_a_plan_is_written_linked_and_changed(people):
    member, owner = people["member"], people["owner"]
    mine = campaign(member)
    secret = campaign(owner, visibility="private")
    made = ok(
        member,
        "createMarketingPlan",
        {
            "plan": {
                "name": f"Q2 {tag()}",
                "goals": [{"text": "More trials", "metric": "clicks", "target": 500}],
                "channels": ["email", "social"],
                "budget": 2500.5,
                "currency": "EUR",
                "startsOn": "2026-04-01",
                "endsOn": "2026-06-30",
                "campaignIds": [mine.pk],
            }
        },
    )
    assert made["campaigns"] == [{"id": mine.pk, "name": mine.name, "status": "draft"}]
    assert made["goals"][0]["target"] == 500 and made["currency"] == "EUR"
    said = refused(
        member, "updateMarketingPlan", {"planId": made["id"], "changes": {"campaignIds": [secret.pk]}}
    )
    assert "no campaign" in said and secret.name not in said
    said = refused(member, "updateMarketingPlan", {"planId": made["id"], "changes": {"endsOn": "2026-01-01"}})
    assert "endsOn" in said
    said = refused(member, "createMarketingPlan", {"plan": {"name": f"B {tag()}", "budget": 10}})
    assert "currency" in said
    changed = ok(member, "updateMarketingPlan", {"planId": made["id"], "changes": {"channels": ["blog"]}})
    assert changed["channels"] == ["blog"] and changed["endsOn"] == "2026-06-30"
    assert ok(member, "getMarketingPlan", {"planId": made["id"]})["name"] == made["name"]
    private = ok(owner, "createMarketingPlan", {"plan": {"name": f"Mine {tag()}", "visibility": "private"}})
    assert "not found" in refused(member, "getMarketingPlan", {"planId": private["id"]}).lower()


# --- analytics and advice -------------------------------------------------------------------------


def test_analytics_count_campaigns_and_sequences_clicks_first(people):
    admin = people["admin"]
    row = sent_row(admin)
    Campaign.objects.filter(pk=row.campaign_id).update(launched_at=timezone.now())
    Send.objects.filter(pk=row.pk).update(sent_at=timezone.now(), clicked_at=timezone.now())
    Click.objects.create(send=row, url="https://example.org/")
    made = _sequence(admin)
    EmailSequence.objects.filter(pk=made.pk).update(status="active")
    enrolled = Enrollment.objects.create(sequence=made, email=f"a-{tag()}@example.org", state="goal")
    StepSend.objects.create(
        enrollment=enrolled, step=0, email=enrolled.email, state="sent", sent_at=timezone.now()
    )
    found = ok(admin, "getMarketingAnalytics", {})
    mine = next(item for item in found["campaigns"] if item["id"] == row.campaign_id)
    assert (mine["sent"], mine["clicks"], mine["uniqueClicks"]) == (1, 1, 1)
    seq = next(item for item in found["sequences"] if item["id"] == made.pk)
    assert (seq["sent"], seq["conversions"]) == (1, 1)
    assert "Apple Mail" in found["notes"][0]
    said = refused(
        admin, "getMarketingAnalytics", {"since": "2026-05-02T00:00:00Z", "until": "2026-05-01T00:00:00Z"}
    )
    assert "until" in said


def test_recommendations_and_suggestions_say_why(people):
    admin = people["admin"]
    postal_address()
    label = f"n{tag()}"
    consenting(admin, 2, label=label)
    fresh = segment(
        admin, name=f"Never mailed {label}", rules=[{"field": "tags", "op": "has", "value": label}]
    )
    idle = _sequence(admin, name=f"Idle {label}")
    EmailSequence.objects.filter(pk=idle.pk).update(status="active")
    noisy = _sequence(admin, name=f"Noisy {label}")
    EmailSequence.objects.filter(pk=noisy.pk).update(status="paused")
    for index in range(20):
        enrolled = Enrollment.objects.create(sequence=noisy, email=f"{label}-n{index}@example.org")
        StepSend.objects.create(
            enrollment=enrolled, step=0, email=enrolled.email, state="sent", sent_at=timezone.now()
        )
    for index in range(2):
        suppression.suppress(
            f"{label}-n{index}@example.org", reason="unsubscribed", source=sequences.source_of(noisy.pk)
        )
    advice = ok(admin, "getMarketingRecommendations", {})["items"]
    kinds = {(item["kind"], item["recordId"]) for item in advice}
    assert ("sequence_idle", idle.pk) in kinds and ("sequence_unsubscribes", noisy.pk) in kinds
    why = next(item["why"] for item in advice if item["recordId"] == noisy.pk)
    assert "2 of 20" in why
    ideas = ok(admin, "listCampaignSuggestions", {"limit": 20})["items"]
    first = next(item for item in ideas if item["recordId"] == fresh.pk)
    assert first["kind"] == "segment_never_mailed" and first["figures"]["reachable"] == 2
    assert "never mailed" in first["why"]
    assert refused(admin, "listCampaignSuggestions", {"limit": 0})
    assert analytics.best_hour(admin) is None or analytics.best_hour(admin)[1] >= 10
