"""Listeners' writes: `<entity>_<verb>(*, actor, ...)`, the actor's permission checked, all or
nothing. Firing a listener (`fire`) is the one way a run is made: a trigger event once per key,
then a queued run that `apps.listeners.runner` takes on after the commit."""

import logging
import secrets
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apps.catalogue import registry
from apps.core import clean, encryption, json_input, kinds
from apps.core.actors import Actor, actor_id, require
from apps.core.errors import invalid
from apps.core.workspaces import current_workspace
from apps.listeners.errors import (
    FlowStepInvalid,
    ListenerStatus,
    RunNotCancellable,
    RunNotRetryable,
    StepsNotApproved,
)
from apps.listeners.lib import flows, schedules
from apps.listeners.models import FlowVersion, Listener, Run, TriggerEvent
from apps.listeners.permissions import ListenersPerm

logger = logging.getLogger(__name__)
Status = Listener.Status
Trigger = Listener.Trigger
RECORD_EVENTS = ("created", "updated", "deleted")
FIELDS = ("name", "description", "trigger_kind", "trigger", "filter", "visibility", "max_concurrent")


# --- the listener -------------------------------------------------------------------------------


def workspace_zone() -> str:
    workspace = current_workspace()
    return str(getattr(workspace, "time_zone", "") or "UTC")


def _trigger(kind: str, given: Any) -> dict[str, Any]:
    """The trigger's settings, checked for its kind."""
    given = given if isinstance(given, dict) else {}
    if kind == Trigger.RECORD:
        entity_type = given.get("entityType")
        try:
            kind_ = kinds.kind_named(str(entity_type or ""))
        except Exception as error:
            raise invalid(
                "trigger.entityType", _("a record kind, one of getListenerHelp's entityTypes")
            ) from error
        events = given.get("events") or ["created", "updated"]
        if not isinstance(events, list) or not events or any(event not in RECORD_EVENTS for event in events):
            raise invalid("trigger.events", _("a list of created, updated, deleted"))
        fields = given.get("fields") or []
        if not isinstance(fields, list) or any(not isinstance(field, str) for field in fields):
            raise invalid("trigger.fields", _("a list of field names"))
        names = {field.name for field in kind_.model_class._meta.concrete_fields}
        unknown = [field for field in fields if field not in names]
        if unknown:
            raise invalid(
                "trigger.fields", _("{field} is not a field of {kind}"), field=unknown[0], kind=kind_.key
            )
        return {"entityType": kind_.key, "events": list(dict.fromkeys(events)), "fields": fields}
    if kind == Trigger.SCHEDULE:
        try:
            cron = schedules.check(str(given.get("cron", "")))
        except schedules.BadSchedule as error:
            raise invalid("trigger.cron", _("five cron fields: minute hour day month weekday")) from error
        zone = clean.zone(given.get("zone") or workspace_zone(), field="trigger.zone")
        try:
            schedules.next_after(cron, zone, timezone.now())
        except schedules.BadSchedule as error:
            # Valid fields naming a day that never comes (30 February): it would never run.
            raise invalid("trigger.cron", _("{cron} names no time that ever comes"), cron=cron) from error
        return {"cron": cron, "zone": zone}
    return {}


def _apply(actor: Actor, listener: Listener, fields: dict[str, Any], creating: bool) -> None:
    if "name" in fields or creating:
        listener.name = clean.text(fields.get("name", listener.name), field="name", limit=200, required=True)
    if "description" in fields:
        listener.description = clean.long_text(fields["description"], field="description", limit=2000)
    was = listener.trigger_kind
    if "trigger_kind" in fields:
        if (
            not creating
            and fields["trigger_kind"] != listener.trigger_kind
            and listener.status == Status.ACTIVE
        ):
            raise ListenerStatus(
                id=listener.pk, status=listener.status, what=_("pause it before changing its trigger")
            )
        listener.trigger_kind = fields["trigger_kind"]
    if "trigger" in fields or "trigger_kind" in fields:
        given = fields.get("trigger", listener.trigger)
        if not creating and listener.trigger_kind == was and isinstance(given, dict):
            # The same kind changed in part (a schedule's zone alone): what it does not name stays.
            given = {**listener.trigger, **given}
        listener.trigger = _trigger(listener.trigger_kind, given)
    if "filter" in fields:
        condition = clean.text(fields["filter"] or "", field="filter", limit=1000)
        if condition:
            try:
                flows.parse(condition)
            except flows.ExpressionFailed as error:
                raise invalid("filter", str(error)) from error
        listener.filter = condition
    if "visibility" in fields:
        listener.visibility = fields["visibility"]
    if "max_concurrent" in fields:
        listener.max_concurrent = int(fields["max_concurrent"])
    if listener.trigger_kind == Trigger.WEBHOOK and not listener.webhook_secret:
        listener.webhook_secret = encryption.encrypt(secrets.token_urlsafe(32))
    _schedule(listener)


