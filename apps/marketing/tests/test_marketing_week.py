"""What a marketer's week found: a segment built and previewed by three roles, a campaign drafted,
launched to a few hundred contacts over the local mail server, unsubscribes and withdrawn consent
honoured, a three-step sequence, a plan shared with a colleague, and the figures read back; and
what the area must refuse without a crash, or keep from a person who may not see it."""

from collections.abc import Iterator
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.utils import timezone

from apps.catalogue.testing import call, confirmed, ok, person_with, refused
from apps.contacts.tests.factories import ContactFactory
from apps.mail import suppression
from apps.mail.testing import inbox_of, using_local_server
from apps.mail.tests.factories import mailbox
from apps.marketing import analytics, sending, sequences, services
from apps.marketing.models import (
    Campaign,
    Consent,
    EmailSequence,
    Enrollment,
    MarketingPlan,
    MarketingSettings,
    Send,
    StepSend,
)
from apps.marketing.tests.factories import consenting, postal_address, tag

ELICIT = {"capabilities": {"elicitation": {}}, "elicit": confirmed}
BLOCKS = [{"type": "heading", "text": "Spring", "level": 1}]
MARKETER = {
    "marketing.view",
    "marketing.edit",
    "marketing.launch",
    "marketing.delete",
    "contacts.view",
    "contacts.create",
    "contacts.edit",
    "emailinbox.view",
    "emailinbox.edit",
    "emailinbox.send",
}


@pytest.fixture(scope="module")
def mail_server() -> Iterator[dict[str, str]]:
    with using_local_server() as env:
        yield env


@pytest.fixture
def marketer(acme):  # type: ignore[no-untyped-def]
    """A marketer with every right of the area but its administration (so not every contact)."""
    return person_with(MARKETER, email=f"marketer-{tag()}@acme.example")


def no_quiet_hours() -> None:
    settings = MarketingSettings.current()
    settings.quiet_start = settings.quiet_end = 0
    settings.save()


def _private_contact(owner: Any, label: str) -> Any:
    """`owner`'s private contact in the segment, consenting: nobody else's business."""
    contact = ContactFactory(
        actor=owner, email=f"secret-{label}@example.org", tags=[label], visibility="private"
    )
    Consent.objects.create(contact=contact, status=Consent.Status.GRANTED, source="test")
    return contact


def _text(answer: Any) -> str:
    return str(answer)


# --- the week ---------------------------------------------------------------------------------------


