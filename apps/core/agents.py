"""Where the service's own agent takes over work an area hands it, without the area importing the
door that runs the agent: the message gateway (apps.gateway.handover) fills this interface from
its `AppConfig.ready()`, like the API keys fill `apps.core.spending`.

    from apps.core import agents
    agents.register(GatewayHandOver())      # the gateway: the agent
    agents.on_finished(agent_steps.finished)  # the Tasks area: what to do when the work ends

Today the work is a step of kind `agent` of a task (apps.tasks.agent_steps). The area describes
it (`Brief`: the request, then the background line by line; `instead`: what people can do while
it waits) and calls `handler().hand_over(...)` when a run reaches such a step. The agent starts
its work (a conversation of the gateway, on the task's `agent_key`, run by a Celery task) and
answers a `HandedOver`: what it did, in a sentence for the task's history, and the reference of
the work it started (the conversation's uuid). When it could not start it (no key chosen, the key
revoked, its budget spent), the reference is empty and the sentence says why and what to do.

When the work ends, the agent calls `finished(...)` (after the commit of that end), which hands
the report to the area's receiver; `outcome(reference=)` answers the area's sweeper about work
whose report was lost (a broker down). Until an agent is registered, nothing pretends to do the
work: `handler()` is None and the area says so.
"""

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from apps.core.actors import Actor

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Brief:
    """What the agent is told: the request (a step's title and instructions) and the background,
    line by line (which step of which task, its instructions, its card, the steering given, the
    records linked to it)."""

    request: str
    background: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class HandedOver:
    """What `hand_over` did: `message` for the area's history and the step; `reference` the work
    it started (the gateway conversation's uuid), or "" when it could not start it (then the
    message says why and what to do)."""

    message: str
    reference: str = ""


@dataclass(frozen=True)
class Outcome:
    """How the agent's work ended: done (`text` is the result: the agent's reply) or failed
    (`text` says why)."""

    done: bool
    text: str


class HandOver(Protocol):
    def hand_over(
        self, *, task: Any, step: Any, run: Any, actor: Actor | None, brief: Brief, instead: str
    ) -> HandedOver:
        """Starts the agent on `step` of `task` (in the caller's transaction), told `brief`;
        `instead` is what people can do meanwhile, for the messages that say it could not start."""
        ...

    def outcome(self, *, reference: str) -> Outcome | None:
        """How the work `reference` ended, or None while it goes on."""
        ...


class Finished(Protocol):
    def __call__(
        self, *, schema_name: str, task_id: int, step_id: int, reference: str, outcome: Outcome
    ) -> None: ...


_handler: HandOver | None = None
_receiver: Finished | None = None


def register(handler: HandOver | None) -> None:
    global _handler
    _handler = handler


def handler() -> HandOver | None:
    return _handler


def on_finished(receiver: Finished | None) -> None:
    """The area that hands work over says who hears that it ended."""
    global _receiver
    _receiver = receiver


def finished(*, schema_name: str, task_id: int, step_id: int, reference: str, outcome: Outcome) -> None:
    """The agent's report that its work on a step ended (call it after the commit of that end),
    passed to the receiver. Without one the report is dropped: the area's sweeper asks `outcome`
    again."""
    receiver: Callable[..., None] | None = _receiver
    if receiver is None:
        logger.warning("the end of the agent's work %s was reported with no receiver", reference)
        return
    receiver(schema_name=schema_name, task_id=task_id, step_id=step_id, reference=reference, outcome=outcome)
