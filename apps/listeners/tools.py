"""The Listeners area of the catalogue (SPEC 4.7): thin doors onto services and selectors. Runs
happen in the worker (apps.listeners.runner), through the same dispatcher as these calls."""

from typing import Annotated, Any, Literal

from django.utils.translation import gettext as _
from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import Marker, tool
from apps.catalogue.shapes import Changes, Limit, Offset, Out, Page, paginate
from apps.core import kinds
from apps.core.kinds import finding
from apps.core.records import Action
from apps.listeners import selectors, services
from apps.listeners.lib import flows, signing
from apps.listeners.models import Listener, Run
from apps.listeners.permissions import ListenersPerm
from apps.listeners.shapes import (
    ListenerId,
    ListenerOut,
    ListenerSummary,
    RiskyStep,
    RunId,
    RunOut,
    webhook_url,
)

TriggerKind = Literal["record", "schedule", "webhook", "manual"]
Steps = Annotated[
    list[dict[str, Any]],
    Field(
        max_length=flows.MAX_STEPS,
        description="In order; each: id, and tool+arguments, if, delay or emailOwner",
    ),
]


class TriggerIn(Changes):
    kind: TriggerKind
    entity_type: Annotated[
        str | None, Field(max_length=60, description="record: a kind of getListenerHelp's entityTypes")
    ] = None
    events: list[Literal["created", "updated", "deleted"]] | None = Field(
        None, description="record; default: created, updated"
    )
    fields: Annotated[list[Annotated[str, Field(max_length=60)]], Field(max_length=20)] | None = Field(
        None, description="record: fire on updates of these fields only"
    )
    cron: Annotated[str | None, Field(max_length=100, description="schedule: 5 cron fields")] = None
    zone: Annotated[str | None, Field(max_length=60, description="schedule; default: the workspace's")] = None


def _trigger_fields(trigger: TriggerIn) -> dict[str, Any]:
    given = trigger.given()
    settings = {
        "entityType": given.get("entity_type"),
        "events": given.get("events"),
        "fields": given.get("fields"),
    }
    settings.update({"cron": given.get("cron"), "zone": given.get("zone")})
    return {
        "trigger_kind": trigger.kind,
        "trigger": {key: value for key, value in settings.items() if value is not None},
    }


def _listener(ctx: ToolContext, listener_id: int, action: Action = "view") -> Listener:
    return Listener.objects.select_related("owner").fetch(ctx.actor, listener_id, action)


def _out(listener: Listener) -> ListenerOut:
    steps = services.current_steps(listener)
    approved = set(listener.approved_steps or []) if listener.approved_version == listener.version else set()
    risky = [RiskyStep(**step, approved=step["id"] in approved) for step in services.risky_steps(steps)]
    return ListenerOut.of_record(
        listener,
        steps=steps,
        risky_steps=risky,
        webhook_url=webhook_url(listener),
        runs_by_status=selectors.runs_by_status(listener),
    )


class CreatedListenerOut(Out):
    listener: ListenerOut
    webhook_secret: str | None = Field(description="webhook: the HMAC key, shown this once")
    next: str


@tool("createListener", permission=ListenersPerm.EDIT, title="Create a listener")
def create_listener(
    ctx: ToolContext,
    *,
    name: Annotated[str, Field(min_length=1, max_length=200, description="What it does, for people")],
    trigger: Annotated[TriggerIn, Field(description="What starts it; getListenerHelp: triggers")],
    steps: Steps = [],  # noqa: B006
    filter: Annotated[str, Field(max_length=1000, description="A condition on the payload")] = "",
    description: Annotated[str, Field(max_length=2000, description="Longer notes")] = "",
    visibility: Annotated[
        Literal["workspace", "private"], Field(description="private: only you")
    ] = "workspace",
) -> CreatedListenerOut:
    """Create an automation (a draft) running tools on a record event, schedule or webhook.

    Steps are checked against each tool's arguments; getListenerHelp explains. Its twin for steps
    alone: updateListenerFlow."""
    fields = {
        "name": name,
        "description": description,
        "filter": filter,
        "visibility": visibility,
        **_trigger_fields(trigger),
    }
    listener = services.listener_create(actor=ctx.actor, fields=fields, steps=steps)
    secret = services.webhook_secret(listener) if listener.trigger_kind == Listener.Trigger.WEBHOOK else None
    return CreatedListenerOut(
        listener=_out(_listener(ctx, listener.pk)),
        webhook_secret=secret,
        next=_("It is a draft: activateListener turns it on (approving its risky steps)."),
    )