def test_a_campaign_to_250_contacts_honours_unsubscribes_and_consent_withdrawn_after_the_launch(
    people, marketer, mail_server, acme_client
):
    member, viewer = people["member"], people["viewer"]
    postal_address()
    no_quiet_hours()
    label = f"w{tag()}"
    contacts = consenting(marketer, 250, label=label)
    for contact in contacts[:3]:
        suppression.suppress(contact.email, reason="unsubscribed")
    for contact in contacts[3:5]:
        suppression.suppress(contact.email, reason="bounced")
    secret = _private_contact(member, label)
    made = ok(
        marketer,
        "createMarketingSegment",
        {"segment": {"name": f"Spring {label}", "rules": [{"field": "tags", "op": "has", "value": label}]}},
    )
    # Each role sees the members they may see: the member's private contact is theirs alone.
    seen = {}
    for name, person in (("marketer", marketer), ("member", member), ("viewer", viewer)):
        preview = ok(person, "previewSegmentContacts", {"segmentId": made["id"], "limit": 200})
        seen[name] = (preview["members"], preview["reached"])
        if person is not member:
            assert secret.email not in _text(preview)
    assert seen == {"marketer": (250, 245), "member": (251, 246), "viewer": (250, 245)}

    box = mailbox(marketer)
    draft = ok(
        marketer,
        "createMarketingCampaign",
        {
            "campaign": {
                "name": f"Spring {label}",
                "subject": "Spring news, {first_name}",
                "body": "Hello {first_name},\n\nOur spring range: https://shop.example.org/spring",
                "segmentId": made["id"],
                "mailboxId": box.pk,
            }
        },
    )
    launched = ok(marketer, "launchMarketingCampaign", {"campaignId": draft["id"]}, **ELICIT)
    assert launched["figures"]["queued"] == 245
    assert not Send.objects.filter(campaign_id=draft["id"], email=secret.email).exists()
    # Launched twice: refused, nothing queued again.
    assert "sending" in refused(marketer, "launchMarketingCampaign", {"campaignId": draft["id"]}, **ELICIT)
    assert Send.objects.filter(campaign_id=draft["id"]).count() == 250
    # A contact withdraws consent before their message goes: they get nothing.
    withdrawn = contacts[10]
    services.consent_record(actor=marketer, contact_id=withdrawn.pk, status="withdrawn")
    assert sending.run(Campaign.objects.select_related("mailbox").get(pk=draft["id"])) == 244
    assert inbox_of(mail_server, withdrawn.email) == []
    assert inbox_of(mail_server, contacts[0].email) == []
    received = inbox_of(mail_server, contacts[20].email)
    assert len(received) == 1
    # One-click unsubscribe from the header; the figures count it.
    unsubscribe = str(received[0]["List-Unsubscribe"]).strip("<>")
    assert acme_client.post(urlsplit(unsubscribe).path, {"List-Unsubscribe": "One-Click"}).status_code == 200
    for person in (marketer, viewer):
        figures = ok(person, "getCampaignPerformance", {"campaignId": draft["id"]})["figures"]
        assert (figures["recipients"], figures["sent"], figures["queued"]) == (250, 244, 0)
        assert figures["skipped"] == {"unsubscribed": 3, "bounced": 2, "no_consent": 1}
        assert figures["unsubscribes"] == 1 and figures["delivered"] == 244
    # The next preview skips who unsubscribed and who withdrew.
    preview = ok(marketer, "previewSegmentContacts", {"segmentId": made["id"], "limit": 1})
    assert preview["skippedByReason"] == {"unsubscribed": 4, "bounced": 2, "no_consent": 1}


def test_a_three_step_sequence_runs_to_its_end_and_lets_go_who_withdrew(people, marketer, mail_server):
    member = people["member"]
    postal_address()
    no_quiet_hours()
    label = f"q{tag()}"
    contacts = consenting(marketer, 12, label=label)
    secret = _private_contact(member, label)
    audience = ok(
        marketer,
        "createMarketingSegment",
        {"segment": {"name": f"Trial {label}", "rules": [{"field": "tags", "op": "has", "value": label}]}},
    )
    box = mailbox(marketer)
    steps = [
        {"subject": "Welcome", "body": "Hello {first_name}: https://shop.example.org/start"},
        {"subject": "Tips", "body": "Two tips.", "delayHours": 24},
        {"subject": "Offer", "body": "10% off: https://shop.example.org/offer", "delayHours": 48},
    ]
    made = ok(
        marketer,
        "createEmailSequence",
        {"sequence": {"name": f"Trial {label}", "steps": steps, "mailboxId": box.pk}},
    )
    enrolled = ok(
        marketer, "enrollInEmailSequence", {"sequenceId": made["id"], "segmentId": audience["id"]}, **ELICIT
    )
    assert (enrolled["members"], enrolled["enrolled"]) == (12, 12)
    assert secret.email not in _text(enrolled)
    # The member's private contact by id: not found, and not named.
    said = refused(marketer, "enrollInEmailSequence", {"sequenceId": made["id"], "contactIds": [secret.pk]})
    assert secret.email not in said
    ok(marketer, "activateEmailSequence", {"sequenceId": made["id"]}, **ELICIT)

    def tick(hours: int) -> int:
        sequence = EmailSequence.objects.select_related("mailbox").get(pk=made["id"])
        return sequences.tick(sequence, now=timezone.now() + timedelta(hours=hours))

    assert tick(0) == 12
    services.consent_record(actor=marketer, contact_id=contacts[0].pk, status="withdrawn")
    assert tick(25) == 11
    assert tick(25) == 0  # nobody twice
    contacts[2].trash(marketer)  # archived: gets no more
    assert tick(80) == 10
    read = ok(marketer, "getEmailSequence", {"sequenceId": made["id"]})
    figures = read["figures"]
    assert figures["sentByStep"] == [12, 11, 10]
    assert figures["enrollments"]["completed"] == 10 and figures["enrollments"]["no_consent"] == 2
    assert len(inbox_of(mail_server, contacts[0].email)) == 1
    assert len(inbox_of(mail_server, contacts[1].email)) == 3


