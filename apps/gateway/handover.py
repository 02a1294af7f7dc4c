"""The gateway's agent doing the agent steps of tasks (apps.core.agents, filled here from
GatewayConfig.ready()).

A run that reaches an `agent` step hands it over here: a conversation is started for the task's
owner on the task's `agent_key` (whose budget pays for it), through the gateway's own service as
`POST /api/agent` would start it, with

- a message: the step's title and instructions (the request), then, after a line `---`, the
  background the Tasks area writes (apps.tasks.agent_steps): which task and step this is, the
  task's instructions, the step's card (notes, labels, due date, checklist), the steering people
  gave during the run and the records linked to the step (the built-in agent acts on the request
  only; a model reads it all);
- context {entity_type: "task", entity_id: the task's id};
- metadata {"task": {"id", "step_id", "run"}}, linking the conversation to the step.

The conversation's uuid is recorded on the step (and in the task's history), so its owner can
follow it (`GET /api/agent/{uuid}`, and the conversations list). Without a key, with a revoked key
or a spent budget, nothing starts: the step waits, saying why and what to do.

When the conversation ends (`signals.conversation_finished`, after its commit), the step is
finished through `apps.core.agents.finished` (the Tasks area's receiver): resolved, with the
agent's reply as its result; failed (cancelled, expired), with the reason. `outcome` answers the
tasks' sweeper the same.
"""

import logging
from typing import Any

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.apikeys.errors import BudgetExceeded, KeyOwnerMismatch, KeyRevoked
from apps.apikeys.models import ApiKey
from apps.core import agents
from apps.core.actors import Actor
from apps.core.errors import ValidationFailed
from apps.gateway import services, validation
from apps.gateway.models import Conversation, Turn

logger = logging.getLogger(__name__)

BACKGROUND = "---"


def choose_key() -> str:
    return _(
        "choose the API key whose budget pays for the agent's steps: updateTask with agentKeyId (an active "
        "key of the task's owner; Settings → API keys lists them)"
    )


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: max(limit - 12, 0)].rstrip() + " … (cut)"


def compose(brief: agents.Brief) -> str:
    """The message: the step's request first, then the background after a line `---`, cut to the
    gateway's limit (the background first)."""
    limit = settings.GATEWAY_MESSAGE_MAX_CHARS
    request = _cut(brief.request, limit // 2)
    background = "\n".join(brief.background)
    room = limit - len(request) - len(BACKGROUND) - 4
    return f"{request}\n\n{BACKGROUND}\n{_cut(background, room)}"


class GatewayHandOver:
    """apps.core.agents.HandOver, by the message gateway."""

    def hand_over(
        self, *, task: Any, step: Any, run: Any, actor: Actor | None, brief: agents.Brief, instead: str
    ) -> agents.HandedOver:
        owner = task.owner
        if owner is None or not owner.is_active:
            return agents.HandedOver(
                _(
                    "Waiting for the service's agent, which acts as the task's owner: the task has no active "
                    "owner, so it cannot be handed over. %(instead)s"
                )
                % {"instead": instead}
            )
        key = ApiKey.objects.filter(pk=task.agent_key_id).first() if task.agent_key_id else None
        if key is None:
            return agents.HandedOver(
                _(
                    "Waiting for the service's agent: no API key pays for it yet. To hand it over, "
                    "%(choose)s. %(instead)s"
                )
                % {"choose": choose_key(), "instead": instead}
            )
        try:
            request = validation.clean(
                {
                    "message": compose(brief),
                    "context": {"entity_type": "task", "entity_id": str(task.pk)},
                    "metadata": {
                        "task": {
                            "id": task.pk,
                            "step_id": step.pk,
                            "run": run.number if run is not None else None,
                        }
                    },
                }
            )
        except ValidationFailed as error:
            return agents.HandedOver(
                _("The step could not be handed to the service's agent: %(why)s %(instead)s")
                % {"why": error.message, "instead": instead}
            )
        try:
            conversation = services.conversation_start(user=owner, key=key, request=request)
        except (KeyOwnerMismatch, KeyRevoked, BudgetExceeded) as error:
            return agents.HandedOver(
                _(
                    "Waiting for the service's agent: API key %(id)s (“%(label)s”) cannot pay for it: "
                    "%(why)s To hand it over, %(choose)s. %(instead)s"
                )
                % {
                    "id": key.pk,
                    "label": key.label,
                    "why": error.message,
                    "choose": choose_key(),
                    "instead": instead,
                }
            )
        logger.info("step %s of task %s handed to conversation %s", step.pk, task.pk, conversation.uuid)
        return agents.HandedOver(
            _(
                "Handed to the service's agent: conversation %(uuid)s, paid by API key %(id)s (“%(label)s”). "
                "The task's owner follows it with GET /api/agent/%(uuid)s."
            )
            % {"uuid": conversation.uuid, "id": key.pk, "label": key.label},
            reference=str(conversation.uuid),
        )

    def outcome(self, *, reference: str) -> agents.Outcome | None:
        conversation = Conversation.objects.filter(uuid=reference).first()
        if conversation is None:
            return agents.Outcome(
                False,
                _(
                    "The agent's conversation %(uuid)s no longer exists (conversations are kept 24 hours), "
                    "so how it ended is unknown. Rerun the step, or do it and move it to the last column."
                )
                % {"uuid": reference},
            )
        if conversation.status == Conversation.Status.RESOLVED:
            return agents.Outcome(True, reply_of(conversation))
        if conversation.status == Conversation.Status.FAILED:
            return agents.Outcome(False, failure_text(conversation, conversation.error_message))
        if conversation.expires_at <= timezone.now():
            return agents.Outcome(False, failure_text(conversation, services.expired_message()))
        return None


def reply_of(conversation: Conversation) -> str:
    turn = Turn.objects.filter(conversation=conversation, role=Turn.Role.AGENT).order_by("-position").first()
    return str(turn.payload.get("content", "")) if turn else ""


def failure_text(conversation: Conversation, message: str) -> str:
    return _("The service's agent could not do it (conversation %(uuid)s): %(why)s") % {
        "uuid": conversation.uuid,
        "why": message or services.generic_failure(),
    }


def task_step_of(conversation: Conversation) -> tuple[int, int] | None:
    """The task and step a conversation the service started for a task's step works on."""
    if conversation.token_id is not None:  # sent through POST /api/agent: not ours to link
        return None
    link = (conversation.metadata or {}).get("task")
    if not isinstance(link, dict):
        return None
    task_id, step_id = link.get("id"), link.get("step_id")
    if not isinstance(task_id, int) or not isinstance(step_id, int):
        return None
    return task_id, step_id


def on_conversation_finished(
    sender: Any,
    *,
    conversation: Conversation,
    status: str,
    reply: str = "",
    error_message: str = "",
    schema_name: str,
    **kwargs: Any,
) -> None:
    """signals.conversation_finished: the step the conversation worked on is finished."""
    linked = task_step_of(conversation)
    if linked is None:
        return
    if status == Conversation.Status.RESOLVED:
        outcome = agents.Outcome(True, reply)
    else:
        outcome = agents.Outcome(False, failure_text(conversation, error_message))
    agents.finished(
        schema_name=schema_name,
        task_id=linked[0],
        step_id=linked[1],
        reference=str(conversation.uuid),
        outcome=outcome,
    )


def install() -> None:
    from apps.gateway import signals

    agents.register(GatewayHandOver())
    signals.conversation_finished.connect(on_conversation_finished, dispatch_uid="gateway-task-steps")
