"""Listeners through the tools and the runner: per tool a normal call, a bad input and a refusal;
who sees what; and the scenarios of the area (an invoice paid that makes a task and e-mails the
owner once, a nightly schedule across DST, a webhook badly signed, a flow that triggers itself)."""

import json
import time
from datetime import UTC, datetime, timedelta

import pytest
from django.core import mail
from django.utils import timezone

from apps.accounting.tests.factories import issued, paid
from apps.catalogue.dispatch import ToolNotFound
from apps.catalogue.models import ToolCall
from apps.catalogue.registry import Marker, tool
from apps.catalogue.shapes import Done
from apps.catalogue.testing import call, confirmed, ok, person_without, refused, temporary_tools
from apps.core import kinds
from apps.listeners import events, runner, services
from apps.listeners.lib import signing
from apps.listeners.models import Listener, Run, TriggerEvent
from apps.listeners.permissions import ListenersPerm
from apps.listeners.tests.factories import HELP_STEP, ListenerFactory, active
from apps.tasks.models import Task

ELICIT = {"capabilities": {"elicitation": {}}, "elicit": confirmed}


def run_all() -> list[Run]:
    """Runs every queued run until none is left (what the worker does), in order."""
    done = []
    for _round in range(20):
        queued = list(Run.objects.filter(status=Run.Status.QUEUED).order_by("pk"))
        if not queued:
            break
        for queued_run in queued:
            runner.run(queued_run.pk)
            queued_run.refresh_from_db()
            done.append(queued_run)
    return done


TOOLS = {
    "createListener": ("listeners.edit", {"name": "X", "trigger": {"kind": "manual"}}),
    "getListener": ("listeners.view", {"listenerId": 1}),
    "updateListener": ("listeners.edit", {"listenerId": 1, "changes": {"name": "Y"}}),
    "updateListenerFlow": ("listeners.edit", {"listenerId": 1, "steps": []}),
    "listListeners": ("listeners.view", {}),
    "activateListener": ("listeners.activate", {"listenerId": 1}),
    "pauseListener": ("listeners.edit", {"listenerId": 1}),
    "disableListener": ("listeners.delete", {"listenerId": 1}),
    "triggerListener": ("listeners.edit", {"listenerId": 1}),
    "getListenerRuns": ("listeners.view", {"listenerId": 1}),
    "cancelListenerRun": ("listeners.edit", {"runId": 1}),
    "getListenerHelp": ("listeners.view", {}),
    "searchEntities": ("listeners.view", {"query": "x"}),
}


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_a_role_without_the_permission_cannot_call_it(acme, name):
    permission, arguments = TOOLS[name]
    person = person_without(permission, email=f"no-{name.lower()}@acme.example")
    with pytest.raises(ToolNotFound):
        call(person, name, arguments)


def test_markers_are_high_risk_on_activation_and_triggering(acme):
    from apps.catalogue import registry

    assert Marker.HIGH_RISK in registry.get("activateListener").markers
    assert Marker.HIGH_RISK in registry.get("triggerListener").markers
    assert ListenersPerm.EDIT.value == "listeners.edit"


# --- create, read, update, list ------------------------------------------------------------------


def test_create_get_update_and_list(people):
    member = people["member"]
    made = ok(
        member,
        "createListener",
        {
            "name": "Nightly digest",
            "trigger": {"kind": "schedule", "cron": "0  2 * * *", "zone": "Europe/Paris"},
            "steps": [HELP_STEP, {"id": "mail", "emailOwner": {"subject": "Done", "text": "At {{ now }}"}}],
        },
    )
    listener = made["listener"]
    assert listener["status"] == "draft" and listener["trigger"] == {
        "cron": "0 2 * * *",
        "zone": "Europe/Paris",
    }
    assert [step["id"] for step in listener["steps"]] == ["help", "mail"] and listener["version"] == 1
    got = ok(member, "getListener", {"listenerId": listener["id"]})
    assert got["riskySteps"] == [] and got["webhookUrl"] is None
    updated = ok(member, "updateListener", {"listenerId": listener["id"], "changes": {"name": "Digest"}})
    assert updated["changed"] == ["name"]
    names = [row["name"] for row in ok(member, "listListeners", {"query": "digest"})["items"]]
    assert names == ["Digest"]


