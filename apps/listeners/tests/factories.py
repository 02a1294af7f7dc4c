"""Listeners for tests, made through the service as a person makes them:
`ListenerFactory(actor=people["member"], name="Paid invoices", trigger_kind="record", trigger={...},
steps=[...])`; `manual(actor)`: a draft run by hand, with one harmless step."""

from typing import Any

from apps.catalogue.testing import listed
from apps.core import factories
from apps.core.factories import AccessRows, ServiceFactory, access_rows, fake, numbered, private_rows
from apps.listeners import services
from apps.listeners.models import Listener

HELP_STEP = {"id": "help", "tool": "getListenerHelp", "arguments": {"topic": "steps"}}


def _listener(*, actor: Any, fields: dict[str, Any]) -> Listener:
    fields = dict(fields)
    steps = fields.pop("steps", [HELP_STEP])
    fields.setdefault("trigger_kind", "manual")
    return services.listener_create(actor=actor, fields=fields, steps=steps)


class ListenerFactory(ServiceFactory):
    class Meta:
        model = Listener

    name = numbered(fake.catch_phrase, " ")
    _service = staticmethod(_listener)


def active(actor: Any, approve: list[str] | None = None, **fields: Any) -> Listener:
    listener = ListenerFactory(actor=actor, **fields)
    services.listener_activate(actor=actor, listener=listener, approve=approve or [])
    return listener


@access_rows("listeners.Listener")
def _listeners(people: dict[str, Any]) -> AccessRows:
    rows = private_rows(people, lambda actor, visibility: ListenerFactory(actor=actor, visibility=visibility))
    rows.listed = lambda person: listed(person, "listListeners", {"limit": 100})
    return rows


@factories.privacy_rows("listeners")
def _private(people: dict[str, Any], marker: str, rows: factories.PrivateRows) -> None:
    """The owner's private listener, with a run holding the marker in its payload."""
    owner = people["owner"]
    listener = ListenerFactory(
        actor=owner, name=f"{marker} automation", description=f"{marker} notes", visibility="private"
    )
    services.listener_trigger(actor=owner, listener=listener, payload={"note": marker})
    rows.add("listenerId", "entityId", record=listener)
    rows.add("runId", record=listener.runs.get())
