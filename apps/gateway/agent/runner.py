"""One run of the service's agent on one conversation (the Celery task `run_conversation` calls it).

The run claims the conversation (a lease), lets the agent work (the model agent when a backend is
configured, the built-in agent otherwise), ends the conversation, and makes the webhook's first
attempt at once, without waiting for a sweep. Failures:

- the worker dies: the lease runs out and the sweeper queues the conversation again (or fails it
  after GATEWAY_AGENT_MAX_ATTEMPTS runs); the next run resumes from the recorded steps;
- an unexpected error: logged with a reference, and the conversation handed back to be run again
  a few seconds later, or failed with a generic error once its attempts are used;
- cancelled meanwhile: the run notices at its next step (LeaseLost) and stops.
"""

import logging
import secrets
from typing import Any

from django.conf import settings
from django.utils.translation import gettext as _

from apps.gateway import deliveries, errors, services
from apps.gateway.agent.backends import configured_backend
from apps.gateway.agent.builtin import BuiltinAgent
from apps.gateway.agent.context import TOOL_LEASE_SECONDS, Run
from apps.gateway.agent.model import ModelAgent
from apps.gateway.agent.outcome import Finish
from apps.gateway.models import Conversation
from apps.gateway.tracing import request_scope

logger = logging.getLogger(__name__)


def run_conversation(conversation_id: int) -> str | None:
    """Runs the agent on a conversation if it is there to be run. Returns its final status, or
    None when this worker did not run it (someone else holds it, it ended, it expired). The run's
    log lines carry the request id of the POST that created the conversation, even when a sweeper
    queued it again."""
    misconfigured = ""
    try:
        backend = configured_backend()
    except ValueError as error:
        backend = None
        misconfigured = str(error)
    agent = ModelAgent(backend) if backend is not None else BuiltinAgent()
    lease = TOOL_LEASE_SECONDS + settings.GATEWAY_LEASE_MARGIN_SECONDS
    claim = services.conversation_claim(conversation_id=conversation_id, seconds=lease)
    if claim is None:
        return None
    with request_scope(claim.conversation.request_id):
        return _run(claim, agent, backend, misconfigured)


def _run(claim: services.Claim, agent: Any, backend: Any, misconfigured: str) -> str | None:
    conversation, token = claim.conversation, claim.token
    label = backend.label if backend is not None else BuiltinAgent.label
    Conversation.objects.filter(pk=conversation.pk).update(agent=label[:200])
    delivery_id = None
    status: str | None = None
    try:
        if misconfigured:
            logger.error("the gateway's model backend is misconfigured: %s", misconfigured)
            finish = Finish.failed(errors.AGENT_ERROR, services.generic_failure())
        elif conversation.key.revoked_at is not None:
            finish = Finish.failed(
                errors.KEY_REVOKED, _("The API key was revoked before the agent could answer.")
            )
        else:
            finish = agent.run(Run.start(conversation, token))
        delivery_id = services.conversation_finish(
            conversation_id=conversation.pk,
            token=token,
            status=finish.status,
            reply=finish.reply,
            error_code=finish.error_code,
            error_message=finish.error_message,
        )
        status = finish.status
    except services.LeaseLost:
        logger.info(
            "conversation %s: stopped, it was cancelled or handed to another worker", conversation.uuid
        )
        return None
    except Exception:
        reference = secrets.token_hex(4)
        logger.exception("conversation %s: the agent failed (reference %s)", conversation.uuid, reference)
        current = (
            Conversation.objects.filter(pk=conversation.pk).values_list("attempts", flat=True).first() or 0
        )
        try:
            if current < settings.GATEWAY_AGENT_MAX_ATTEMPTS:
                services.lease_release(conversation_id=conversation.pk, token=token, countdown=5.0 * current)
                return None
            delivery_id = services.conversation_finish(
                conversation_id=conversation.pk,
                token=token,
                status=Conversation.Status.FAILED,
                error_code=errors.AGENT_ERROR,
                error_message=services.generic_failure(),
            )
            status = Conversation.Status.FAILED
        except services.LeaseLost:
            return None
    if delivery_id is not None:
        deliveries.attempt(delivery_id)
    return status