def test_bad_input_is_refused_and_nothing_is_written(people):
    member = people["member"]
    before = Listener.objects.count()
    text = refused(
        member, "createListener", {"name": "X", "trigger": {"kind": "schedule", "cron": "every day"}}
    )
    assert "trigger.cron" in text
    text = refused(
        member,
        "createListener",
        {"name": "X", "trigger": {"kind": "record", "entityType": "no_such_kind"}},
    )
    assert "trigger.entityType" in text
    text = refused(
        member, "createListener", {"name": "X", "trigger": {"kind": "manual"}, "filter": "import os"}
    )
    assert "filter" in text
    assert Listener.objects.count() == before
    assert "changes" in refused(
        member, "updateListener", {"listenerId": ListenerFactory(actor=member).pk, "changes": {}}
    )


def test_a_flow_is_checked_against_the_tools_on_save(people):
    member = people["member"]
    listener = ListenerFactory(actor=member)
    unknown = refused(
        member, "updateListenerFlow", {"listenerId": listener.pk, "steps": [{"tool": "makeCoffee"}]}
    )
    assert "Step 1 (makeCoffee): tool" in unknown
    wrong = refused(
        member,
        "updateListenerFlow",
        {
            "listenerId": listener.pk,
            "steps": [HELP_STEP, {"id": "t", "tool": "createTask", "arguments": {"titel": "x"}}],
        },
    )
    assert "Step 2 (createTask)" in wrong and "arguments.titel" in wrong
    typed = refused(
        member,
        "updateListenerFlow",
        {
            "listenerId": listener.pk,
            "steps": [{"tool": "getListenerRuns", "arguments": {"listenerId": "one"}}],
        },
    )
    assert "arguments.listenerId" in typed
    broken = refused(
        member, "updateListenerFlow", {"listenerId": listener.pk, "steps": [{"if": "record.total >"}]}
    )
    assert "Step 1 (if): if" in broken
    listener.refresh_from_db()
    assert listener.version == 1  # nothing saved
    # A whole template stands for a value of any type: its type is checked when the run calls.
    saved = ok(
        member,
        "updateListenerFlow",
        {
            "listenerId": listener.pk,
            "steps": [{"tool": "getListenerRuns", "arguments": {"listenerId": "{{ listener.id }}"}}],
        },
    )
    assert saved["version"] == 2


# --- who sees what -------------------------------------------------------------------------------


def test_a_private_listener_is_its_owners_alone(people):
    member, viewer = people["member"], people["viewer"]
    private = ListenerFactory(actor=member, name="Secret automation", visibility="private")
    run = services.listener_trigger(actor=member, listener=private, payload={})
    assert run is not None
    listed = ok(viewer, "listListeners", {"limit": 100})["items"]
    assert private.pk not in [row["id"] for row in listed]
    for name, arguments in (
        ("getListener", {"listenerId": private.pk}),
        ("getListenerRuns", {"listenerId": private.pk}),
    ):
        text = refused(viewer, name, arguments)
        assert "not found" in text and "Secret" not in text
    assert "Secret" not in refused(
        people["admin"] if False else viewer, "getListener", {"listenerId": private.pk}
    )
    other_member = person_without("listeners.admin", email="editor2@acme.example")
    assert "not found" in refused(other_member, "cancelListenerRun", {"runId": run.pk})
    assert "Secret" not in json.dumps(ok(viewer, "searchEntities", {"query": "Secret automation"}))
    found = ok(member, "searchEntities", {"query": "Secret automation", "entityTypes": ["listener"]})
    assert found["items"][0]["id"] == private.pk


# --- activation, approvals and the run through the dispatcher -----------------------------------


def test_risky_steps_need_approval_and_run_only_when_approved(people):
    owner = people["owner"]
    target = ListenerFactory(actor=owner, name="Target")
    steps = [{"id": "kick", "tool": "triggerListener", "arguments": {"listenerId": target.pk}}]
    listener = ListenerFactory(actor=owner, name="Kicker", steps=steps)
    text = refused(owner, "activateListener", {"listenerId": listener.pk}, **ELICIT)
    assert "kick (triggerListener)" in text and Listener.objects.get(pk=listener.pk).status == "draft"
    assert "no step" in refused(
        owner, "activateListener", {"listenerId": listener.pk, "approveSteps": ["nope"]}, **ELICIT
    )
    activated = ok(owner, "activateListener", {"listenerId": listener.pk, "approveSteps": ["kick"]}, **ELICIT)
    assert activated["approved"][0]["id"] == "kick"

    run = services.listener_trigger(actor=owner, listener=listener, payload={})
    assert runner.run(run.pk) == "succeeded"
    assert Run.objects.filter(listener=target).count() == 1  # the approved step ran
    audit = ToolCall.objects.filter(tool="triggerListener", credential=f"listener:{listener.pk}")
    assert audit.count() == 1 and "Kicker" in audit.get().client

    # A new flow version withdraws the approval: the same step is refused at run time.
    services.flow_save(actor=owner, listener=listener, steps=steps)
    listener.refresh_from_db()
    again = services.listener_trigger(actor=owner, listener=listener, payload={})
    assert runner.run(again.pk) == "failed"
    again.refresh_from_db()
    assert "not approved" in again.error and Run.objects.filter(listener=target).count() == 1


