"""A week of automations, as the member who owns them lives it: through the tools and the
Settings → Automations page, asserting what they see at each step. A record listener on new
contacts, a nightly schedule, a shop's webhook, a pause and a resume, a step failing until it is
dead and retried from the page, a cancelled run; a viewer and another person beside them."""

import json
from datetime import UTC, datetime

from django.core import mail

from apps.catalogue.registry import tool
from apps.catalogue.shapes import Done
from apps.catalogue.testing import confirmed, ok, refused, temporary_tools
from apps.listeners import services
from apps.listeners.models import Listener, Run
from apps.listeners.permissions import ListenersPerm
from apps.listeners.tests.test_listeners import _signed, run_all
from apps.tasks.models import Task

ELICIT = {"capabilities": {"elicitation": {}}, "elicit": confirmed}


def _row(page: str, listener_id: int) -> str:
    """The page's row of one listener, as a person reads it."""
    start = page.index(f'id="listener-{listener_id}"')
    return page[start : page.index("</tr>", start)]


def _runs(person, listener_id, **given):  # type: ignore[no-untyped-def]
    return ok(person, "getListenerRuns", {"listenerId": listener_id, **given})["items"]


def test_a_week_of_automations(people, acme_client, settings):
    settings.ATRIUM_LISTENERS_MAX_ATTEMPTS = 2
    member, viewer, owner = people["member"], people["viewer"], people["owner"]

    # Monday: new contacts get a call task and the owner an e-mail.
    welcome = ok(
        member,
        "createListener",
        {
            "name": "Welcome new contacts",
            "trigger": {"kind": "record", "entityType": "contact", "events": ["created"]},
            "steps": [
                {"id": "task", "tool": "createTask", "arguments": {"title": "Call {{ record.first_name }}"}},
                {
                    "id": "mail",
                    "emailOwner": {"subject": "New contact", "text": "{{ record.first_name }} joined"},
                },
            ],
        },
    )["listener"]
    assert welcome["status"] == "draft"
    ok(member, "createContact", {"contact": {"firstName": "Before"}})
    assert _runs(member, welcome["id"]) == []  # a draft takes no events
    ok(member, "activateListener", {"listenerId": welcome["id"]}, **ELICIT)
    ok(member, "createContact", {"contact": {"firstName": "Ada"}})
    run_all()
    runs = _runs(member, welcome["id"])
    assert [run["status"] for run in runs] == ["succeeded"]
    assert [entry["outcome"] for entry in runs[0]["results"]] == ["ok", "ok"]
    assert Task.objects.filter(title="Call Ada").count() == 1 and not Task.objects.filter(title="Call Before")
    assert [message.subject for message in mail.outbox] == ["New contact"]
    assert mail.outbox[0].to == [member.email]

    # A nightly digest at 02:00 London time.
    nightly = ok(
        member,
        "createListener",
        {
            "name": "Nightly digest",
            "trigger": {"kind": "schedule", "cron": "0 2 * * *", "zone": "Europe/London"},
            "steps": [
                {"id": "mail", "emailOwner": {"subject": "Digest {{ trigger.localTime }}", "text": "ok"}}
            ],
        },
    )["listener"]
    activated = ok(member, "activateListener", {"listenerId": nightly["id"]}, **ELICIT)
    assert activated["listener"]["nextRunAt"] is not None
    listener = Listener.objects.get(pk=nightly["id"])
    Listener.objects.filter(pk=listener.pk).update(next_run_at=datetime(2026, 3, 3, 2, 0, tzinfo=UTC))
    assert services.scheduled_due(now=datetime(2026, 3, 3, 2, 0, 30, tzinfo=UTC)) == 1
    assert services.scheduled_due(now=datetime(2026, 3, 3, 2, 1, tzinfo=UTC)) == 0  # once a night
    run_all()
    assert mail.outbox[-1].subject.startswith("Digest 2026-03-03T02:00:00")

    # Tuesday: the shop posts paid orders to a webhook.
    hook = ok(
        member,
        "createListener",
        {
            "name": "Shop orders",
            "trigger": {"kind": "webhook"},
            "steps": [
                {
                    "id": "task",
                    "tool": "createTask",
                    "arguments": {"title": "Pack order {{ trigger.body.order }}"},
                }
            ],
        },
    )
    secret, hook_id = hook["webhookSecret"], hook["listener"]["id"]
    assert hook["listener"]["webhookUrl"].endswith(Listener.objects.get(pk=hook_id).webhook_token + "/")
    ok(member, "activateListener", {"listenerId": hook_id}, **ELICIT)
    path = "/hooks/listeners/" + Listener.objects.get(pk=hook_id).webhook_token + "/"

    def post(order: int, delivery: str):  # type: ignore[no-untyped-def]
        body = json.dumps({"order": order}).encode()
        headers = {**_signed(secret, body), "HTTP_X_ATRIUM_DELIVERY": delivery}
        return acme_client.post(path, body, content_type="application/json", **headers)

    assert post(101, "d-101").status_code == 202
    run_all()
    assert Task.objects.filter(title="Pack order 101").count() == 1

    # Wednesday: paused for a stock-take; the shop is told to deliver again, contacts go unnoticed.
    assert ok(member, "pauseListener", {"listenerId": hook_id})["was"] == "active"
    assert ok(member, "pauseListener", {"listenerId": welcome["id"]})["listener"]["status"] == "paused"
    paused = post(102, "d-102")
    assert paused.status_code == 503 and paused["Retry-After"]
    ok(member, "createContact", {"contact": {"firstName": "Quiet"}})
    run_all()
    assert not Task.objects.filter(title__in=["Pack order 102", "Call Quiet"]).exists()
    acme_client.force_login(member)
    page = acme_client.get("/settings/automations/").content.decode()
    shop = _row(page, hook_id)
    assert "Shop orders" in shop and "paused" in shop and "Resume" in shop
    assert acme_client.post(f"/settings/automations/{hook_id}/resume/").status_code == 302
    assert post(102, "d-102").status_code == 202  # delivered again, now taken
    assert post(102, "d-102").status_code == 200  # and only once
    run_all()
    assert Task.objects.filter(title="Pack order 102").count() == 1

    # Thursday: a step that fails on the server is retried, then dead; retried from the page.
    state = {"up": False}

    @tool(
        "listenerStretchSync", permission=ListenersPerm.VIEW, title="Sync", read_only=True, register_it=False
    )
    def sync(ctx) -> Done:  # type: ignore[no-untyped-def]
        """Sends to a system that is down until it is back."""
        if not state["up"]:
            raise RuntimeError("the other system is down")
        return Done(message="synced")

    with temporary_tools(sync):
        flaky = ok(
            member,
            "createListener",
            {
                "name": "Sync orders",
                "trigger": {"kind": "manual"},
                "steps": [{"id": "sync", "tool": "listenerStretchSync"}],
            },
        )["listener"]
        run_id = ok(member, "triggerListener", {"listenerId": flaky["id"]}, **ELICIT)["run"]["id"]
        run_all()
        Run.objects.filter(pk=run_id).update(due_at=datetime(2026, 1, 1, tzinfo=UTC))  # the backoff passed
        run_all()
        dead = _runs(member, flaky["id"])[0]
        assert dead["status"] == "dead" and "Dead after 2 attempts" in dead["error"]
        page = acme_client.get("/settings/automations/").content.decode()
        row = _row(page, flaky["id"])
        assert "Dead after 2 attempts" in row and f"/settings/automations/runs/{run_id}/retry/" in row
        state["up"] = True
        assert acme_client.post(f"/settings/automations/runs/{run_id}/retry/").status_code == 302
        run_all()
        assert _runs(member, flaky["id"])[0]["status"] == "succeeded"
    retried = acme_client.post(f"/settings/automations/runs/{run_id}/retry/", follow=True).content.decode()
    assert "only a failed or dead run is retried" in retried

    # Friday: a run started by mistake is cancelled before the worker takes it.
    mistaken = ok(member, "triggerListener", {"listenerId": hook_id, "payload": {"order": 0}}, **ELICIT)
    assert ok(member, "cancelListenerRun", {"runId": mistaken["run"]["id"]})["status"] == "cancelled"
    run_all()
    assert not Task.objects.filter(title="Pack order ").exists()
    page = acme_client.get("/settings/automations/").content.decode()
    assert "cancelled" in _row(page, hook_id) and "succeeded" in _row(page, welcome["id"])
    for name in ("Welcome new contacts", "Nightly digest", "Shop orders", "Sync orders"):
        assert name in page

    # A private automation stays its owner's; a viewer reads the page without its buttons.
    private = ok(
        owner,
        "createListener",
        {
            "name": "Owner's secret sweep",
            "trigger": {"kind": "manual"},
            "visibility": "private",
            "steps": [{"id": "help", "tool": "getListenerHelp"}],
        },
    )["listener"]
    assert private["id"] not in [row["id"] for row in ok(member, "listListeners", {"limit": 100})["items"]]
    for name, arguments in (
        ("getListener", {"listenerId": private["id"]}),
        ("getListenerRuns", {"listenerId": private["id"]}),
        ("triggerListener", {"listenerId": private["id"]}),
    ):
        assert "secret sweep" not in refused(member, name, arguments, **ELICIT)
    acme_client.force_login(viewer)
    seen = acme_client.get("/settings/automations/").content.decode()
    assert "Welcome new contacts" in seen and "secret sweep" not in seen
    assert "Pause" not in seen and "Retry" not in seen
    assert acme_client.post(f"/settings/automations/{hook_id}/pause/").status_code in (403, 404)
    assert Listener.objects.get(pk=hook_id).status == "active"
