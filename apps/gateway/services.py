"""Writes of the gateway: accepting a message, the lease a worker holds on a conversation while its
agent runs, finishing, cancelling, recovering the conversations of workers that died, and expiry.

States (SPEC 3.1) and who moves them:

    open ──claim (worker)──▶ processing ──finish──▶ resolved | failed
      ▲                         │
      └──recover (sweeper: the worker's lease ran out; attempts left)
    open | processing ──cancel (caller)──▶ failed (error CANCELLED)
    processing ──recover, no attempts left──▶ failed (error AGENT_ERROR)

Every write a worker makes while running is fenced by its lease token (`locked`): a worker that
lost its lease (cancelled, or taken for dead and handed to another) stops at its next step.

An open conversation's turn is sent to the agent's own queue after the commit (`enqueue`). If the
broker does not answer, the conversation is marked and sent again within seconds of the broker's
return (`conversations_send_unsent`); if its message was lost (it is no longer waiting in the
queue: apps.gateway.backlog), `conversations_recover` sends it again. One waiting in the queue
behind a backlog is never sent twice.
"""

import functools
import hashlib
import json
import logging
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import DatabaseError, IntegrityError, transaction
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.accounts.models import User
from apps.apikeys import services as apikeys_services
from apps.apikeys.authentication import KeyCredential
from apps.apikeys.models import ApiKey, Reservation
from apps.core import metrics, observability
from apps.core.db import connection
from apps.core.tasks import mark_pending
from apps.gateway import backlog, deliveries, errors, signals
from apps.gateway.models import AgentStep, Conversation, Turn
from apps.gateway.validation import AgentRequest

logger = logging.getLogger(__name__)

# The mark (apps.core.tasks.mark_pending) of a workspace with turns `enqueue` could not send, and
# how many the quick sweep sends per workspace and visit.
UNSENT = "gateway-unsent-turns"
UNSENT_BATCH = 500


class LeaseLost(Exception):
    """The worker no longer holds the conversation (cancelled, expired, or handed to another)."""


