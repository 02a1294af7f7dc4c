"""Where the service's own agent takes over the steps that need it.

A step of kind `agent` is work the service's agent would do, following the task's instructions,
the step's instructions and card, the steering people gave, and the records linked to the step.
The agent lives in the message gateway (apps.gateway, a later part of the service), which
registers a handler here from its `AppConfig.ready()`:

    from apps.tasks import agents
    agents.register(GatewayHandOver())

`hand_over(task=, step=, run=, actor=)` is called when a run reaches such a step; it starts the
agent's work (a conversation, run by a Celery task) and returns what it did, in a sentence. When
the agent is done it finishes the step through `apps.tasks.runner.step_finish` (or fails it
with `step_fail`), which lets the run go on.

Until a handler is registered, nothing pretends to do the step: the step waits for the agent
(`waiting_on = "agent"`), the task says so, and a person can do the step and move it to the
board's last column, or skip it.
"""

from typing import Any, Protocol


class HandOver(Protocol):
    def hand_over(self, *, task: Any, step: Any, run: Any, actor: Any) -> str:
        """Starts the agent on `step`; returns what was done, for the task's history."""
        ...


_handler: HandOver | None = None


def register(handler: HandOver | None) -> None:
    global _handler
    _handler = handler


def handler() -> HandOver | None:
    return _handler
