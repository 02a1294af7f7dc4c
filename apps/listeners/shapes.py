"""What the Listeners tools answer (camelCase JSON), and a listener's inbound webhook address."""

from datetime import datetime
from typing import Annotated, Any

from pydantic import Field

from apps.catalogue.shapes import Out, PersonRef, id_field
from apps.core import kinds
from apps.core.actors import actor_id
from apps.listeners.models import Listener, Run
from apps.tenancy import links

ListenerId = Annotated[int, id_field("listListeners")]
RunId = Annotated[int, id_field("getListenerRuns")]


def webhook_url(listener: Listener) -> str | None:
    if listener.trigger_kind != Listener.Trigger.WEBHOOK:
        return None
    return links.page("listeners:webhook", token=listener.webhook_token)


class ListenerSummary(Out):
    id: int
    name: str
    status: str
    trigger_kind: str = Field(description="record, schedule, webhook or manual")
    trigger: dict[str, Any]
    filter: str
    visibility: str
    owner: PersonRef | None
    version: int = Field(description="The flow's current version")
    next_run_at: datetime | None
    updated_at: datetime

    @classmethod
    def of(cls, listener: Listener) -> "ListenerSummary":
        return cls.of_record(listener)


class RiskyStep(Out):
    id: str
    tool: str
    markers: list[str]
    approved: bool


class ListenerOut(ListenerSummary):
    description: str
    steps: list[dict[str, Any]]
    risky_steps: list[RiskyStep] = Field(description="Steps activateListener must approve")
    webhook_url: str | None
    max_concurrent: int
    runs_by_status: dict[str, int]


class RunOut(Out):
    id: int
    listener_id: int
    status: str
    source: str = Field(description="record, schedule, webhook or manual")
    flow_version: int
    payload: dict[str, Any]
    results: list[dict[str, Any]] = Field(description="Each step done: outcome, result or error")
    next_step: int
    depth: int = Field(description="Runs that led to this one (loop prevention)")
    attempts: int
    error: str
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None

    @classmethod
    def of(cls, run: Run, reader: Any = None) -> "RunOut":
        """The run as `reader` may read it (None: in full): a run acts with its owner's rights, so
        anyone else reads the record it ran on only if they may see that record, and each step's
        outcome and error without the result the owner's tool answered."""
        if reader is None or actor_id(reader) == run.listener.owner_id:
            return cls.of_record(run)
        results = [{key: value for key, value in entry.items() if key != "result"} for entry in run.results]
        return cls.of_record(run, payload=_payload_for(reader, run.payload), results=results)


def _payload_for(reader: Any, payload: dict[str, Any]) -> dict[str, Any]:
    if "record" not in payload:
        return payload
    try:
        kind = kinds.kind_named(str(payload.get("entityType", "")))
    except kinds.UnknownEntityType:
        kind = None
    rows = kind.model_class.objects.restrict(reader, "view") if kind else None  # type: ignore[attr-defined]
    if rows is not None and rows.filter(pk=payload.get("id")).exists():
        return payload
    return {**payload, "record": {"id": payload.get("id")}, "changes": {}}
