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
from dataclasses import dataclass
from typing import Any, Protocol

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
    def hand_over(self, *, task: Any, step: Any, run: Any, actor: Any) -> HandedOver:
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
