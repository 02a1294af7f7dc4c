"""A normal call of every Listeners tool, for the catalogue's contract test."""

import uuid
from typing import Any

from apps.catalogue.testing import Sample, sample
from apps.listeners import services
from apps.listeners.tests.factories import HELP_STEP, ListenerFactory, active


def _marker() -> str:
    return f"Auto{uuid.uuid4().hex[:8]}"


def _made(actor: Any, **fields: Any) -> tuple[Any, str]:
    marker = _marker()
    return ListenerFactory(actor=actor, name=f"{marker} listener", **fields), marker


@sample("createListener")
def create_listener(actor: Any) -> Sample:
    return Sample(
        {
            "name": f"{_marker()} nightly",
            "trigger": {"kind": "schedule", "cron": "0 2 * * *"},
            "steps": [{"id": "help", "tool": "getListenerHelp", "arguments": {"topic": "all"}}],
        }
    )


@sample("getListener")
def get_listener(actor: Any) -> Sample:
    listener, marker = _made(actor)
    return Sample({"listenerId": listener.pk}, private=[marker])


@sample("updateListener")
def update_listener(actor: Any) -> Sample:
    listener, marker = _made(actor)
    return Sample({"listenerId": listener.pk, "changes": {"filter": "1 == 1"}}, private=[marker])


@sample("updateListenerFlow")
def update_listener_flow(actor: Any) -> Sample:
    listener, marker = _made(actor)
    return Sample(
        {"listenerId": listener.pk, "steps": [HELP_STEP, {"id": "wait", "delay": 60}]}, private=[marker]
    )


@sample("listListeners")
def list_listeners(actor: Any) -> Sample:
    _listener, marker = _made(actor)
    return Sample({}, private=[marker])


@sample("activateListener")
def activate_listener(actor: Any) -> Sample:
    listener, marker = _made(actor)
    return Sample({"listenerId": listener.pk}, private=[marker])


@sample("pauseListener")
def pause_listener(actor: Any) -> Sample:
    marker = _marker()
    listener = active(actor, name=f"{marker} listener")
    return Sample({"listenerId": listener.pk}, private=[marker])


@sample("disableListener")
def disable_listener(actor: Any) -> Sample:
    listener, marker = _made(actor)
    return Sample({"listenerId": listener.pk}, private=[marker])


@sample("triggerListener")
def trigger_listener(actor: Any) -> Sample:
    listener, marker = _made(actor)
    return Sample({"listenerId": listener.pk, "payload": {"test": True}}, private=[marker])


@sample("getListenerRuns")
def get_listener_runs(actor: Any) -> Sample:
    listener, marker = _made(actor)
    services.listener_trigger(actor=actor, listener=listener, payload={"note": marker})
    return Sample({"listenerId": listener.pk}, private=[marker])


@sample("cancelListenerRun")
def cancel_listener_run(actor: Any) -> Sample:
    listener, marker = _made(actor)
    run = services.listener_trigger(actor=actor, listener=listener, payload={"note": marker})
    assert run is not None
    return Sample({"runId": run.pk}, private=[marker])


@sample("getListenerHelp")
def get_listener_help(actor: Any) -> Sample:
    return Sample({"topic": "mapping"})


@sample("searchEntities")
def search_entities(actor: Any) -> Sample:
    _listener, marker = _made(actor)
    return Sample({"query": marker}, private=[marker])