# --- what must be refused, without a crash --------------------------------------------------------


def test_a_segment_rule_with_a_value_of_the_wrong_kind_or_a_far_date_is_refused(people, marketer):
    for rule, where in [
        ({"field": "tags", "op": "has", "value": ["vip"]}, "rules[0].value"),
        ({"field": "country", "op": "equals", "value": ["DE", "FR"]}, "rules[0].value"),
        ({"field": "createdAt", "op": "before", "value": "0001-01-01"}, "rules[0].value"),
        ({"field": "createdAt", "op": "after", "value": "9999-12-31"}, "rules[0].value"),
        ({"field": "country", "op": "in", "value": "DE"}, "rules[0].value"),
        ({"field": "country", "op": "equals", "value": "   "}, "rules[0].value"),
    ]:
        name = f"Odd {tag()}"
        said = refused(marketer, "createMarketingSegment", {"segment": {"name": name, "rules": [rule]}})
        assert said.startswith(f"`{where}`"), (rule, said)
        assert not ok(marketer, "listMarketingSegments", {"query": name})["items"]


def test_huge_ids_and_empty_text_are_refused_not_crashed(people, marketer):
    box = mailbox(marketer)
    huge = 2**62
    base = {"name": f"C {tag()}", "subject": "Hi", "body": "Hello"}
    for arguments in (
        {"campaign": {**base, "mailboxId": huge}},
        {"campaign": {**base, "segmentId": huge}},
        {"campaign": {**base, "subject": "   ", "mailboxId": box.pk}},
        {"campaign": {**base, "body": " \n ", "mailboxId": box.pk}},
        {"campaign": {**base, "subject": "Hi\nBcc: x@example.org"}},
    ):
        answer = call(marketer, "createMarketingCampaign", arguments)
        assert answer.get("isError"), (arguments, answer)
        assert "error on the server" not in _text(answer), answer
    assert not Campaign.objects.filter(name=base["name"]).exists()
    made = ok(
        marketer,
        "createEmailSequence",
        {"sequence": {"name": f"S {tag()}", "steps": [{"subject": "a", "body": "b"}], "mailboxId": box.pk}},
    )
    for ids in ([huge], [10**30], [0], [-1]):
        answer = call(marketer, "enrollInEmailSequence", {"sequenceId": made["id"], "contactIds": ids})
        assert answer.get("isError") and "error on the server" not in _text(answer), (ids, answer)
    page = {"landingPage": {"name": f"L {tag()}", "blocks": BLOCKS, "campaignId": 10**30}}
    answer = call(marketer, "createLandingPage", page)
    assert answer.get("isError") and "error on the server" not in _text(answer), answer
    plan = {"plan": {"name": f"P {tag()}", "campaignIds": [10**30]}}
    answer = call(marketer, "createMarketingPlan", plan)
    assert answer.get("isError") and "error on the server" not in _text(answer), answer


# --- what one person's records show another -------------------------------------------------------


