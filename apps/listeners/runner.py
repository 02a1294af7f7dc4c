"""Runs a listener's queued run: its steps in order, each tool call through the catalogue's
dispatcher as a direct call would go (`call_tool`), as the listener's owner with the owner's
permissions read again now, one audit row per call naming the listener (credential
`listener:<id>`, client its name), door `listener` in the records' histories.

- A step marked DESTRUCTIVE, HIGH RISK or GATED runs only when a person approved that very step
  at activation (for this version of the flow): the runner then confirms it to the dispatcher
  itself, for these arguments only. Otherwise the run fails at that step, saying so.
- Each tool step commits with the run's progress (one transaction): a worker stopped mid-step
  leaves neither, and the run resumes from that step (`sweep`) or, its attempts spent, fails.
- A failure of the server (not of the arguments) is retried with exponential backoff, then the
  run is dead; concurrency is capped per listener (`max_concurrent`) and per workspace
  (ATRIUM_LISTENERS_WORKSPACE_CONCURRENCY); runs of one record's events start in order.
- Cancellation is read before each step and by the running tool (`ToolContext.is_cancelled`).
- Changes a run makes carry its origin (`acting`): an event they cause fires with the chain, and
  one `max_depth()` runs deep stops (apps.listeners.services.fire).
"""

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.catalogue import policy, registry
from apps.catalogue.dispatch import MemorySession, ToolContext, ToolNotFound, call_tool
from apps.catalogue.registry import CONFIRMATION_ARGUMENT
from apps.core import errors
from apps.core.credentials import Principal
from apps.listeners import services
from apps.listeners.lib import flows
from apps.listeners.models import Listener, Run

logger = logging.getLogger(__name__)
Status = Run.Status
# The dispatcher's own codes for a failure of the server (a bug, the database): worth another
# attempt. Any other code is retried when its error class answers with a status of the server's
# side or of waiting (`RETRY_STATUSES`): a dependency unavailable, timing out, asking to slow down.
SERVER_CODES = frozenset({"INTERNAL", "DATABASE"})
RETRY_STATUSES = frozenset({408, 429, 500, 502, 503, 504})


def retryable(code: str) -> bool:
    """Whether a failed call with this error code may succeed when made again unchanged: decided
    by the code and its class (apps.core.errors' registry), never by the message's words."""
    if code in SERVER_CODES:
        return True
    declared = errors.codes().get(code)
    return declared is not None and declared.http_status in RETRY_STATUSES


_acting: ContextVar[list[dict[str, int]] | None] = ContextVar("listener_acting", default=None)


def acting() -> list[dict[str, int]] | None:
    """The chain of runs the current code acts in (outermost first), None outside a run."""
    return _acting.get()


@contextmanager
def _within(chain: list[dict[str, int]]) -> Iterator[None]:
    token = _acting.set(chain)
    try:
        yield
    finally:
        _acting.reset(token)


def max_attempts() -> int:
    return int(getattr(settings, "ATRIUM_LISTENERS_MAX_ATTEMPTS", 4))


def workspace_cap() -> int:
    return int(getattr(settings, "ATRIUM_LISTENERS_WORKSPACE_CONCURRENCY", 4))


class Deferred(Exception):
    """The run may not start yet (a cap, an earlier run of its record): it stays queued."""


def _claim(run_id: int) -> Run | None:
    """The run, now RUNNING, or None when it is not this worker's to run now."""
    now = timezone.now()
    with transaction.atomic():
        run = Run.objects.select_for_update().filter(pk=run_id).first()
        if run is None or run.status != Status.QUEUED or run.due_at > now:
            return None
        listener = Listener.objects.select_for_update().get(pk=run.listener_id)
        if listener.status == Listener.Status.PAUSED and run.source != "manual":
            return None  # it starts once the listener is resumed (the sweep)
        running = Run.objects.filter(status=Status.RUNNING)
        if running.filter(listener=listener).count() >= listener.max_concurrent or (
            running.count() >= workspace_cap()
        ):
            Run.objects.filter(pk=run.pk).update(due_at=now + timedelta(seconds=5))
            raise Deferred
        if run.order_key and (
            Run.objects.filter(
                listener=listener,
                order_key=run.order_key,
                pk__lt=run.pk,
                status__in=(Status.QUEUED, Status.RUNNING),
            ).exists()
        ):
            raise Deferred
        run.status = Status.RUNNING
        run.started_at = run.started_at or now
        run.heartbeat_at = now
        run.attempts += 1
        run.save(update_fields=["status", "started_at", "heartbeat_at", "attempts"])
    return run


