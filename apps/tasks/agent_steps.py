"""The steps of kind `agent`: what the service's agent is told about one, and what happens when its
work ends (apps.core.agents, which the message gateway fills).

A step of kind `agent` is work the service's agent does, following the task's instructions, the
step's instructions and card, the steering people gave, and the records linked to the step. The
runner hands it over with `brief_of` and `instead` (apps.tasks.runner); the step waits
(`waiting_on = "agent"`) until the agent's work ends, or, when it could not start (no key chosen,
the key revoked, its budget spent), until a person chooses a key (updateTask with agentKeyId hands
it over again), does the step, or skips it.

When the agent's work ends, `finished` (registered with `agents.on_finished` by apps.tasks.area)
queues a Celery task that enters the task's workspace and finishes the step through
`apps.tasks.runner.agent_finished`, which lets the run go on. That is idempotent: the same end
reported twice (the report, then the sweeper) finishes the step once. The sweeper
(`apps.tasks.tasks.finish_ended_agent_steps`) asks the agent's `outcome(reference=)` about the
steps still waiting on it, so an end whose report was lost (a broker down) is not lost.
"""

import logging
from typing import Any

from django.utils.translation import gettext as _

from apps.core import agents

logger = logging.getLogger(__name__)


def brief_of(*, task: Any, step: Any, run: Any, reader: Any) -> agents.Brief:
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
    return agents.Brief(request=request, background=lines)


def instead(task: Any) -> str:
    """What people can do while a step waits on the agent, in a sentence."""
    from apps.tasks.runner import done_column

    return _("A person can also do the step and move it to “%(done)s”, or skip it.") % {
        "done": done_column(task).name
    }


def finished(
    *, schema_name: str, task_id: int, step_id: int, reference: str, outcome: agents.Outcome
) -> None:
    """apps.core.agents' receiver: the agent's work on a step ended. Queues finishing the step in
    its workspace; a broker that does not answer loses nothing: the sweeper finds the step and
    asks the agent's `outcome` again."""
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