@tool("getListener", permission=ListenersPerm.VIEW, title="Get a listener", read_only=True)
def get_listener(ctx: ToolContext, *, listener_id: ListenerId) -> ListenerOut:
    """Read one listener: trigger, filter, flow steps, steps needing approval, webhook URL, run counts."""
    return _out(_listener(ctx, listener_id))


class ListenerChanges(Changes):
    name: Annotated[str, Field(min_length=1, max_length=200)] | None = None
    description: Annotated[str, Field(max_length=2000)] | None = None
    trigger: TriggerIn | None = None
    filter: Annotated[str, Field(max_length=1000)] | None = None
    visibility: Literal["workspace", "private"] | None = None
    max_concurrent: Annotated[int, Field(ge=1, le=10, description="Runs at once")] | None = None


class UpdatedListenerOut(Out):
    listener: ListenerOut
    changed: list[str]


@tool("updateListener", permission=ListenersPerm.EDIT, title="Update a listener", idempotent=True)
def update_listener(
    ctx: ToolContext,
    *,
    listener_id: ListenerId,
    changes: Annotated[ListenerChanges, Field(description="Only the fields to change")],
) -> UpdatedListenerOut:
    """Change a listener's name, trigger, filter, visibility or concurrency; its steps: updateListenerFlow."""
    listener = _listener(ctx, listener_id, "change")
    given = changes.given(required=True)
    if changes.trigger is not None and "trigger" in given:
        given.pop("trigger")
        given.update(_trigger_fields(changes.trigger))
    changed = services.listener_update(actor=ctx.actor, listener=listener, fields=given)
    return UpdatedListenerOut(listener=_out(_listener(ctx, listener_id)), changed=changed)


class FlowSavedOut(Out):
    listener: ListenerOut
    version: int
    needs_approval: list[RiskyStep] = Field(description="Risky steps to approve with activateListener")


@tool("updateListenerFlow", permission=ListenersPerm.EDIT, title="Update a listener's flow")
def update_listener_flow(ctx: ToolContext, *, listener_id: ListenerId, steps: Steps) -> FlowSavedOut:
    """Replace a listener's steps with a new flow version, checked against the tools' arguments.

    Risky steps need activateListener's approval again. Its trigger or name: updateListener."""
    listener = _listener(ctx, listener_id, "change")
    version = services.flow_save(actor=ctx.actor, listener=listener, steps=steps)
    out = _out(_listener(ctx, listener_id))
    return FlowSavedOut(
        listener=out,
        version=version.number,
        needs_approval=[step for step in out.risky_steps if not step.approved],
    )