def run(run_id: int) -> str:
    """Runs the run if it is due and may start; answers its status afterwards ("" if not taken)."""
    try:
        claimed = _claim(run_id)
    except Deferred:
        return ""
    if claimed is None:
        return ""
    listener = Listener.objects.select_related("owner").get(pk=claimed.listener_id)
    try:
        _steps(claimed, listener)
    except _Stop as stop:
        _finish(claimed, stop.status, stop.reason)
    except _Retry as retry:
        _failed_on_server(claimed, str(retry)[:500])
    except Exception as error:
        logger.exception("listener %s run %s failed", listener.pk, claimed.pk)
        _failed_on_server(claimed, f"{type(error).__name__}")
    if claimed.status == Status.SUCCEEDED:
        _queue_next_of(claimed)
    return str(claimed.status)


class _Stop(Exception):
    def __init__(self, status: str, reason: str = "") -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


def _finish(run: Run, status: str, reason: str = "") -> None:
    run.status = status
    run.error = reason
    run.finished_at = timezone.now()
    Run.objects.filter(pk=run.pk).update(status=status, error=reason, finished_at=run.finished_at)
    if status != Status.QUEUED:
        _queue_next_of(run)


def _queue_next_of(run: Run) -> None:
    """The next queued run of the same record, now that this one is done."""
    if not run.order_key:
        return
    following = (
        Run.objects.filter(listener_id=run.listener_id, order_key=run.order_key, status=Status.QUEUED)
        .order_by("pk")
        .first()
    )
    if following is not None:
        from apps.listeners import tasks

        tasks.enqueue(following)


def _failed_on_server(run: Run, reason: str) -> None:
    """Another attempt later (exponential backoff), or dead when they are spent."""
    if run.attempts >= max_attempts():
        _finish(
            run,
            Status.DEAD,
            _("Dead after {attempts} attempts: {reason}").format(attempts=run.attempts, reason=reason),
        )
        return
    run.status = Status.QUEUED
    run.due_at = timezone.now() + services.backoff(run.attempts)
    run.error = _("Attempt {attempts} failed ({reason}); retried at {at}.").format(
        attempts=run.attempts, reason=reason, at=run.due_at.isoformat()
    )
    Run.objects.filter(pk=run.pk).update(status=run.status, due_at=run.due_at, error=run.error)
    from apps.listeners import tasks

    tasks.enqueue(run)


def _owner(listener: Listener) -> Any:
    """The owner as they are now (role and all), or _Stop when nobody may act: the listener is
    then paused, so that its triggers make no more runs that cannot run (someone who may
    activate it takes it over, or disables it)."""
    owner = None
    if listener.owner_id is not None:
        owner = get_user_model().objects.select_related("role").filter(pk=listener.owner_id).first()
    if owner is not None and owner.is_active:
        return owner
    Listener.objects.filter(pk=listener.pk, status=Listener.Status.ACTIVE).update(
        status=Listener.Status.PAUSED, next_run_at=None
    )
    logger.info("listener %s paused: its owner is gone or no longer active", listener.pk)
    if listener.owner_id is None:
        raise _Stop(Status.FAILED, _("The listener has no owner any more; nothing acts for nobody."))
    raise _Stop(Status.FAILED, _("The listener's owner is no longer active; nothing ran."))