def test_the_owners_current_permissions_decide_at_run_time(people):
    member = people["member"]
    steps = [{"id": "t", "tool": "createTask", "arguments": {"title": "From a listener"}}]
    listener = active(member, steps=steps)
    run = services.listener_trigger(actor=member, listener=listener, payload={})
    member.role = people["viewer"].role
    member.save(update_fields=["role"])
    assert runner.run(run.pk) == "failed"
    run.refresh_from_db()
    assert "may not use createTask now" in run.error
    assert not Task.objects.filter(title="From a listener").exists()


def test_trigger_pause_disable_and_cancel(people):
    member = people["member"]
    listener = active(member)
    triggered = ok(member, "triggerListener", {"listenerId": listener.pk, "payload": {"a": 1}}, **ELICIT)
    run_id = triggered["run"]["id"]
    cancelled = ok(member, "cancelListenerRun", {"runId": run_id})
    assert cancelled["status"] == "cancelled"
    assert "only a queued or running" in refused(member, "cancelListenerRun", {"runId": run_id})
    assert ok(member, "pauseListener", {"listenerId": listener.pk})["was"] == "active"
    assert Listener.objects.get(pk=listener.pk).status == "paused"
    queued = services.listener_trigger(actor=member, listener=listener, payload={})
    assert ok(member, "disableListener", {"listenerId": listener.pk})["cancelledRuns"] == 1
    assert Run.objects.get(pk=queued.pk).status == "cancelled"
    assert "disabled" in refused(member, "triggerListener", {"listenerId": listener.pk}, **ELICIT)
    assert "disabled" in refused(member, "activateListener", {"listenerId": listener.pk}, **ELICIT)


def test_a_running_run_stops_before_its_next_step_when_cancelled(people):
    member = people["member"]
    listener = active(member, steps=[HELP_STEP, {"id": "again", "tool": "getListenerHelp", "arguments": {}}])
    run = services.listener_trigger(actor=member, listener=listener, payload={})
    Run.objects.filter(pk=run.pk).update(status="running", next_step=1, heartbeat_at=timezone.now())
    services.run_cancel(actor=member, run=Run.objects.get(pk=run.pk))
    Run.objects.filter(pk=run.pk).update(status="queued")
    assert runner.run(run.pk) == "cancelled"
    assert Run.objects.get(pk=run.pk).results == []


def test_get_runs_and_help(people):
    member = people["member"]
    listener = active(member)
    run = services.listener_trigger(actor=member, listener=listener, payload={"note": "hello"})
    runner.run(run.pk)
    runs = ok(member, "getListenerRuns", {"listenerId": listener.pk, "status": "succeeded"})
    assert runs["total"] == 1 and runs["items"][0]["results"][0]["outcome"] == "ok"
    assert runs["items"][0]["payload"] == {"manual": {"note": "hello"}}
    helped = ok(member, "getListenerHelp", {"topic": "triggers"})
    assert "sales_document" in helped["entityTypes"] and signing.SIGNATURE_HEADER in helped["text"]
    assert refused(member, "getListenerHelp", {"topic": "nope"})


def test_the_help_says_how_deep_runs_may_cause_runs_as_this_server_is_set(people, settings):
    settings.ATRIUM_LISTENERS_MAX_DEPTH = 5
    helped = ok(people["member"], "getListenerHelp", {"topic": "safety"})
    assert "runs 5 deep stops" in helped["text"] and "{depth}" not in helped["text"]


# --- retries, dead letters, a worker lost ----------------------------------------------------------


def test_a_failure_of_the_server_is_retried_with_backoff_then_dead(people, settings):
    settings.ATRIUM_LISTENERS_MAX_ATTEMPTS = 2
    member = people["member"]

    @tool("listenerFlaky", permission=ListenersPerm.VIEW, title="Flaky", read_only=True, register_it=False)
    def flaky(ctx) -> Done:  # type: ignore[no-untyped-def]
        """Fails on the server, always."""
        raise RuntimeError("down")

    with temporary_tools(flaky):
        listener = active(member, steps=[{"id": "f", "tool": "listenerFlaky", "arguments": {}}])
        run = services.listener_trigger(actor=member, listener=listener, payload={})
        assert runner.run(run.pk) == "queued"
        run.refresh_from_db()
        assert run.attempts == 1 and run.due_at > timezone.now() + timedelta(seconds=20)
        Run.objects.filter(pk=run.pk).update(due_at=timezone.now())
        assert runner.run(run.pk) == "dead"
    assert "Dead after 2 attempts" in Run.objects.get(pk=run.pk).error