def request_digest(request: AgentRequest) -> str:
    canonical = json.dumps(
        {"message": request.message, "context": request.context, "metadata": request.metadata},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


def _ttl() -> timedelta:
    return timedelta(hours=settings.GATEWAY_CONVERSATION_TTL_HOURS)


def _reused_key_error() -> errors.IdempotencyKeyReused:
    return errors.IdempotencyKeyReused()


def _replay(key_id: int, idempotency_key: str, digest: str, now: datetime) -> Conversation | None:
    existing = Conversation.objects.filter(key_id=key_id, idempotency_key=idempotency_key).first()
    if existing is None:
        return None
    if existing.expires_at <= now:
        # Expired and not yet swept: the key is free again.
        existing.delete()
        return None
    if existing.request_digest != digest:
        raise _reused_key_error()
    return existing


@dataclass(frozen=True)
class Accepted:
    conversation: Conversation
    replayed: bool


def conversation_accept(
    *,
    credential: KeyCredential,
    request: AgentRequest,
    idempotency_key: str = "",
    request_id: str = "",
    now: datetime | None = None,
) -> Accepted:
    """Writes the conversation and its first turn and queues the agent (after commit). With an
    Idempotency-Key already used for the same body, returns that conversation instead.
    `request_id`: the request's (observability), kept to follow the conversation to its webhook."""
    return _accept(
        user_id=credential.token.user_id,
        key=credential.key,
        token_id=credential.token.pk,
        request=request,
        idempotency_key=idempotency_key,
        request_id=request_id,
        now=now,
    )


def conversation_start(
    *, user: User, key: ApiKey, request: AgentRequest, request_id: str = "", now: datetime | None = None
) -> Conversation:
    """A conversation the service itself starts for `user` on their `key` (no HTTP credential:
    apps.gateway.handover, for a task's agent step), accepted as POST /api/agent accepts one. The
    key is checked as the door checks it: KeyOwnerMismatch when it is not the person's, KeyRevoked,
    BudgetExceeded when its budget for the period is spent."""
    from apps.apikeys import errors as apikeys_errors
    from apps.apikeys.authentication import check_budget

    now = now or timezone.now()
    if key.user_id != user.pk:
        raise errors.KeyOfAnotherPerson()
    if key.revoked_at is not None:
        raise apikeys_errors.KeyRevoked()
    check_budget(key=key, now=now)
    apikeys_services.api_key_touch(key=key, now=now)
    return _accept(
        user_id=user.pk, key=key, token_id=None, request=request, request_id=request_id, now=now
    ).conversation


def _accept(
    *,
    user_id: int,
    key: ApiKey,
    token_id: int | None,
    request: AgentRequest,
    idempotency_key: str = "",
    request_id: str = "",
    now: datetime | None = None,
) -> Accepted:
    now = now or timezone.now()
    request_id = request_id or observability.current_request_id() or ""
    digest = request_digest(request) if idempotency_key else ""
    if idempotency_key:
        existing = _replay(key.pk, idempotency_key, digest, now)
        if existing is not None:
            return Accepted(existing, True)
    payload: dict[str, Any] = {"message": request.message}
    if request.context:
        payload["context"] = request.context
    if request.metadata:
        payload["metadata"] = request.metadata
    try:
        with transaction.atomic():
            conversation = Conversation.objects.create(
                user_id=user_id,
                key=key,
                token_id=token_id,
                context=request.context,
                metadata=request.metadata,
                idempotency_key=idempotency_key,
                request_digest=digest,
                created_at=now,
                queued_at=now,
                expires_at=now + _ttl(),
                request_id=request_id[:64],
            )
            Turn.objects.create(
                conversation=conversation, position=0, role=Turn.Role.USER, payload=payload, timestamp=now
            )
            transaction.on_commit(lambda: enqueue(conversation.pk))
            transaction.on_commit(lambda: metrics.conversation("accepted"))
    except IntegrityError:
        # The same Idempotency-Key sent twice at the same moment: the other request won.
        if not idempotency_key:
            raise
        existing = _replay(key.pk, idempotency_key, digest, now)
        if existing is None:
            raise
        return Accepted(existing, True)
    logger.info("conversation %s accepted (key %s)", conversation.uuid, key.pk)
    return Accepted(conversation, False)


def enqueue(conversation_id: int, *, countdown: float | None = None) -> bool:
    """Sends the agent's run to the agent's queue (CELERY_TASK_ROUTES), saying when
    (apps.gateway.backlog). A broker that does not answer loses nothing: the conversation is
    marked (`enqueue_failed_at`) and the next sweep sends it again (`conversations_send_unsent`).
    Returns whether it was sent."""
    from apps.gateway.tasks import run_conversation

    try:
        run_conversation.apply_async(
            kwargs={"conversation_id": conversation_id, "schema_name": connection.schema_name},
            countdown=countdown,
            headers=backlog.sent_headers(),
        )
    except Exception:
        logger.exception("conversation %s could not be queued; the sweeper will queue it", conversation_id)
        try:
            Conversation.objects.filter(pk=conversation_id, status=Conversation.Status.OPEN).update(
                enqueue_failed_at=timezone.now()
            )
            mark_pending(UNSENT)
        except DatabaseError:
            # Not marked: the sweeper still finds it, as it finds a lost one (conversations_recover).
            logger.exception("conversation %s: its failed sending could not be recorded", conversation_id)
        return False
    return True


# --- the worker's lease ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Claim:
    conversation: Conversation
    token: str
    first_run: bool


def conversation_claim(*, conversation_id: int, seconds: float, now: datetime | None = None) -> Claim | None:
    """Takes the conversation for this worker: it must be open, or processing under a lease that
    ran out (its worker died). None when someone else holds it, it has ended, or it expired."""
    now = now or timezone.now()
    with transaction.atomic():
        conversation = (
            Conversation.objects.select_for_update(skip_locked=True, of=("self",))
            .filter(pk=conversation_id, expires_at__gt=now)
            .filter(
                Q(status=Conversation.Status.OPEN)
                | Q(status=Conversation.Status.PROCESSING, lease_expires_at__lt=now)
            )
            .select_related("key")
            .first()
        )
        if conversation is None:
            return None
        if conversation.status == Conversation.Status.PROCESSING:
            _release_open_reservation(conversation)
        if conversation.attempts >= settings.GATEWAY_AGENT_MAX_ATTEMPTS:
            _give_up(conversation, now=now)
            return None
        token = secrets.token_hex(16)
        first_run = conversation.attempts == 0
        conversation.status = Conversation.Status.PROCESSING
        conversation.lease_token = token
        conversation.lease_expires_at = now + timedelta(seconds=seconds)
        conversation.attempts += 1
        conversation.started_at = conversation.started_at or now
        conversation.enqueue_failed_at = None
        conversation.save(
            update_fields=[
                "status",
                "lease_token",
                "lease_expires_at",
                "attempts",
                "started_at",
                "enqueue_failed_at",
                "updated_at",
            ]
        )
    if first_run:
        apikeys_services.usage_record_conversation(key=conversation.key_id, now=now)
    metrics.conversation("processing")
    return Claim(conversation, token, first_run)


@contextmanager
def locked(conversation_id: int, token: str) -> Iterator[Conversation]:
    """A transaction holding the conversation's row, if this worker still holds its lease; else
    LeaseLost. A tool run inside it commits together with the record of having run it."""
    with transaction.atomic():
        conversation = (
            Conversation.objects.select_for_update()
            .filter(pk=conversation_id, lease_token=token, status=Conversation.Status.PROCESSING)
            .first()
        )
        if conversation is None:
            raise LeaseLost(conversation_id)
        yield conversation


def lease_extend(
    *, conversation_id: int, token: str, seconds: float, reservation_id: int | None = None
) -> None:
    """Pushes the lease `seconds` ahead (before a step whose own time limit is known) and notes the
    budget reservation held during it."""
    updated = Conversation.objects.filter(
        pk=conversation_id, lease_token=token, status=Conversation.Status.PROCESSING
    ).update(
        lease_expires_at=timezone.now() + timedelta(seconds=seconds),
        open_reservation_id=reservation_id,
        updated_at=timezone.now(),
    )
    if not updated:
        raise LeaseLost(conversation_id)


@transaction.atomic
def lease_release(*, conversation_id: int, token: str, countdown: float | None = None) -> bool:
    """Hands the conversation back (open) to be run again, e.g. after an unexpected error. The
    budget reservation of a model call the run could not settle is freed with it (the call is
    over: this is its worker), so the key's budget does not wait for the reservation's TTL."""
    conversation = (
        Conversation.objects.select_for_update(of=("self",))
        .filter(pk=conversation_id, lease_token=token, status=Conversation.Status.PROCESSING)
        .first()
    )
    if conversation is None:
        return False
    _release_open_reservation(conversation)
    Conversation.objects.filter(pk=conversation_id).update(
        status=Conversation.Status.OPEN,
        lease_token="",
        lease_expires_at=None,
        queued_at=timezone.now(),
        enqueue_failed_at=None,
    )
    transaction.on_commit(lambda: enqueue(conversation_id, countdown=countdown))
    transaction.on_commit(lambda: metrics.conversation("requeued"))
    return True


@transaction.atomic
def call_settle(
    *, conversation_id: int, reservation: Reservation, micro_usd: int, input_tokens: int, output_tokens: int
) -> None:
    """Charges a model call's cost to the key (settling its reservation) and adds it to the
    conversation, whoever holds the conversation now (money spent is spent). One transaction: a
    worker that died between the two would leave the key charged for a call its conversation does
    not show, and the run resumed after it would make that call again."""
    apikeys_services.budget_settle(
        reservation=reservation, micro_usd=micro_usd, input_tokens=input_tokens, output_tokens=output_tokens
    )
    Conversation.objects.filter(pk=conversation_id).update(
        cost_micro_usd=F("cost_micro_usd") + micro_usd,
        model_calls=F("model_calls") + 1,
        open_reservation_id=None,
    )


def tool_costs_record(*, conversation: Conversation, micro_usd: list[int]) -> None:
    """Adds the model calls a tool made with the conversation's key (charged to the key as they
    were settled, apps.core.spending) to the conversation, in the tool call's transaction."""
    if micro_usd:
        Conversation.objects.filter(pk=conversation.pk).update(
            cost_micro_usd=F("cost_micro_usd") + sum(micro_usd),
            model_calls=F("model_calls") + len(micro_usd),
        )


def step_append(*, conversation: Conversation, message: dict[str, Any]) -> AgentStep:
    position = AgentStep.objects.filter(conversation=conversation).count()
    if message.get("role") == "tool":
        Conversation.objects.filter(pk=conversation.pk).update(tool_calls=F("tool_calls") + 1)
    return AgentStep.objects.create(conversation=conversation, position=position, message=message)


def steps_of(conversation_id: int) -> list[dict[str, Any]]:
    return list(
        AgentStep.objects.filter(conversation_id=conversation_id)
        .order_by("position")
        .values_list("message", flat=True)
    )


# --- finishing ------------------------------------------------------------------------------------


def expired_message() -> str:
    return _("The conversation expired (24 hours after it was sent) before the agent finished it.")


def generic_failure() -> str:
    return _("The agent could not complete this request because of an error on our side. Try again later.")


def _release_open_reservation(conversation: Conversation) -> None:
    if conversation.open_reservation_id:
        apikeys_services.budget_release(reservation=conversation.open_reservation_id)
        conversation.open_reservation_id = None
        Conversation.objects.filter(pk=conversation.pk).update(open_reservation_id=None)


def _finish_locked(
    conversation: Conversation,
    *,
    status: str,
    reply: str = "",
    error_code: str = "",
    error_message: str = "",
    now: datetime,
) -> int | None:
    """Ends a conversation whose row this transaction holds. Returns the webhook delivery to send
    (None when the key has no webhook URL)."""
    conversation.status = status
    conversation.lease_token = ""
    conversation.lease_expires_at = None
    if status == Conversation.Status.RESOLVED:
        conversation.resolved_at = now
    else:
        conversation.failed_at = now
        conversation.error_code = error_code
        conversation.error_message = error_message
    conversation.save(
        update_fields=[
            "status",
            "lease_token",
            "lease_expires_at",
            "resolved_at",
            "failed_at",
            "error_code",
            "error_message",
            "cancelled_at",
            "updated_at",
        ]
    )
    if reply:
        position = Turn.objects.filter(conversation=conversation).count()
        Turn.objects.create(
            conversation=conversation,
            position=position,
            role=Turn.Role.AGENT,
            payload={"content": reply},
            timestamp=now,
        )
    logger.info("conversation %s %s%s", conversation.uuid, status, f" ({error_code})" if error_code else "")
    seconds = max((now - conversation.created_at).total_seconds(), 0.0)
    transaction.on_commit(lambda: metrics.conversation(status, seconds=seconds))
    _announce_finished(
        conversation, status=status, reply=reply, error_code=error_code, error_message=error_message
    )
    return deliveries.delivery_create(conversation=conversation, reply=reply, error=error_message, now=now)


def _announce_finished(
    conversation: Conversation, *, status: str, reply: str = "", error_code: str = "", error_message: str = ""
) -> None:
    """Sends `signals.conversation_finished` once the end is committed (apps.gateway.signals)."""
    schema_name = connection.schema_name

    def send() -> None:
        answers = signals.conversation_finished.send_robust(
            sender=Conversation,
            conversation=conversation,
            status=status,
            reply=reply,
            error_code=error_code,
            error_message=error_message,
            schema_name=schema_name,
        )
        for receiver, answer in answers:
            if isinstance(answer, Exception):
                logger.error(
                    "conversation %s: a receiver of its end failed (%s)",
                    conversation.uuid,
                    getattr(receiver, "__qualname__", receiver),
                    exc_info=answer,
                )

    transaction.on_commit(send)


def _give_up(conversation: Conversation, *, now: datetime) -> None:
    """Fails a conversation whose workers stopped too many times (its row held by the caller)."""
    delivery_id = _finish_locked(
        conversation,
        status=Conversation.Status.FAILED,
        error_code=errors.AGENT_ERROR,
        error_message=generic_failure(),
        now=now,
    )
    if delivery_id is not None:
        transaction.on_commit(lambda: deliveries.send_later(delivery_id))


def conversation_finish(
    *,
    conversation_id: int,
    token: str,
    status: str,
    reply: str = "",
    error_code: str = "",
    error_message: str = "",
) -> int | None:
    """Ends the run this worker holds: resolved with `reply`, or failed with a code and a message
    (and, when there is something to tell the caller, a reply turn). Returns the delivery to send
    once committed, or None. LeaseLost if the worker no longer holds it."""
    with locked(conversation_id, token) as conversation:
        return _finish_locked(
            conversation,
            status=status,
            reply=reply,
            error_code=error_code,
            error_message=error_message,
            now=timezone.now(),
        )


def conversation_cancel(*, conversation: Conversation) -> Conversation:
    """Stops a conversation that has not ended: it fails with CANCELLED at once, and its worker,
    if one is running it, stops at its next step (a tool already run stays done). An already
    cancelled conversation answers the same; one that ended otherwise is a 409."""
    now = timezone.now()
    with transaction.atomic():
        current = Conversation.objects.select_for_update().get(pk=conversation.pk)
        if current.is_finished:
            if current.error_code == errors.CANCELLED:
                return current
            raise errors.AlreadyFinished(status=current.status)
        current.cancelled_at = now
        delivery_id = _finish_locked(
            current,
            status=Conversation.Status.FAILED,
            error_code=errors.CANCELLED,
            error_message=_("The conversation was cancelled by the caller."),
            now=now,
        )
        if delivery_id is not None:
            transaction.on_commit(lambda: deliveries.send_later(delivery_id))
    return current


# --- sweepers -------------------------------------------------------------------------------------


def _to_sweep(*, now: datetime, limit: int, **state: Any) -> list[int]:
    """The ids of at most `limit` conversations in `state` that have not expired at `now`."""
    return list(Conversation.objects.filter(expires_at__gt=now, **state).values_list("pk", flat=True)[:limit])


def conversations_recover(
    *, now: datetime | None = None, limit: int = 500, waiting: backlog.Backlog | None = None
) -> int:
    """Conversations left `processing` by a worker that died (its lease ran out) are queued again,
    or failed once they used their attempts. Open ones whose turn was sent but is no longer in the
    agent's queue (lost: see `_lost_before`) are queued again. Open ones waiting in the queue behind
    others are left alone, however long the backlog; those whose sending failed are
    `conversations_send_unsent`'s. `waiting`: the agent's queue as read once per sweep (read here
    when not given). Returns how many it touched."""
    now = now or timezone.now()
    touched = 0
    stuck = _to_sweep(now=now, limit=limit, status=Conversation.Status.PROCESSING, lease_expires_at__lt=now)
    for conversation_id in stuck:
        with transaction.atomic():
            conversation = (
                Conversation.objects.select_for_update(skip_locked=True, of=("self",))
                .filter(pk=conversation_id, status=Conversation.Status.PROCESSING, lease_expires_at__lt=now)
                .first()
            )
            if conversation is None:
                continue
            touched += 1
            _release_open_reservation(conversation)
            if conversation.attempts >= settings.GATEWAY_AGENT_MAX_ATTEMPTS:
                _give_up(conversation, now=now)
                logger.warning(
                    "conversation %s failed: its workers stopped %s times",
                    conversation.uuid,
                    conversation.attempts,
                )
                continue
            Conversation.objects.filter(pk=conversation.pk).update(
                status=Conversation.Status.OPEN,
                lease_token="",
                lease_expires_at=None,
                queued_at=now,
                enqueue_failed_at=None,
            )
            transaction.on_commit(functools.partial(enqueue, conversation.pk))
            transaction.on_commit(lambda: metrics.conversation("requeued"))
            logger.warning("conversation %s: its worker stopped mid-turn; queued again", conversation.uuid)
    cutoff = _lost_before(now, waiting if waiting is not None else backlog.read())
    if cutoff is None:
        return touched
    lost = Q(status=Conversation.Status.OPEN, enqueue_failed_at__isnull=True, queued_at__lt=cutoff)
    found = Conversation.objects.filter(lost, expires_at__gt=now).values_list("pk", "uuid")[:limit]
    for conversation_id, conversation_uuid in list(found):
        if Conversation.objects.filter(lost, pk=conversation_id).update(queued_at=now):
            touched += 1
            metrics.conversation("requeued")
            logger.warning("conversation %s: its queued turn was lost; queued again", conversation_uuid)
            enqueue(conversation_id)
    return touched


def _lost_before(now: datetime, waiting: backlog.Backlog) -> datetime | None:
    """An open conversation sent before this time is not waiting in the agent's queue: nothing
    waits there that was sent earlier than GATEWAY_REQUEUE_AFTER_SECONDS before the oldest turn
    still waiting (or before now, when none waits). Its message was lost: a broker that lost its
    data, or a worker that died after taking the message and before claiming the conversation
    (the broker hands that message out again only after its visibility timeout, an hour).
    The margin covers the senders' clocks, a message taken by a worker that is about to claim it,
    and a run handed back with a short countdown (held by a worker until due). None: the queue
    could not be read, so nothing is taken for lost this time."""
    if not waiting.known:
        return None
    since = min(now, waiting.oldest_at() or now)
    return since - timedelta(seconds=settings.GATEWAY_REQUEUE_AFTER_SECONDS)


def conversations_send_unsent(*, now: datetime | None = None, limit: int = UNSENT_BATCH) -> int:
    """Open conversations whose task could not be sent (the broker did not answer: `enqueue`) are
    sent now. Runs every few seconds (GATEWAY_UNSENT_SWEEP_SECONDS) in the workspaces `enqueue`
    marked (UNSENT), so a message accepted while Redis was down runs soon after it is back, and
    with the lost turns' sweep in every workspace, should a mark be missing. Returns how many it
    sent (or tried to)."""
    now = now or timezone.now()
    touched = 0
    unsent = _to_sweep(now=now, limit=limit, status=Conversation.Status.OPEN, enqueue_failed_at__isnull=False)
    for conversation_id in unsent:
        if Conversation.objects.filter(
            pk=conversation_id, status=Conversation.Status.OPEN, enqueue_failed_at__isnull=False
        ).update(enqueue_failed_at=None, queued_at=now):
            touched += 1
            metrics.conversation("requeued")
            enqueue(conversation_id)
    return touched


def conversations_remove_expired(*, now: datetime | None = None, batch: int = 1000) -> int:
    """Removes conversations past `expires_at` (24 hours after creation), with their turns and
    steps; their webhook deliveries stay until their own retention ends."""
    now = now or timezone.now()
    removed = 0
    while True:
        ids = list(Conversation.objects.filter(expires_at__lte=now).values_list("pk", flat=True)[:batch])
        if not ids:
            break
        for conversation in Conversation.objects.filter(pk__in=ids, open_reservation_id__isnull=False):
            _release_open_reservation(conversation)
        # Those that never ended end now, as expired: whoever waits on them hears of it.
        unfinished = list(Conversation.objects.filter(pk__in=ids).exclude(status__in=Conversation.FINISHED))
        Conversation.objects.filter(pk__in=ids).delete()
        for conversation in unfinished:
            _announce_finished(
                conversation,
                status="expired",
                error_code=errors.EXPIRED,
                error_message=expired_message(),
            )
        removed += len(ids)
        for _one in ids:
            metrics.conversation("expired")
    if removed:
        logger.info("removed %s expired conversations", removed)
    return removed