def _steps(run: Run, listener: Listener) -> None:
    steps = list(listener.versions.get(number=run.flow_version).steps)
    chain = [*run.origin, {"listener": listener.pk, "run": run.pk}]
    done = {entry["step"]: entry.get("result") for entry in run.results if "step" in entry}
    while run.next_step < len(steps):
        step = steps[run.next_step]
        _check_still_wanted(run, listener)
        owner = _owner(listener)
        names = services.flows_names(listener, run.payload, done)
        entry: dict[str, Any] = {
            "step": step["id"],
            "kind": flows.kind_of(step),
            "at": timezone.now().isoformat(),
        }
        if "when" in step and not _true("when", names, step):
            entry["outcome"] = "skipped"
            _progress(run, entry)
            continue
        kind = flows.kind_of(step)
        if kind == "if":
            if not _true("if", names, step):
                entry["outcome"] = "stopped"
                _progress(run, entry)
                raise _Stop(
                    Status.SUCCEEDED,
                    _("Stopped at step {step}: its condition is false.").format(step=step["id"]),
                )
            entry["outcome"] = "passed"
            _progress(run, entry)
        elif kind == "delay":
            entry["outcome"] = "waiting"
            run.due_at = timezone.now() + timedelta(seconds=step["delay"])
            _progress(run, entry, status=Status.QUEUED)
            from apps.listeners import tasks

            tasks.enqueue(run)
            return
        elif kind == "emailOwner":
            _email_owner(run, listener, owner, step, names, entry)
        else:
            with _within(chain):
                _tool(run, listener, owner, step, names, entry)
            done[step["id"]] = entry.get("result")
    _finish(run, Status.SUCCEEDED)


def _check_still_wanted(run: Run, listener: Listener) -> None:
    state = Run.objects.filter(pk=run.pk).values("cancel_requested").first()
    if state is None or state["cancel_requested"]:
        raise _Stop(Status.CANCELLED, _("Cancelled before step {step}.").format(step=run.next_step + 1))
    fresh = Listener.objects.filter(pk=listener.pk).values("status", "deleted_at").first()
    if fresh is None or fresh["deleted_at"] is not None or fresh["status"] == Listener.Status.DISABLED:
        raise _Stop(Status.CANCELLED, _("The listener was disabled or deleted; the run stopped."))


def _true(field: str, names: dict[str, Any], step: dict[str, Any]) -> bool:
    try:
        return bool(flows.evaluate(step[field], names))
    except flows.ExpressionFailed as error:
        raise _Stop(
            Status.FAILED,
            _("Step {step}: {field}: {problem}").format(step=step["id"], field=field, problem=error),
        ) from error


def _progress(run: Run, entry: dict[str, Any], *, status: str | None = None) -> None:
    run.results = [*run.results, entry]
    run.next_step += 1
    _record(run, status)


def _failed_step(run: Run, entry: dict[str, Any], outcome: str, reason: str) -> _Stop:
    """The step's failure in the run's results, the run still at that step (a retry runs it
    again, never the step after it): the _Stop to raise."""
    entry.update(outcome=outcome, error=reason[:2000])
    run.results = [*run.results, entry]
    _record(run, None)
    return _Stop(Status.FAILED, reason)


def _record(run: Run, status: str | None) -> None:
    run.heartbeat_at = timezone.now()
    fields: dict[str, Any] = {
        "results": run.results,
        "next_step": run.next_step,
        "heartbeat_at": run.heartbeat_at,
    }
    if status is not None:
        run.status = status
        fields.update(status=status, due_at=run.due_at)
    Run.objects.filter(pk=run.pk).update(**fields)


def principal_of(listener: Listener, owner: Any) -> Principal:
    return Principal(
        user=owner,
        scheme="listener",
        scopes=frozenset({"mcp"}),
        credential=f"listener:{listener.pk}",
        client=f"Listener {listener.pk}: {listener.name}"[:200],
    )


