"""What a week of automations found: a schedule naming a day that never comes (30 February) saved
and then crashing its activation; a payload given by hand or posted to a webhook with a NUL or NaN
crashing the run's insert; and a run on someone else's private task showing that task to every
reader of the listener's runs."""

import pytest

from apps.catalogue.testing import confirmed, ok, refused
from apps.listeners import services
from apps.listeners.models import Listener, Run
from apps.listeners.tests.factories import HELP_STEP, ListenerFactory
from apps.tasks.tests.factories import TaskFactory

ELICIT = {"capabilities": {"elicitation": {}}, "elicit": confirmed}


def test_a_schedule_that_never_comes_is_refused_not_a_crash(people):
    member = people["member"]
    text = refused(
        member, "createListener", {"name": "Leap day", "trigger": {"kind": "schedule", "cron": "0 9 30 2 *"}}
    )
    assert "trigger.cron" in text and "ever comes" in text
    assert not Listener.objects.filter(name="Leap day").exists()
    listener = ListenerFactory(
        actor=member, name="Daily", trigger_kind="schedule", trigger={"cron": "0 9 * * *"}
    )
    text = refused(
        member,
        "updateListener",
        {"listenerId": listener.pk, "changes": {"trigger": {"kind": "schedule", "cron": "0 9 31 4 *"}}},
    )
    assert "ever comes" in text
    assert Listener.objects.get(pk=listener.pk).trigger["cron"] == "0 9 * * *"


@pytest.mark.parametrize("payload", [{"note": "a\x00b"}, {"n": float("nan")}, {"n": float("inf")}])
def test_a_run_by_hand_refuses_a_payload_the_database_cannot_keep(people, payload):
    member = people["member"]
    listener = ListenerFactory(actor=member, name="By hand")
    text = refused(member, "triggerListener", {"listenerId": listener.pk, "payload": payload}, **ELICIT)
    assert "payload" in text
    assert not Run.objects.filter(listener=listener).exists()


def test_a_run_on_someone_elses_private_record_is_not_read_by_others(people):
    admin, member, viewer = people["admin"], people["member"], people["viewer"]
    secret = TaskFactory(actor=member, title="Quietly hire a new CFO", visibility="private")
    listener = ListenerFactory(
        actor=admin,
        name="Task follow-up",
        trigger_kind="record",
        trigger={"entityType": "task", "events": ["created"]},
    )
    ok(admin, "triggerListener", {"listenerId": listener.pk, "recordId": secret.pk}, **ELICIT)
    runs = ok(viewer, "getListenerRuns", {"listenerId": listener.pk})
    assert runs["items"][0]["payload"]["record"] == {"id": secret.pk} and "CFO" not in str(runs)
    # The person whose task it is reads it there, as the listener's owner does.
    assert "CFO" in str(ok(member, "getListenerRuns", {"listenerId": listener.pk}))
    assert "CFO" in str(ok(admin, "getListenerRuns", {"listenerId": listener.pk}))


def test_a_webhook_body_the_database_cannot_keep_is_a_clear_400(people, acme_client):
    from apps.listeners.tests.test_listeners import _signed

    owner = people["owner"]
    made = ok(owner, "createListener", {"name": "Hook", "trigger": {"kind": "webhook"}, "steps": [HELP_STEP]})
    listener = Listener.objects.get(pk=made["listener"]["id"])
    services.listener_activate(actor=owner, listener=listener, approve=[])
    path = f"/hooks/listeners/{listener.webhook_token}/"
    for body in (b'{"note": "a\\u0000b"}', b'{"total": NaN}'):
        answer = acme_client.post(
            path, body, content_type="application/json", **_signed(made["webhookSecret"], body)
        )
        assert answer.status_code == 400 and answer.json()["detail"]
    assert not Run.objects.filter(listener=listener).exists()


def test_a_trigger_changed_in_part_keeps_what_it_does_not_name(people):
    member = people["member"]
    listener = ListenerFactory(
        actor=member,
        name="Mondays",
        trigger_kind="schedule",
        trigger={"cron": "0 9 * * 1", "zone": "Europe/Paris"},
    )
    ok(
        member,
        "updateListener",
        {"listenerId": listener.pk, "changes": {"trigger": {"kind": "schedule", "zone": "Asia/Tokyo"}}},
    )
    listener.refresh_from_db()
    assert listener.trigger == {"cron": "0 9 * * 1", "zone": "Asia/Tokyo"}
    # Another kind of trigger starts afresh: nothing of the schedule is kept.
    record = {"kind": "record", "entityType": "task"}
    ok(member, "updateListener", {"listenerId": listener.pk, "changes": {"trigger": record}})
    listener.refresh_from_db()
    assert listener.trigger == {"entityType": "task", "events": ["created", "updated"], "fields": []}


def test_a_listener_whose_owner_left_is_paused_at_its_first_run(people):
    from apps.listeners import runner
    from apps.listeners.tests.factories import active

    leaver = people["admin"]
    listener = active(leaver, name="Weekly digest")
    run = services.listener_trigger(actor=leaver, listener=listener, payload={})
    type(leaver).objects.filter(pk=leaver.pk).update(is_active=False)

    assert runner.run(run.pk) == "failed"

    listener.refresh_from_db()
    assert listener.status == "paused"
    assert "no longer active" in Run.objects.get(pk=run.pk).error