def test_a_run_a_worker_lost_resumes_from_its_step_or_fails(people, settings):
    member = people["member"]
    listener = active(member, steps=[HELP_STEP, {"id": "second", "tool": "getListenerHelp", "arguments": {}}])
    run = services.listener_trigger(actor=member, listener=listener, payload={})
    long_ago = timezone.now() - timedelta(hours=1)
    done = [{"step": "help", "outcome": "ok", "result": {}}]
    Run.objects.filter(pk=run.pk).update(
        status="running", next_step=1, results=done, heartbeat_at=long_ago, attempts=1
    )
    assert runner.sweep() >= 1
    assert Run.objects.get(pk=run.pk).status == "queued"
    assert runner.run(run.pk) == "succeeded"
    assert [entry["step"] for entry in Run.objects.get(pk=run.pk).results] == ["help", "second"]

    settings.ATRIUM_LISTENERS_MAX_ATTEMPTS = 1
    lost = services.listener_trigger(actor=member, listener=listener, payload={})
    Run.objects.filter(pk=lost.pk).update(status="running", heartbeat_at=long_ago, attempts=1)
    runner.sweep()
    lost.refresh_from_db()
    assert lost.status == "failed" and "Interrupted" in lost.error


# --- scenarios -------------------------------------------------------------------------------------


def test_invoice_paid_makes_one_task_and_one_email_even_delivered_twice(people):
    owner = people["owner"]
    steps = [
        {
            "id": "task",
            "tool": "createTask",
            "arguments": {"title": "Thank {{ record.customer_name }} for {{ record.number }}"},
        },
        {
            "id": "mail",
            "emailOwner": {
                "subject": "{{ record.number }} is paid",
                "text": "Task {{ steps.task.id }} made.",
            },
        },
    ]
    listener = active(
        owner,
        name="Paid invoices",
        trigger_kind="record",
        trigger={"entityType": "sales_document", "events": ["updated"], "fields": ["status"]},
        filter="record.status == 'paid'",
        steps=steps,
    )
    invoice = issued(owner)
    assert Run.objects.filter(listener=listener).count() == 0  # approved, not paid
    mail.outbox.clear()
    paid(owner, invoice)
    invoice.refresh_from_db()
    assert invoice.status == "paid"
    runs = list(Run.objects.filter(listener=listener))
    assert len(runs) == 1 and runs[0].payload["changes"]["status"][1] == "paid"
    # The invoice's issue was an event too (its status changed), which the filter let pass by.
    assert TriggerEvent.objects.filter(listener=listener).count() == 2
    event = runs[0].event

    # The same event delivered again (a retried delivery): nothing more runs.
    again = events.deliver(
        kind=kinds.kind_named("sales_document"),
        record_id=invoice.pk,
        event="updated",
        record=runs[0].payload["record"],
        changes=runs[0].payload["changes"],
        key=event.key.removeprefix("record:"),
    )
    assert again == [] and TriggerEvent.objects.get(pk=event.pk).deliveries == 2

    run_all()
    run = Run.objects.get(listener=listener)
    assert run.status == "succeeded", run.error
    tasks = Task.objects.filter(title=f"Thank Northwind Traders for {invoice.number}")
    assert tasks.count() == 1
    assert [message.subject for message in mail.outbox] == [f"{invoice.number} is paid"]
    assert mail.outbox[0].to == [owner.email] and f"Task {tasks.get().pk} made." in mail.outbox[0].body
    assert ToolCall.objects.filter(tool="createTask", credential=f"listener:{listener.pk}").count() == 1


def test_a_nightly_schedule_runs_once_a_night_at_local_time_across_dst(people):
    owner = people["owner"]
    listener = active(
        owner,
        trigger_kind="schedule",
        trigger={"cron": "30 2 * * *", "zone": "Europe/Paris"},
        steps=[HELP_STEP],
    )
    fired = []
    at = datetime(2026, 10, 23, 12, tzinfo=UTC)
    Listener.objects.filter(pk=listener.pk).update(next_run_at=datetime(2026, 10, 24, 0, 30, tzinfo=UTC))
    while at < datetime(2026, 10, 27, 12, tzinfo=UTC):
        at += timedelta(minutes=30)
        if services.scheduled_due(now=at):
            fired.append(at)
        services.scheduled_due(now=at)  # the same minute twice: once only
    scheduled = [run.payload["localTime"] for run in Run.objects.filter(listener=listener).order_by("pk")]
    assert scheduled == [
        "2026-10-24T02:30:00+02:00",
        "2026-10-25T02:30:00+02:00",  # the night clocks go back: 02:30 happens twice, runs once
        "2026-10-26T02:30:00+01:00",
        "2026-10-27T02:30:00+01:00",
    ]
    assert len(fired) == 4