def _schedule(listener: Listener, after: datetime | None = None) -> None:
    if listener.trigger_kind == Trigger.SCHEDULE and listener.status == Status.ACTIVE:
        listener.next_run_at = schedules.next_after(
            listener.trigger["cron"], listener.trigger["zone"], after or timezone.now()
        )
    else:
        listener.next_run_at = None


def listener_create(*, actor: Actor, fields: dict[str, Any], steps: list[Any] | None = None) -> Listener:
    require(actor, ListenersPerm.EDIT)
    listener = Listener(created_by_id=actor_id(actor), owner_id=actor_id(actor))
    with transaction.atomic():
        _apply(actor, listener, fields, True)
        listener.save()
        flow_save(actor=actor, listener=listener, steps=steps or [])
    logger.info("listener %s created (%s)", listener.pk, listener.trigger_kind)
    return listener


def listener_update(*, actor: Actor, listener: Listener, fields: dict[str, Any]) -> list[str]:
    require(actor, ListenersPerm.EDIT)
    names = [name for name in FIELDS if name in fields]
    before = {name: getattr(listener, name) for name in names}
    _apply(actor, listener, fields, False)
    changed = [name for name in names if getattr(listener, name) != before[name]]
    listener.save()
    return changed


def flow_save(*, actor: Actor, listener: Listener, steps: list[Any]) -> FlowVersion:
    """A new version of the listener's flow, checked against the tools' input models first. A
    version changed after activation needs its risky steps approved again (activateListener)."""
    require(actor, ListenersPerm.EDIT)
    try:
        kept = flows.check(steps, registry.get)
    except flows.StepProblem as problem:
        path = f"steps.{problem.step - 1}.{problem.field}" if problem.step else problem.field
        raise FlowStepInvalid(
            step=problem.step,
            tool=problem.tool or "-",
            field=problem.field,
            problem=str(problem.problem),
            details={path: [str(problem.problem)]},
        ) from None
    listener.version += 1
    Listener.objects.filter(pk=listener.pk).update(version=listener.version)
    return FlowVersion.objects.create(
        listener=listener, number=listener.version, steps=kept, created_by_id=actor_id(actor)
    )


def current_steps(listener: Listener) -> list[dict[str, Any]]:
    version = FlowVersion.objects.filter(listener=listener, number=listener.version).first()
    return list(version.steps) if version else []