def test_a_private_campaign_is_not_listed_found_or_counted_for_others(people, marketer):
    member, viewer = people["member"], people["viewer"]
    secret = f"Secret {tag()}"
    made = ok(
        marketer,
        "createMarketingCampaign",
        {"campaign": {"name": secret, "subject": "Hush", "body": "Quiet", "visibility": "private"}},
    )
    for person in (member, viewer):
        assert secret not in _text(ok(person, "searchMarketingCampaigns", {"limit": 100}))
        assert secret not in _text(ok(person, "getMarketingDashboard", {}))
        said = refused(person, "getMarketingCampaign", {"campaignId": made["id"]})
        assert secret not in said
    # A colleague's private page may not hang on it.
    said = refused(
        member,
        "createLandingPage",
        {"landingPage": {"name": f"Page {tag()}", "blocks": BLOCKS, "campaignId": made["id"]}},
    )
    assert secret not in said


def test_the_dashboard_counts_only_the_consent_of_contacts_one_sees(people, marketer):
    member, viewer = people["member"], people["viewer"]
    before = {
        name: ok(person, "getMarketingDashboard", {})["consent"]
        for name, person in (("viewer", viewer), ("marketer", marketer), ("member", member))
    }
    _private_contact(member, f"c{tag()}")
    after = {
        name: ok(person, "getMarketingDashboard", {})["consent"]
        for name, person in (("viewer", viewer), ("marketer", marketer), ("member", member))
    }
    assert after["viewer"] == before["viewer"]
    assert after["marketer"] == before["marketer"]
    assert after["member"]["granted"] == before["member"]["granted"] + 1
    # Nor is a private contact's consent awaiting confirmation another person's advice.
    waiting = _private_contact(member, f"p{tag()}")
    Consent.objects.filter(contact=waiting).update(status=Consent.Status.PENDING)

    def pending(person: Any) -> int:
        items = ok(person, "getMarketingRecommendations", {})["items"]
        return next((item["figures"]["pending"] for item in items if item["kind"] == "consent_pending"), 0)

    assert pending(member) == pending(viewer) + 1


def test_a_plan_updated_by_a_colleague_keeps_the_campaigns_they_cannot_see(people, marketer):
    member = people["member"]
    mine = ok(
        marketer,
        "createMarketingCampaign",
        {"campaign": {"name": f"Hidden {tag()}", "subject": "a", "body": "b", "visibility": "private"}},
    )
    shared = ok(
        marketer,
        "createMarketingCampaign",
        {"campaign": {"name": f"Open {tag()}", "subject": "a", "body": "b"}},
    )
    plan = ok(
        marketer,
        "createMarketingPlan",
        {"plan": {"name": f"Q2 {tag()}", "campaignIds": [mine["id"], shared["id"]]}},
    )
    seen = ok(member, "getMarketingPlan", {"planId": plan["id"]})
    assert [c["id"] for c in seen["campaigns"]] == [shared["id"]]
    # The member drops the campaign they see; the one they cannot see stays linked.
    ok(member, "updateMarketingPlan", {"planId": plan["id"], "changes": {"campaignIds": []}})
    linked = set(MarketingPlan.objects.get(pk=plan["id"]).campaigns.values_list("id", flat=True))
    assert linked == {mine["id"]}


def test_content_updated_to_nothing_keeps_its_text(people, marketer):
    made = ok(
        marketer,
        "createMarketingContent",
        {
            "contentItem": {
                "name": f"Copy {tag()}",
                "type": "email",
                "title": "Spring",
                "body": "<p>Our spring range</p>",
                "variants": [{"label": "B", "body": "<p>Spring is here</p>"}],
            }
        },
    )
    for body in ("", "   ", "<script>alert(1)</script>"):
        said = refused(
            marketer, "updateMarketingContent", {"contentId": made["id"], "changes": {"body": body}}
        )
        assert said.startswith("`body`"), said
    read = ok(marketer, "getMarketingContent", {"contentId": made["id"]})
    assert "Our spring range" in _text(read)