def _tool(
    run: Run,
    listener: Listener,
    owner: Any,
    step: dict[str, Any],
    names: dict[str, Any],
    entry: dict[str, Any],
) -> None:
    name = step["tool"]
    entry["tool"] = name
    try:
        arguments = flows.render(step.get("arguments", {}), names, "arguments")
    except flows.ExpressionFailed as error:
        reason = _("Step {step} ({tool}): {problem}").format(step=step["id"], tool=name, problem=error)
        raise _failed_step(run, entry, "failed", reason) from error
    spec = registry.get(name)
    session = MemorySession(f"listener-run:{run.pk}")
    if spec is not None and spec.needs_confirmation:
        approved = (
            step["id"] in (listener.approved_steps or []) and listener.approved_version == run.flow_version
        )
        if not approved:
            reason = _(
                "Step {step} calls {tool} ({markers}), which was not approved when the listener was "
                "activated; nothing ran. Activate it again approving that step."
            ).format(step=step["id"], tool=name, markers=", ".join(spec.markers.labels))
            raise _failed_step(run, entry, "refused", reason)
        validated = spec.input_model.model_validate(arguments) if isinstance(arguments, dict) else None
        if validated is not None:
            digest = policy.arguments_digest(spec, owner.pk, validated.model_dump(mode="json"))
            arguments = {**arguments, CONFIRMATION_ARGUMENT: policy.issue_token(session, digest)}
    ctx = ToolContext(
        principal=principal_of(listener, owner),
        session=session,
        door="listener",
        request_id=f"listener-run:{run.pk}:{step['id']}",
    )
    ctx.is_cancelled = lambda: Run.objects.filter(pk=run.pk, cancel_requested=True).exists()
    failure: tuple[str, str] | None = None
    with transaction.atomic():
        try:
            result = call_tool(ctx, name, arguments)
        except ToolNotFound:
            reason = _(
                "Step {step}: the owner may not use {tool} now (their role, the areas); nothing ran."
            ).format(step=step["id"], tool=name)
            failure = ("refused", reason)
        else:
            text = "\n".join(
                block.get("text", "") for block in result.get("content", []) if isinstance(block, dict)
            )
            if result.get("isError") and retryable(ctx.error_code):
                raise _Retry(text)
            if result.get("isError"):
                failure = (
                    "failed",
                    _("Step {step} ({tool}) failed: {problem}").format(
                        step=step["id"], tool=name, problem=text[:1000]
                    ),
                )
            else:
                entry.update(outcome="ok", result=result.get("structuredContent"))
                _progress(run, entry)
    if failure is not None:
        raise _failed_step(run, entry, *failure)


class _Retry(Exception):
    pass


def _email_owner(
    run: Run,
    listener: Listener,
    owner: Any,
    step: dict[str, Any],
    names: dict[str, Any],
    entry: dict[str, Any],
) -> None:
    from apps.mail import api as mail

    try:
        subject = str(flows.render(step["emailOwner"]["subject"], names, "emailOwner.subject"))[:200]
        text = str(flows.render(step["emailOwner"]["text"], names, "emailOwner.text"))
    except flows.ExpressionFailed as error:
        reason = _("Step {step}: {problem}").format(step=step["id"], problem=error)
        raise _failed_step(run, entry, "failed", reason) from error
    footer = _("Sent by the listener “{name}” of your workspace.").format(name=listener.name)
    mail.send([mail.Notice(to=[owner.email], subject=subject, text=f"{text}\n\n-- \n{footer}")])
    entry.update(outcome="ok", result={"to": owner.email, "subject": subject})
    _progress(run, entry)


def sweep(now: Any = None) -> int:
    """Runs a worker lost: running with no heartbeat for ATRIUM_LISTENERS_STALE_SECONDS resume
    from their step (the step in progress was rolled back with its transaction) or, their attempts
    spent, fail saying so; queued runs that are due are queued again (a message lost on the
    way). Answers how many it touched."""
    now = now or timezone.now()
    stale = now - timedelta(seconds=int(getattr(settings, "ATRIUM_LISTENERS_STALE_SECONDS", 600)))
    touched = 0
    for lost in Run.objects.filter(status=Status.RUNNING, heartbeat_at__lt=stale):
        touched += 1
        if lost.attempts >= max_attempts():
            _finish(
                lost,
                Status.FAILED,
                _("Interrupted (the worker stopped) after {attempts} attempts; not resumed.").format(
                    attempts=lost.attempts
                ),
            )
        else:
            Run.objects.filter(pk=lost.pk, status=Status.RUNNING).update(
                status=Status.QUEUED,
                due_at=now,
                error=str(_("Interrupted (the worker stopped); resumed from its step.")),
            )
    from apps.listeners import tasks

    for due in Run.objects.filter(status=Status.QUEUED, due_at__lte=now).exclude(
        listener__status=Listener.Status.PAUSED, source__in=("record", "schedule", "webhook")
    )[:200]:
        touched += 1
        tasks.enqueue(due)
    return touched