def risky_steps(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tool steps that act only after a confirmation when a person calls them."""
    risky = []
    for step in steps:
        spec = registry.get(step.get("tool", "")) if "tool" in step else None
        if spec is not None and spec.needs_confirmation:
            risky.append({"id": step["id"], "tool": spec.name, "markers": spec.markers.labels})
    return risky


def activation_check(*, actor: Actor, listener: Listener, approve: list[str]) -> list[dict[str, Any]]:
    """What activating needs, checked before anyone is asked to confirm: a listener not disabled,
    with steps, and every risky step approved by id (`StepsNotApproved` lists those left)."""
    require(actor, ListenersPerm.ACTIVATE)
    if listener.status == Status.DISABLED:
        raise ListenerStatus(id=listener.pk, status=listener.status, what=_("a disabled listener stays off"))
    steps = current_steps(listener)
    if not steps:
        raise ListenerStatus(
            id=listener.pk,
            status=listener.status,
            what=_("it has no steps: add at least one step with updateListenerFlow before activating"),
        )
    risky = risky_steps(steps)
    ids = {step["id"] for step in steps}
    unknown = [step_id for step_id in approve if step_id not in ids]
    if unknown:
        raise invalid("approveSteps", _("no step {step} in this flow"), step=unknown[0])
    missing = [f"{step['id']} ({step['tool']})" for step in risky if step["id"] not in approve]
    if missing:
        raise StepsNotApproved(id=listener.pk, steps=", ".join(missing))
    return risky


def listener_activate(*, actor: Actor, listener: Listener, approve: list[str]) -> list[dict[str, Any]]:
    risky = activation_check(actor=actor, listener=listener, approve=approve)
    listener.status = Status.ACTIVE
    listener.approved_steps = [step["id"] for step in risky]
    listener.approved_version = listener.version
    listener.approved_by_id = actor_id(actor)
    listener.activated_at = timezone.now()
    _schedule(listener)
    listener.save()
    return risky


def listener_pause(*, actor: Actor, listener: Listener) -> str:
    require(actor, ListenersPerm.EDIT)
    was = listener.status
    if was == Status.DISABLED:
        raise ListenerStatus(id=listener.pk, status=was, what=_("a disabled listener stays off"))
    listener.status = Status.PAUSED if was == Status.ACTIVE else was
    _schedule(listener)
    listener.save()
    return str(was)


def listener_disable(*, actor: Actor, listener: Listener) -> int:
    """Turns the listener off for good, and cancels its queued runs; answers how many."""
    require(actor, ListenersPerm.DELETE)
    listener.status = Status.DISABLED
    listener.approved_steps = []
    _schedule(listener)
    listener.save()
    cancelled = Run.objects.filter(listener=listener, status=Run.Status.QUEUED).update(
        status=Run.Status.CANCELLED, finished_at=timezone.now(), error=str(_("The listener was disabled."))
    )
    Run.objects.filter(listener=listener, status=Run.Status.RUNNING).update(cancel_requested=True)
    return cancelled


def webhook_secret(listener: Listener) -> str:
    return encryption.decrypt(listener.webhook_secret) if listener.webhook_secret else ""


def webhook_secret_roll(*, actor: Actor, listener: Listener) -> str:
    require(actor, ListenersPerm.EDIT)
    secret = secrets.token_urlsafe(32)
    listener.webhook_secret = encryption.encrypt(secret)
    listener.save(update_fields=["webhook_secret", "updated_at"])
    return secret


# --- firing ------------------------------------------------------------------------------------


def max_depth() -> int:
    return int(getattr(settings, "ATRIUM_LISTENERS_MAX_DEPTH", 3))


def fire(
    listener: Listener,
    *,
    key: str,
    source: str,
    payload: dict[str, Any],
    origin: list[dict[str, int]] | None = None,
    order_key: str = "",
    started_by: Actor | None = None,
) -> Run | None:
    """A trigger event for `listener` under `key`, and its run, queued: None when this key was
    delivered before (nothing runs twice) or the filter says no. A run whose origin is already
    `max_depth()` runs deep is kept as failed, saying so, and runs nothing."""
    origin = list(origin or [])
    with transaction.atomic():
        try:
            with transaction.atomic():
                event = TriggerEvent.objects.create(
                    listener=listener, key=key[:200], source=source, payload=payload
                )
        except IntegrityError:
            TriggerEvent.objects.filter(listener=listener, key=key[:200]).update(
                deliveries=F("deliveries") + 1
            )
            logger.info("listener %s: event %s delivered again, nothing run", listener.pk, key)
            return None
        # A run by hand runs whatever the filter says: the person asked for it.
        if listener.filter and source != "manual" and not _passes(listener, payload):
            return None
        run = Run(
            listener=listener,
            event=event,
            flow_version=listener.version,
            source=source,
            payload=payload,
            origin=origin,
            depth=len(origin),
            order_key=order_key[:200],
            started_by_id=actor_id(started_by),
        )
        if len(origin) >= max_depth():
            chain = " → ".join(f"listener {link['listener']} run {link['run']}" for link in origin)
            run.status = Run.Status.FAILED
            run.finished_at = timezone.now()
            run.error = str(
                _(
                    "Stopped at the depth bound ({depth}): this event was caused by {chain}; a flow that "
                    "triggers itself would never end, so nothing ran."
                )
            ).format(depth=max_depth(), chain=chain)
            run.save()
            logger.warning("listener %s: run stopped at depth %s", listener.pk, len(origin))
            return run
        run.save()
    from apps.listeners import tasks

    tasks.enqueue(run)
    return run


def _passes(listener: Listener, payload: dict[str, Any]) -> bool:
    try:
        return bool(flows.evaluate(listener.filter, flows_names(listener, payload, {})))
    except flows.ExpressionFailed:
        logger.info("listener %s: filter did not evaluate; event skipped", listener.pk)
        return False


def flows_names(listener: Listener, payload: dict[str, Any], steps: dict[str, Any]) -> dict[str, Any]:
    return {
        "trigger": payload,
        "record": payload.get("record", {}),
        "steps": steps,
        "listener": {"id": listener.pk, "name": listener.name},
        "now": timezone.now().isoformat(),
    }


def trigger_check(*, actor: Actor, listener: Listener, record_id: int | None, payload: Any = None) -> Any:
    """What a run by hand needs, checked before anyone is asked to confirm: a listener not disabled,
    with steps, and for a record listener a record of its kind that the caller and the listener's
    owner may both see (answered: the record; None for other triggers)."""
    require(actor, ListenersPerm.EDIT)
    if listener.status == Status.DISABLED:
        raise ListenerStatus(
            id=listener.pk, status=listener.status, what=_("a disabled listener runs no more")
        )
    try:
        # What the run keeps: PostgreSQL's JSON holds no NUL, no NaN or infinity.
        json_input.check(payload)
    except json_input.JsonRefused as refused:
        where = f"payload.{refused.where}" if refused.where else "payload"
        raise invalid(where, refused.problem) from None
    if not current_steps(listener):
        raise ListenerStatus(
            id=listener.pk, status=listener.status, what=_("it has no steps; updateListenerFlow first")
        )
    if listener.trigger_kind != Trigger.RECORD:
        if record_id is not None:
            raise invalid("recordId", _("only a record listener runs on a record; leave it out"))
        return None
    kind = kinds.kind_named(listener.trigger["entityType"])
    if record_id is None:
        raise invalid(
            "recordId",
            _("a record listener runs on a record: give the id of a {kind} (searchEntities finds one)"),
            kind=kind.key,
        )
    rows = kind.model_class.objects.restrict(actor, "view")  # type: ignore[attr-defined]
    record = rows.filter(pk=record_id).first()
    if record is None:
        raise invalid("recordId", _("no {kind} {id} that you may see"), kind=kind.key, id=record_id)
    owner = listener.owner
    if owner is None or not kind.model_class.objects.restrict(owner, "view").filter(pk=record_id).exists():  # type: ignore[attr-defined]
        raise invalid(
            "recordId", _("the listener's owner may not see {kind} {id}"), kind=kind.key, id=record_id
        )
    return record


def listener_trigger(
    *, actor: Actor, listener: Listener, payload: dict[str, Any], record_id: int | None = None
) -> Run | None:
    """A run by hand (triggerListener, the page): active or paused listeners and drafts alike,
    never a disabled one. A record listener runs on a record given by id, with the payload its
    event would carry (its first event), the caller's payload beside it as `manual`."""
    record = trigger_check(actor=actor, listener=listener, record_id=record_id, payload=payload)
    key = f"manual:{secrets.token_hex(8)}"
    given: dict[str, Any] = {"manual": payload}
    if record is not None:
        from apps.listeners import events

        event = next((name for name in listener.trigger.get("events", []) if name != "deleted"), "created")
        given = {**events.payload_of(listener.trigger["entityType"], record, event), "manual": payload}
    return fire(listener, key=key, source="manual", payload=given, started_by=actor)


def scheduled_due(now: datetime | None = None) -> int:
    """Fires every active scheduled listener whose time has come, once per scheduled time (the
    key), and sets its next time. Answers how many fired."""
    now = now or timezone.now()
    fired = 0
    due = Listener.objects.filter(
        trigger_kind=Trigger.SCHEDULE, status=Status.ACTIVE, next_run_at__lte=now, deleted_at__isnull=True
    )
    for listener_id in list(due.values_list("pk", flat=True)):
        with transaction.atomic():
            listener = Listener.objects.select_for_update().get(pk=listener_id)
            at = listener.next_run_at
            if at is None or at > now or listener.status != Status.ACTIVE:
                continue
            _schedule(listener, after=now)
            listener.save(update_fields=["next_run_at"])
            local = at.astimezone(ZoneInfo(listener.trigger["zone"]))
            payload = {"scheduledAt": at.isoformat(), "localTime": local.isoformat()}
            if fire(listener, key=f"schedule:{at.isoformat()}", source="schedule", payload=payload):
                fired += 1
    return fired


# --- runs --------------------------------------------------------------------------------------


def run_cancel(*, actor: Actor, run: Run) -> Run:
    """A queued run is cancelled at once; a running one is asked to stop: its current step sees it
    (the dispatcher's cancellation) and no further step starts."""
    require(actor, ListenersPerm.EDIT)
    if run.status not in (Run.Status.QUEUED, Run.Status.RUNNING):
        raise RunNotCancellable(id=run.pk, status=run.status)
    if run.status == Run.Status.QUEUED:
        Run.objects.filter(pk=run.pk, status=Run.Status.QUEUED).update(
            status=Run.Status.CANCELLED,
            finished_at=timezone.now(),
            error=str(_("Cancelled before it started.")),
        )
    Run.objects.filter(pk=run.pk).update(cancel_requested=True)
    run.refresh_from_db()
    return run


def run_retry(*, actor: Actor, run: Run) -> Run:
    """A failed or dead run queued again from the step that failed."""
    require(actor, ListenersPerm.EDIT)
    if run.status not in (Run.Status.FAILED, Run.Status.DEAD):
        raise RunNotRetryable(id=run.pk, status=run.status, why=_("only a failed or dead run is retried"))
    if run.depth >= max_depth():
        raise RunNotRetryable(
            id=run.pk,
            status=run.status,
            why=_("it was stopped at the depth bound, and would stop there again"),
        )
    version, step = _resumed_at(run)
    Run.objects.filter(pk=run.pk).update(
        status=Run.Status.QUEUED,
        attempts=0,
        error="",
        due_at=timezone.now(),
        finished_at=None,
        flow_version=version,
        next_step=step,
    )
    run.refresh_from_db()
    from apps.listeners import tasks

    tasks.enqueue(run)
    return run


def _resumed_at(run: Run) -> tuple[int, int]:
    """Where a retried run starts: the listener's flow as it is now (the version a run triggered
    now would take, with its approvals), at the step that failed, found by its id. A failed step
    the owner removed: the step after the last one the run did. The steps it did are not done
    again, whatever their place now."""
    listener = Listener.objects.get(pk=run.listener_id)  # its version now, not as read before
    if listener.version == run.flow_version:
        return run.flow_version, run.next_step
    old = list(FlowVersion.objects.get(listener=listener, number=run.flow_version).steps)
    ids = [step["id"] for step in current_steps(listener)]
    if not ids:
        return run.flow_version, run.next_step
    done = {entry["step"] for entry in run.results if entry.get("outcome") == "ok"}
    after_done = 1 + max((ids.index(each) for each in done if each in ids), default=-1)
    failed = old[run.next_step]["id"] if run.next_step < len(old) else None
    return listener.version, max(ids.index(failed), after_done) if failed in ids else after_done


def backoff(attempts: int) -> timedelta:
    base = int(getattr(settings, "ATRIUM_LISTENERS_RETRY_SECONDS", 30))
    return timedelta(seconds=base * 2 ** max(0, attempts - 1))
