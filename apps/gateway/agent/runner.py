"""One run of the service's agent on one conversation (the Celery task `run_conversation` calls it).

The run claims the conversation (a lease), lets the agent work (the model agent when a backend is
configured, the built-in agent otherwise), ends the conversation, and makes the webhook's first
attempt at once, without waiting for a sweep. Failures:

- the worker dies: the lease runs out and the sweeper queues the conversation again (or fails it
  after GATEWAY_AGENT_MAX_ATTEMPTS runs); the next run resumes from the recorded steps;
- an unexpected error: logged with a reference, and the conversation handed back to be run again
  a few seconds later, or failed with a generic error once its attempts are used. When the error
  is the database going away, the hand-back waits for it to come back, a few seconds at most
  (HAND_BACK_PAUSES), rather than leave the conversation `processing` until its lease runs out:
  it is fenced by the lease token like every write of the run, so a hand-back that comes too late
  (the lease ran out and the sweeper, or another worker, took the conversation) changes nothing;
- cancelled meanwhile: the run notices at its next step (LeaseLost) and stops.
"""

import logging
import secrets
import time
from collections.abc import Callable
from typing import Any, TypeVar

from django.conf import settings
from django.db import DatabaseError, InterfaceError, OperationalError, connection
from django.utils.translation import gettext as _

from apps.apikeys import services as apikeys_services
from apps.gateway import deliveries, errors, services
from apps.gateway.agent.backends import configured_backend
from apps.gateway.agent.builtin import BuiltinAgent
from apps.gateway.agent.context import TOOL_LEASE_SECONDS, Run
from apps.gateway.agent.model import ModelAgent
from apps.gateway.agent.outcome import Finish
from apps.gateway.models import Conversation
from apps.gateway.tracing import request_scope

logger = logging.getLogger(__name__)

T = TypeVar("T")

# Pauses between tries of handing a conversation back while the database does not answer (about
# 16 s in all: a restart or a fail-over; past that the lease and the sweeper do it). A hand-back
# that comes after the lease ran out changes nothing (it is fenced by the lease token).
HAND_BACK_PAUSES = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)
# Pauses between tries of claiming a conversation while the database does not answer (about 30 s
# in all). The worker waits instead of failing its turns one after the other: during an outage a
# backlog of turns stays queued rather than being drained into errors for the sweeper to re-queue.
CLAIM_PAUSES = (0.5, 1.0, 2.0, 4.0, 8.0, 15.0)


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
    claim = _patiently(
        lambda: services.conversation_claim(conversation_id=conversation_id, seconds=lease),
        CLAIM_PAUSES,
        f"conversation #{conversation_id}",
        "claiming it",
    )
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
        try:
            failed = _hand_back(conversation, token)
        except services.LeaseLost:
            return None
        if failed is None:
            return None
        status, delivery_id = failed
    if delivery_id is not None:
        deliveries.attempt(delivery_id)
    return status


def _hand_back(conversation: Conversation, token: str) -> tuple[str, int | None] | None:
    """After an unexpected error: the conversation handed back to be run again a few seconds later
    (None), or failed with a generic error once its attempts are used (its status and webhook
    delivery). LeaseLost when this worker no longer holds it. A database that does not answer is
    tried again after each of HAND_BACK_PAUSES; then its error is raised."""
    try:
        return _patiently(
            lambda: _hand_back_once(conversation, token),
            HAND_BACK_PAUSES,
            f"conversation {conversation.uuid}",
            "handing it back",
        )
    except (OperationalError, InterfaceError):
        logger.error(
            "conversation %s: the database did not come back; its lease will run out", conversation.uuid
        )
        raise


def _patiently(attempt: Callable[[], T], pauses: tuple[float, ...], subject: str, doing: str) -> T:
    """`attempt()`, tried again after each of `pauses` while the database does not answer (a
    restart, a fail-over); once they are used, its error is raised."""
    remaining = iter(pauses)
    while True:
        _drop_broken_connection()
        try:
            return attempt()
        except (OperationalError, InterfaceError) as error:
            pause = next(remaining, None)
            if pause is None:
                raise
            logger.warning(
                "%s: the database does not answer (%s); %s again in %.2f s",
                subject,
                type(error).__name__,
                doing,
                pause,
            )
            time.sleep(pause)


def _hand_back_once(conversation: Conversation, token: str) -> tuple[str, int | None] | None:
    with services.locked(conversation.pk, token) as held:
        if held.attempts < settings.GATEWAY_AGENT_MAX_ATTEMPTS:
            # It frees the reservation of a model call this run could not settle.
            services.lease_release(conversation_id=held.pk, token=token, countdown=5.0 * held.attempts)
            logger.info("conversation %s: handed back, to be run again", conversation.uuid)
            return None
        # The run is over: the reservation of a call it could not settle is freed, as the
        # sweeper frees a dead worker's.
        if held.open_reservation_id:
            apikeys_services.budget_release(reservation=held.open_reservation_id)
        delivery_id = services.conversation_finish(
            conversation_id=held.pk,
            token=token,
            status=Conversation.Status.FAILED,
            error_code=errors.AGENT_ERROR,
            error_message=services.generic_failure(),
        )
        return Conversation.Status.FAILED, delivery_id


def _drop_broken_connection() -> None:
    """Closes this thread's database connection if an error broke it (the next query opens a new
    one). Not inside a transaction: only the code that opened it may end it."""
    if connection.in_atomic_block:
        return
    try:
        connection.close_if_unusable_or_obsolete()
    except DatabaseError:
        connection.close()