def test_steps_changed_while_paused_send_nobody_a_step_twice(people, marketer, mail_server):
    postal_address()
    no_quiet_hours()
    label = f"p{tag()}"
    contacts = consenting(marketer, 3, label=label)
    box = mailbox(marketer)
    steps = [
        {"subject": "Welcome", "body": "Hello"},
        {"subject": "Tips", "body": "Two tips.", "delayHours": 24},
    ]
    made = ok(
        marketer,
        "createEmailSequence",
        {"sequence": {"name": f"Paused {label}", "steps": steps, "mailboxId": box.pk}},
    )
    ok(marketer, "enrollInEmailSequence", {"sequenceId": made["id"], "contactIds": [c.pk for c in contacts]})
    ok(marketer, "activateEmailSequence", {"sequenceId": made["id"]}, **ELICIT)
    sequence = EmailSequence.objects.select_related("mailbox").get(pk=made["id"])
    assert sequences.tick(sequence) == 3
    ok(marketer, "activateEmailSequence", {"sequenceId": made["id"], "pause": True}, **ELICIT)
    # A step put before the one they got, or the one they got taken out: the steps they passed
    # would move under them, and the next run would send one again.
    for changed in (
        [{"subject": "Intro", "body": "First"}, *steps],
        steps[1:],
        [{"subject": "Welcome!", "body": "Hello again"}, steps[1]],
    ):
        said = refused(
            marketer, "updateEmailSequence", {"sequenceId": made["id"], "changes": {"steps": changed}}
        )
        assert said.startswith("`steps"), said
    # Steps after theirs change freely.
    ok(
        marketer,
        "updateEmailSequence",
        {
            "sequenceId": made["id"],
            "changes": {"steps": [steps[0], {"subject": "Tips", "body": "Three tips."}]},
        },
    )
    ok(marketer, "activateEmailSequence", {"sequenceId": made["id"]}, **ELICIT)
    sequence = EmailSequence.objects.select_related("mailbox").get(pk=made["id"])
    assert sequences.tick(sequence, now=timezone.now() + timedelta(hours=25)) == 3
    subjects = [message["Subject"] for message in inbox_of(mail_server, contacts[0].email)]
    assert sorted(subjects) == ["Tips", "Welcome"]


def test_a_pause_stops_a_run_where_it_is(people, marketer, mail_server, monkeypatch):
    postal_address()
    no_quiet_hours()
    label = f"z{tag()}"
    consenting(marketer, 8, label=label)
    audience = ok(
        marketer,
        "createMarketingSegment",
        {"segment": {"name": f"Pause {label}", "rules": [{"field": "tags", "op": "has", "value": label}]}},
    )
    draft = ok(
        marketer,
        "createMarketingCampaign",
        {
            "campaign": {
                "name": f"Pause {label}",
                "subject": "Hi",
                "body": "Hello",
                "segmentId": audience["id"],
                "mailboxId": mailbox(marketer).pk,
            }
        },
    )
    ok(marketer, "launchMarketingCampaign", {"campaignId": draft["id"]}, **ELICIT)
    deliver, went = sending._deliver, []

    def paused_after_two(campaign, send, settings):  # type: ignore[no-untyped-def]
        went.append(send.pk)
        if len(went) == 2:  # the person pauses it while the run is on its way
            ok(marketer, "pauseMarketingCampaign", {"campaignId": draft["id"]})
        return deliver(campaign, send, settings)

    monkeypatch.setattr(sending, "_deliver", paused_after_two)
    assert sending.run(Campaign.objects.select_related("mailbox").get(pk=draft["id"])) == 2
    figures = ok(marketer, "getCampaignPerformance", {"campaignId": draft["id"]})["figures"]
    assert (figures["sent"], figures["queued"]) == (2, 6)
    assert Campaign.objects.get(pk=draft["id"]).status == "paused"