def _signed(secret: str, body: bytes, *, at: float | None = None) -> dict[str, str]:
    stamp = str(int(at if at is not None else time.time()))
    return {
        f"HTTP_{signing.TIMESTAMP_HEADER.upper().replace('-', '_')}": stamp,
        f"HTTP_{signing.SIGNATURE_HEADER.upper().replace('-', '_')}": signing.signature(secret, stamp, body),
    }


def test_webhooks_run_only_when_signed_fresh_and_new(people, acme_client):
    owner = people["owner"]
    created = ok(
        owner, "createListener", {"name": "Hook", "trigger": {"kind": "webhook"}, "steps": [HELP_STEP]}
    )
    made = created
    secret, listener_id = made["webhookSecret"], made["listener"]["id"]
    path = "/hooks/listeners/" + Listener.objects.get(pk=listener_id).webhook_token + "/"
    body = json.dumps({"order": 7}).encode()
    assert (
        acme_client.post(path, body, content_type="application/json", **_signed(secret, body)).status_code
        == 404
    )
    services.listener_activate(actor=owner, listener=Listener.objects.get(pk=listener_id), approve=[])

    bad = acme_client.post(path, body, content_type="application/json", **_signed("not the secret", body))
    assert bad.status_code == 401 and Run.objects.filter(listener_id=listener_id).count() == 0
    stale = acme_client.post(
        path, body, content_type="application/json", **_signed(secret, body, at=time.time() - 3600)
    )
    assert stale.status_code == 401 and "replay" in stale.json()["detail"]
    unsigned = acme_client.post(path, body, content_type="application/json")
    assert unsigned.status_code == 401 and Run.objects.filter(listener_id=listener_id).count() == 0

    headers = {**_signed(secret, body), "HTTP_X_ATRIUM_DELIVERY": "d-1"}
    good = acme_client.post(path, body, content_type="application/json", **headers)
    assert good.status_code == 202
    assert acme_client.post(path, body, content_type="application/json", **headers).status_code == 200
    run = Run.objects.get(listener_id=listener_id)
    assert run.payload == {"body": {"order": 7}, "deliveryId": "d-1"}


def test_a_flow_that_triggers_itself_stops_at_the_depth_bound(people, settings):
    settings.ATRIUM_LISTENERS_MAX_DEPTH = 3
    owner = people["owner"]
    listener = active(
        owner,
        name="Echo",
        trigger_kind="record",
        trigger={"entityType": "task", "events": ["created"]},
        steps=[{"id": "t", "tool": "createTask", "arguments": {"title": "Echo of {{ record.title }}"}}],
    )
    ok(owner, "createTask", {"title": "Start"})
    run_all()
    runs = list(Run.objects.filter(listener=listener).order_by("pk"))
    assert [run.depth for run in runs] == [0, 1, 2, 3]
    assert [run.status for run in runs] == ["succeeded", "succeeded", "succeeded", "failed"]
    assert "depth bound (3)" in runs[-1].error and runs[-1].results == []
    assert Task.objects.filter(title__startswith="Echo of").count() == 3


def test_the_automations_page_lists_runs_and_pauses(people, acme_client):
    member = people["member"]
    listener = active(member, name="Page automation")
    run = services.listener_trigger(actor=member, listener=listener, payload={})
    Run.objects.filter(pk=run.pk).update(status="failed", error="It broke")
    client = acme_client
    client.force_login(member)
    page = client.get("/settings/automations/")
    assert page.status_code == 200 and b"Page automation" in page.content and b"It broke" in page.content
    assert client.post(f"/settings/automations/runs/{run.pk}/retry/").status_code == 302
    assert Run.objects.get(pk=run.pk).status == "queued"
    assert client.post(f"/settings/automations/{listener.pk}/pause/").status_code == 302
    assert Listener.objects.get(pk=listener.pk).status == "paused"
    assert client.post(f"/settings/automations/{listener.pk}/resume/").status_code == 302
    assert Listener.objects.get(pk=listener.pk).status == "active"
