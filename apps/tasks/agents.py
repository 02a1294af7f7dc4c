"""Where the service's own agent takes over the steps that need it.

A step of kind `agent` is work the service's agent does, following the task's instructions, the
step's instructions and card, the steering people gave, and the records linked to the step. The
agent lives in the message gateway (apps.gateway), which registers a handler here from its
`AppConfig.ready()` (apps.gateway.handover):

    from apps.tasks import agents
    agents.register(GatewayHandOver())

`hand_over(task=, step=, run=, actor=)` is called when a run reaches such a step. It starts the
agent's work (a conversation of the gateway, on the task's `agent_key`, run by a Celery task) and
answers a `HandedOver`: what it did, in a sentence for the task's history, and the reference of
the work it started (the conversation's uuid). When it could not start it (no key chosen, the key
revoked, its budget spent), the reference is empty and the sentence says why and what to do; the
step waits (`waiting_on = "agent"`) until a person chooses a key (updateTask with agentKeyId hands
it over again), does the step, or skips it.

When the agent's work ends, the handler calls `finished(...)` (after the commit of that end): a
Celery task enters the task's workspace and finishes the step through
`apps.tasks.runner.agent_finished`, which lets the run go on. That is idempotent: the same end
reported twice (the signal, then the sweeper) finishes the step once. The sweeper
(`apps.tasks.tasks.finish_ended_agent_steps`) asks the handler's `outcome(reference=)` about the
steps still waiting on the agent, so an end whose report was lost (a broker down) is not lost.

Until a handler is registered, nothing pretends to do the step: the step waits for the agent, the
task says so, and a person can do the step and move it to the board's last column, or skip it.
"""

import logging
from dataclasses import dataclass, field
from typing import Any, Protocol

from django.utils.translation import gettext as _

from apps.core.actors import Actor

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class HandedOver:
    """What `hand_over` did: `message` for the task's history and the step; `reference` the work
    it started (the gateway conversation's uuid), or "" when it could not start it (then the
    message says why and what to do)."""

    message: str
    reference: str = ""


@dataclass(frozen=True)
class Outcome:
    """How the agent's work on a step ended: done (`text` is the step's result: the agent's reply)
    or failed (`text` says why)."""

    done: bool
    text: str


class HandOver(Protocol):
    def hand_over(self, *, task: Any, step: Any, run: Any, actor: Actor | None) -> HandedOver:
        """Starts the agent on `step` (in the caller's transaction)."""
        ...

    def outcome(self, *, reference: str) -> Outcome | None:
        """How the work `reference` ended, or None while it goes on."""
        ...


_handler: HandOver | None = None


def register(handler: HandOver | None) -> None:
    global _handler
    _handler = handler


def handler() -> HandOver | None:
    return _handler


@dataclass(frozen=True)
class Brief:
    """What the agent is told about a step: the request (the step's title and instructions) and
    the background, line by line (which step of which task, the task's instructions, the step's
    card, the steering given during the run, the records linked to the step)."""

    request: str
    background: list[str] = field(default_factory=list)


def brief_of(*, task: Any, step: Any, run: Any, reader: Any) -> Brief:
    """The brief of `step`; linked records are named as `reader` (the person the agent acts as)
    may see them."""
    from apps.core import kinds
    from apps.tasks.models import TaskEvent

    request = "\n".join(part for part in (step.title.strip(), step.instructions.strip()) if part)
    lines = [
        _(
            "The request above is step %(n)s of %(total)s, “%(step)s”, of the task “%(task)s” (task %(id)s"
            "%(run)s). Your reply becomes the step's result: say what you did, with ids."
        )
        % {
            "n": step.position + 1,
            "total": task.steps.count(),
            "step": step.title,
            "task": task.title,
            "id": task.pk,
            "run": _(", run %(n)s") % {"n": run.number} if run is not None else "",
        }
    ]
    if task.instructions:
        lines += ["", _("The task's instructions:"), task.instructions]
    card = []
    if step.notes:
        card.append(_("Notes: %(notes)s") % {"notes": step.notes})
    if step.labels:
        card.append(_("Labels: %(labels)s") % {"labels": ", ".join(step.labels)})
    if step.due_at:
        card.append(_("Due: %(when)s") % {"when": step.due_at.isoformat(timespec="minutes")})
    items = list(step.checklist.order_by("position", "id"))
    if items:
        card.append(_("Checklist:"))
        card += [f"- [{'x' if item.done else ' '}] {item.text}" for item in items]
    if card:
        lines += ["", _("The step's card:"), *card]
    steering = TaskEvent.objects.filter(task=task, kind=TaskEvent.Kind.STEERED)
    if run is not None:
        steering = steering.filter(run=run)
    guidance = list(steering.order_by("at", "id").values_list("message", flat=True))
    if guidance:
        lines += ["", _("Steering people gave during the run (oldest first; follow the latest):")]
        lines += [f"- {text}" for text in guidance]
    links = []
    for link in step.links.order_by("linked_at", "id"):
        found = kinds.visible(actor=reader, content_type_id=link.content_type_id, object_id=link.object_id)
        if found is None:
            # Removed, or hidden from the person the agent acts as: its title is not theirs to read.
            kind = kinds.type_of_content_type(link.content_type_id)
            links.append(
                _("- %(type)s %(id)s (removed, or the task's owner may not see it)")
                % {"type": kind, "id": link.object_id}
            )
        else:
            links.append(f"- {found.type} {found.id}: {found.title}")
    if links:
        lines += ["", _("Records linked to the step:"), *links]
    return Brief(request=request, background=lines)


def instead(task: Any) -> str:
    """What people can do while a step waits on the agent, in a sentence."""
    from apps.tasks.runner import done_column

    return _("A person can also do the step and move it to “%(done)s”, or skip it.") % {
        "done": done_column(task).name
    }


def finished(*, schema_name: str, task_id: int, step_id: int, reference: str, outcome: Outcome) -> None:
    """The handler's report that the agent's work on a step ended (call it after the commit of
    that end). Queues finishing the step in its workspace; a broker that does not answer loses
    nothing: the sweeper finds the step and asks `outcome` again."""
    from apps.tasks.tasks import finish_agent_step

    try:
        finish_agent_step.apply_async(
            kwargs={
                "task_id": task_id,
                "step_id": step_id,
                "reference": reference,
                "done": outcome.done,
                "text": outcome.text,
                "schema_name": schema_name,
            }
        )
    except Exception:
        logger.exception(
            "the end of the agent's work on step %s of task %s could not be queued; the sweeper will "
            "finish it",
            step_id,
            task_id,
        )