def test_a_pause_stops_a_sequence_run_where_it_is(people, marketer, mail_server, monkeypatch):
    postal_address()
    no_quiet_hours()
    contacts = consenting(marketer, 6, label=f"y{tag()}")
    made = ok(
        marketer,
        "createEmailSequence",
        {
            "sequence": {
                "name": f"Pause {tag()}",
                "steps": [{"subject": "Welcome", "body": "Hello"}],
                "mailboxId": mailbox(marketer).pk,
            }
        },
    )
    ok(marketer, "enrollInEmailSequence", {"sequenceId": made["id"], "contactIds": [c.pk for c in contacts]})
    ok(marketer, "activateEmailSequence", {"sequenceId": made["id"]}, **ELICIT)
    deliver, went = sequences._deliver, []

    def paused_after_two(*args):  # type: ignore[no-untyped-def]
        went.append(args)
        if len(went) == 2:
            ok(marketer, "activateEmailSequence", {"sequenceId": made["id"], "pause": True}, **ELICIT)
        return deliver(*args)

    monkeypatch.setattr(sequences, "_deliver", paused_after_two)
    assert sequences.tick(EmailSequence.objects.select_related("mailbox").get(pk=made["id"])) == 2
    assert ok(marketer, "getEmailSequence", {"sequenceId": made["id"]})["figures"]["sent"] == 2


def test_a_strategy_is_written_from_the_figures_one_sees(people, marketer):
    viewer = people["viewer"]
    before = analytics.facts(viewer)
    made = sequences.sequence_create(
        actor=marketer,
        fields={"name": f"Hidden {tag()}", "steps": [{"subject": "a", "body": "b"}], "visibility": "private"},
    )
    enrollment = Enrollment.objects.create(sequence=made, email=f"e-{tag()}@example.org")
    StepSend.objects.create(enrollment=enrollment, round=1, step=0, email=enrollment.email, state="sent")
    assert analytics.facts(viewer)["stepsSent"] == before["stepsSent"]
    assert analytics.facts(marketer)["stepsSent"] >= 1


def test_a_contact_archived_after_the_launch_gets_nothing(people, marketer, mail_server):
    postal_address()
    no_quiet_hours()
    label = f"a{tag()}"
    contacts = consenting(marketer, 3, label=label)
    audience = ok(
        marketer,
        "createMarketingSegment",
        {"segment": {"name": f"Gone {label}", "rules": [{"field": "tags", "op": "has", "value": label}]}},
    )
    draft = ok(
        marketer,
        "createMarketingCampaign",
        {
            "campaign": {
                "name": f"Gone {label}",
                "subject": "Hi",
                "body": "Hello",
                "segmentId": audience["id"],
                "mailboxId": mailbox(marketer).pk,
            }
        },
    )
    ok(marketer, "launchMarketingCampaign", {"campaignId": draft["id"]}, **ELICIT)
    contacts[0].trash(marketer)
    assert sending.run(Campaign.objects.select_related("mailbox").get(pk=draft["id"])) == 2
    assert inbox_of(mail_server, contacts[0].email) == []


def test_delivered_counts_the_sent_that_did_not_bounce_afterwards(people, marketer):
    from apps.marketing.models import Send
    from apps.marketing.sending import source_of
    from apps.marketing.tests.factories import campaign

    made = campaign(marketer)
    label = tag()
    for name, state in [("a", "sent"), ("b", "sent"), ("c", "sent"), ("d", "failed"), ("e", "failed")]:
        Send.objects.create(campaign=made, email=f"{name}-{label}@example.org", state=state)
    # d was refused at sending (a bounce at once); a bounced after it was sent; e failed otherwise.
    suppression.suppress(f"d-{label}@example.org", reason="bounced", source=source_of(made.pk))
    suppression.suppress(f"a-{label}@example.org", reason="bounced", source=source_of(made.pk))

    figures = ok(marketer, "getCampaignPerformance", {"campaignId": made.pk})["figures"]

    assert (figures["sent"], figures["bounced"], figures["delivered"]) == (3, 2, 2)