@tool("listListeners", permission=ListenersPerm.VIEW, title="List listeners", read_only=True)
def list_listeners(
    ctx: ToolContext,
    *,
    query: Annotated[str, Field(max_length=200, description="Words in name or description")] = "",
    status: Annotated[
        Literal["draft", "active", "paused", "disabled"] | None, Field(description="Default: any")
    ] = None,
    trigger_kind: Annotated[TriggerKind | None, Field(description="Default: any")] = None,
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[ListenerSummary]:
    """List the automations you may see, by name; one in full with its steps: getListener."""
    rows = selectors.listeners(ctx.actor, status=status, trigger_kind=trigger_kind, query=query)
    return paginate(rows, limit=limit, offset=offset, item=ListenerSummary.of)


ApproveSteps = Annotated[
    list[Annotated[str, Field(max_length=40)]],
    Field(max_length=30, description="Ids of the risky steps you approve to run unattended"),
]


def _activatable(ctx: ToolContext, *, listener_id: int, approve_steps: list[str] = []) -> bool:  # noqa: B006
    services.activation_check(
        actor=ctx.actor, listener=_listener(ctx, listener_id, "change"), approve=approve_steps
    )
    return True


class ActivatedOut(Out):
    listener: ListenerOut
    approved: list[RiskyStep]
    message: str


@tool(
    "activateListener",
    permission=ListenersPerm.ACTIVATE,
    title="Activate a listener",
    markers=Marker.HIGH_RISK,
    confirm_if=_activatable,
)
def activate_listener(
    ctx: ToolContext,
    *,
    listener_id: ListenerId,
    approve_steps: ApproveSteps = [],  # noqa: B006
) -> ActivatedOut:
    """Turn a listener on, or resume it, to act unattended as you. To stop it: pauseListener.

    Its DESTRUCTIVE, HIGH RISK or GATED steps run only if listed in approveSteps."""
    listener = _listener(ctx, listener_id, "change")
    risky = services.listener_activate(actor=ctx.actor, listener=listener, approve=approve_steps)
    return ActivatedOut(
        listener=_out(_listener(ctx, listener_id)),
        approved=[RiskyStep(**step, approved=True) for step in risky],
        message=_("Active: it runs on its trigger with your permissions at the time of each run."),
    )


class PausedOut(Out):
    listener: ListenerSummary
    was: str


@tool("pauseListener", permission=ListenersPerm.EDIT, title="Pause a listener", idempotent=True)
def pause_listener(ctx: ToolContext, *, listener_id: ListenerId) -> PausedOut:
    """Pause a listener: its triggers are not taken, queued runs hold; activateListener resumes it."""
    listener = _listener(ctx, listener_id, "change")
    was = services.listener_pause(actor=ctx.actor, listener=listener)
    return PausedOut(listener=ListenerSummary.of(listener), was=was)


class DisabledOut(Out):
    listener: ListenerSummary
    cancelled_runs: int


@tool("disableListener", permission=ListenersPerm.DELETE, title="Disable a listener", idempotent=True)
def disable_listener(ctx: ToolContext, *, listener_id: ListenerId) -> DisabledOut:
    """Turn a listener off for good: approvals withdrawn, queued runs cancelled. Briefly: pauseListener."""
    listener = _listener(ctx, listener_id, "delete")
    cancelled = services.listener_disable(actor=ctx.actor, listener=listener)
    return DisabledOut(listener=ListenerSummary.of(listener), cancelled_runs=cancelled)


RecordId = Annotated[
    int | None, Field(ge=1, description="record listener: the record to run on, as its event would")
]


def _triggerable(
    ctx: ToolContext,
    *,
    listener_id: int,
    payload: dict[str, Any] = {},  # noqa: B006
    record_id: int | None = None,
) -> bool:
    services.trigger_check(
        actor=ctx.actor, listener=_listener(ctx, listener_id, "change"), record_id=record_id, payload=payload
    )
    return True


class TriggeredOut(Out):
    run: RunOut
    message: str


@tool(
    "triggerListener",
    permission=ListenersPerm.EDIT,
    title="Run a listener now",
    markers=Marker.HIGH_RISK,
    confirm_if=_triggerable,
)
def trigger_listener(
    ctx: ToolContext,
    *,
    listener_id: ListenerId,
    payload: Annotated[dict[str, Any], Field(description="Given to the flow as trigger.manual")] = {},  # noqa: B006
    record_id: RecordId = None,
) -> TriggeredOut:
    """Run a listener's flow once now, whatever its trigger; follow it with getListenerRuns."""
    listener = _listener(ctx, listener_id, "change")
    run = services.listener_trigger(actor=ctx.actor, listener=listener, payload=payload, record_id=record_id)
    assert run is not None  # a manual key is new each time, and a manual run has no filter
    return TriggeredOut(
        run=RunOut.of(run, ctx.actor), message=_("Queued: the worker runs it as the listener's owner.")
    )


RunStatus = Literal["queued", "running", "succeeded", "failed", "cancelled", "dead"]


@tool("getListenerRuns", permission=ListenersPerm.VIEW, title="Get a listener's runs", read_only=True)
def get_listener_runs(
    ctx: ToolContext,
    *,
    listener_id: ListenerId,
    status: Annotated[RunStatus | None, Field(description="Default: any")] = None,
    limit: Limit = 10,
    offset: Offset = 0,
) -> Page[RunOut]:
    """A listener's runs, newest first: payload, each step's outcome and result, errors, depth, retries."""
    listener = _listener(ctx, listener_id)
    rows = Run.objects.filter(listener=listener)
    if status:
        rows = rows.filter(status=status)
    return paginate(
        rows.select_related("listener").order_by("-created_at", "-id"),
        limit=limit,
        offset=offset,
        item=lambda run: RunOut.of(run, ctx.actor),
    )


@tool("cancelListenerRun", permission=ListenersPerm.EDIT, title="Cancel a listener run", idempotent=True)
def cancel_listener_run(ctx: ToolContext, *, run_id: RunId) -> RunOut:
    """Cancel a queued run, or stop a running one before its next step (the running step is told)."""
    run = selectors.run_of(ctx.actor, run_id, "change")
    return RunOut.of(services.run_cancel(actor=ctx.actor, run=run), ctx.actor)


class HelpOut(Out):
    topic: str
    text: str
    entity_types: list[str] = Field(description="Record kinds a record trigger may name")


HELP = {
    "triggers": (
        "trigger.kind: record (entityType: one of this help's entityTypes; events created/updated/deleted, "
        "default created and updated; fields: an update fires only when one of these changed; payload: "
        "event, entityType, id, record (its fields), changes), schedule (cron '0 2 * * *' in zone, default "
        "the workspace's, DST-safe; payload: scheduledAt, localTime), webhook (POST JSON to webhookUrl "
        f"signed {signing.SIGNATURE_HEADER}: sha256=HMAC(secret, '<{signing.TIMESTAMP_HEADER}>.<body>'), "
        f"{signing.REPLAY_WINDOW_SECONDS // 60} min window; payload: body, deliveryId from "
        "X-Atrium-Delivery; an active listener only), manual. "
        "triggerListener runs any listener now: a record listener on the record recordId names, with its "
        "event's payload; the payload given is trigger.manual. The filter is a condition on the payload "
        "(a run by hand skips it). Inbound e-mail is not a trigger yet."
    ),
    "steps": (
        "Steps: {id, tool, arguments} calls a catalogue tool (arguments as its schema; checked on save); "
        "{id, if: 'record.total > 100'} stops the run when false; {id, delay: seconds}; {id, emailOwner: "
        "{subject, text}} mails the owner only. Any step may have when: a condition to skip it. A listener "
        "is activated with at least one step."
    ),
    "mapping": (
        "Templates: '{{ record.number }}' alone keeps the value's type; inside text it is written in. "
        "Names: trigger, record, steps.<id> (an earlier step's result), listener, now. Expressions: "
        "comparisons, and/or/not, arithmetic, len str int float round abs min max lower; no other code runs."
    ),
    "safety": (
        "Runs act as the owner with their permissions at run time, one audit row per call naming the "
        "listener. DESTRUCTIVE, HIGH RISK or GATED steps run only if approved in activateListener. Failures "
        "of the server are retried with backoff, then the run is dead (retried from the Automations page); a "
        "run caused by runs {depth} deep stops."
    ),
}


@tool("getListenerHelp", permission=ListenersPerm.VIEW, title="Listener help", read_only=True)
def get_listener_help(
    ctx: ToolContext,
    *,
    topic: Annotated[
        Literal["triggers", "steps", "mapping", "safety", "all"], Field(description="Default: all")
    ] = "all",
) -> HelpOut:
    """How listeners work: triggers, steps, templates and conditions, approvals and safety."""
    # What a setting decides is read when asked, not when the module was loaded.
    depth = services.max_depth()
    chosen = HELP.values() if topic == "all" else [HELP[topic]]
    text = "\n\n".join(part.replace("{depth}", str(depth)) for part in chosen)
    return HelpOut(topic=topic, text=text, entity_types=[kind.key for kind in kinds.kinds()])


class EntityHit(Out):
    entity_type: str
    id: int
    title: str


class EntitiesOut(Out):
    items: list[EntityHit]
    totals: dict[str, int] = Field(description="How many match, by entityType")


@tool("searchEntities", permission=ListenersPerm.VIEW, title="Search records for a flow", read_only=True)
def search_entities(
    ctx: ToolContext,
    *,
    query: Annotated[str, Field(min_length=1, max_length=200, description="Words in titles and text")],
    entity_types: Annotated[
        list[Annotated[str, Field(max_length=60)]] | None,
        Field(max_length=20, description="Only these kinds; default: all (getListenerHelp lists them)"),
    ] = None,
    limit: Annotated[int, Field(ge=1, le=20, description="Per kind")] = 5,
) -> EntitiesOut:
    """Find records of any kind you may see by words, for ids in a listener's flow or trigger.

    Browsing the workspace: searchWorkspace."""
    found = finding.search(ctx.actor, query, kinds=entity_types, limit=limit)
    items = [
        EntityHit(entity_type=group.kind.key, id=hit.id, title=hit.title)
        for group in found
        for hit in group.hits
    ]
    return EntitiesOut(items=items, totals={group.kind.key: group.total for group in found})
