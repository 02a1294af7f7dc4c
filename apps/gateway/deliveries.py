"""Webhook deliveries (SPEC 5.3, 6.1): the reply of a finished conversation POSTed to the API key's
`response_url`, signed, retried with back-off, every attempt logged.

- The body is SPEC 6.1's, serialised once and stored: every attempt sends the same bytes.
- Headers: `Content-Type: application/json`, `X-Signature` (lowercase hex HMAC-SHA256 of the raw
  body with the key's signing secret; `X-Signature-Previous` too while a rolled secret's overlap
  lasts), `X-Conversation-UUID`, and the Standard Webhooks headers `webhook-id` (the same for every
  attempt), `webhook-timestamp` (Unix seconds of this attempt) and `webhook-signature`
  (`v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, one entry per signing secret in use).
  Both signatures use the same key: the signing secret's UTF-8 bytes.
- The first attempt is made as soon as the conversation's end is committed (by the worker that
  ended it, without waiting for a sweep). Later ones are rows with a due time, which the beat
  sweeper `send_due` hands to workers. 2xx is delivered; 410 stops; redirects are not followed;
  anything else (or no answer within the time limits) is retried after the next delay of
  GATEWAY_WEBHOOK_RETRY_SCHEDULE, with jitter, until the schedule is spent (more than 24 hours).
- The destination is checked again at every attempt, DNS resolved then, and the connection made
  to the checked address (with the URL's host in `Host` and in TLS SNI), so a name re-pointed at a
  private address after it was saved is still refused.
"""

import base64
import hashlib
import hmac
import json
import logging
import os
import random
import time
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

import httpx
from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.apikeys import services as apikeys_services
from apps.apikeys import webhooks
from apps.apikeys.errors import UnsafeWebhookUrl
from apps.apikeys.models import ApiKey
from apps.core import metrics, outbound, workspaces
from apps.core.db import connection
from apps.core.tasks import mark_pending
from apps.gateway.agent.deadline import DeadlineTransport, deadline
from apps.gateway.errors import NoWebhookUrl, RevokedKeySendsNothing, TestEventUnderWay
from apps.gateway.models import Conversation, WebhookAttempt, WebhookDelivery
from apps.gateway.tracing import request_scope

logger = logging.getLogger(__name__)

# The mark (apps.core.tasks.mark_pending) of a workspace with deliveries in flight.
IN_FLIGHT = "gateway-webhooks-in-flight"

Status = WebhookDelivery.Status
Outcome = WebhookAttempt.Outcome
USER_AGENT = f"Atrium-Webhooks/{settings.ATRIUM_VERSION}"
# How long an attempt may hold a delivery before the sweeper takes its sender for dead.
SENDING_GRACE_SECONDS = 30
# A delivery queued by the sweeper but not yet attempted is queued again after this long.
REQUEUE_SECONDS = 60


# --- the message ----------------------------------------------------------------------------------


def body_of(conversation: Conversation, *, reply: str, error: str) -> str:
    """SPEC 6.1's body, as the exact text sent."""
    body: dict[str, Any] = {"conversation_uuid": str(conversation.uuid), "status": conversation.status}
    if conversation.status == Conversation.Status.RESOLVED:
        body["response"] = reply
    else:
        body["error"] = error
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"))


def standard_signature(secret: str, webhook_id: str, timestamp: int, body: bytes) -> str:
    """One entry of `webhook-signature` (Standard Webhooks): v1,<base64 HMAC-SHA256>."""
    signed = f"{webhook_id}.{timestamp}.".encode() + body
    digest = hmac.new(secret.encode(), signed, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


def signed_headers(delivery: WebhookDelivery, body: bytes, *, now: datetime) -> dict[str, str]:
    key = delivery.key
    timestamp = int(now.timestamp())
    headers = {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "X-Conversation-UUID": str(delivery.conversation_uuid),
        **({"X-Request-ID": delivery.request_id} if delivery.request_id else {}),
        **apikeys_services.webhook_signature_headers(key=key, body=body, now=now),
        "webhook-id": delivery.webhook_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": " ".join(
            standard_signature(secret, delivery.webhook_id, timestamp, body)
            for secret in apikeys_services.signing_secrets(key=key, now=now)
        ),
    }
    return headers


# --- rows -----------------------------------------------------------------------------------------


def delivery_create(*, conversation: Conversation, reply: str, error: str, now: datetime) -> int | None:
    """The delivery of a conversation that has just ended, due now; None when its key has no
    webhook URL (replies are then only polled)."""
    if not conversation.key.response_url:
        return None
    delivery = WebhookDelivery.objects.create(
        key_id=conversation.key_id,
        conversation=conversation,
        conversation_uuid=conversation.uuid,
        event=conversation.status,
        body=body_of(conversation, reply=reply, error=error),
        status=Status.PENDING,
        next_attempt_at=now,
        request_id=conversation.request_id,
        created_at=now,
    )
    mark_pending(IN_FLIGHT)
    return delivery.pk


def body_of_test_event(*, conversation_uuid: uuid.UUID, brand: str) -> str:
    """A test event's body: SPEC 6.1's resolved shape (a receiver handles it as it handles a real
    reply), with `"test": true` so that it can tell it apart and do nothing with it."""
    body = {
        "conversation_uuid": str(conversation_uuid),
        "status": "resolved",
        "response": _(
            "A test event from %(brand)s: your webhook URL received it. No conversation is behind it."
        )
        % {"brand": brand},
        "test": True,
    }
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"))


def send_test_event(*, key: ApiKey, request_id: str = "", now: datetime | None = None) -> WebhookDelivery:
    """Sends a signed test event to the key's webhook URL through the path every webhook takes (a
    delivery row, the `deliver_webhook` task, the same signing, checks and attempt log), marked as
    a test. It is tried once: a failure is not retried (send another, or redeliver it). Refused
    for a revoked key, a key without a webhook URL, and while the key's last test is under way."""
    now = now or timezone.now()
    with transaction.atomic():
        locked = ApiKey.objects.select_for_update().get(pk=key.pk)
        if locked.revoked_at is not None:
            raise RevokedKeySendsNothing()
        if not locked.response_url:
            raise NoWebhookUrl()
        if WebhookDelivery.objects.filter(
            key=locked, is_test=True, status__in=[Status.PENDING, Status.SENDING]
        ).exists():
            raise TestEventUnderWay()
        conversation_uuid = uuid.uuid4()
        delivery = WebhookDelivery.objects.create(
            key=locked,
            conversation=None,
            conversation_uuid=conversation_uuid,
            event="resolved",
            is_test=True,
            body=body_of_test_event(conversation_uuid=conversation_uuid, brand=workspaces.brand()),
            status=Status.PENDING,
            next_attempt_at=now,
            # Queued below, at commit: the sweeper leaves it to that for REQUEUE_SECONDS.
            enqueued_at=now,
            request_id=request_id[:64],
            created_at=now,
        )
        mark_pending(IN_FLIGHT)
        transaction.on_commit(lambda: send_later(delivery.pk))
    logger.info("webhook delivery %s: test event of api key %s", delivery.pk, locked.pk)
    return delivery


def send_later(delivery_id: int) -> None:
    """Queues an attempt on a worker (from a web request or a sweeper: never wait for a receiver
    there). If the broker does not answer, the next sweep finds the delivery due."""
    from apps.gateway.tasks import deliver_webhook

    try:
        deliver_webhook.apply_async(
            kwargs={"delivery_id": delivery_id, "schema_name": connection.schema_name}
        )
    except Exception:
        logger.exception("webhook delivery %s could not be queued; the sweeper will send it", delivery_id)


def redeliver(*, delivery: WebhookDelivery, now: datetime | None = None) -> WebhookDelivery:
    """Sends a delivery again now (the button on the API key's page): a delivered or failed one
    becomes pending with a fresh retry schedule; a pending or retrying one is made due now."""
    now = now or timezone.now()
    with transaction.atomic():
        current = WebhookDelivery.objects.select_for_update().get(pk=delivery.pk)
        if current.status == Status.SENDING:
            return current
        if current.status in (Status.DELIVERED, Status.FAILED):
            current.schedule_base = current.attempts
            current.failed_reason = ""
        current.status = Status.PENDING
        current.next_attempt_at = now
        current.enqueued_at = now
        current.save(
            update_fields=[
                "status",
                "schedule_base",
                "failed_reason",
                "next_attempt_at",
                "enqueued_at",
                "updated_at",
            ]
        )
        mark_pending(IN_FLIGHT)
        transaction.on_commit(lambda: send_later(current.pk))
    logger.info("webhook delivery %s: redelivery requested", current.pk)
    return current


# --- one attempt ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Result:
    outcome: str
    url: str = ""
    status_code: int | None = None
    latency_ms: float | None = None
    error: str = ""
    excerpt: str = ""


_clients: dict[int, httpx.Client] = {}


def _client() -> httpx.Client:
    """One client per process (workers fork): no redirects, no proxies from the environment."""
    client = _clients.get(os.getpid())
    if client is None:
        client = httpx.Client(
            # Each attempt has a deadline as a whole (`_send`): a receiver that answers a byte at a
            # time, each within the read time-out, cannot hold the sender any longer.
            transport=DeadlineTransport(
                limits=httpx.Limits(max_connections=20, max_keepalive_connections=10, keepalive_expiry=30)
            ),
            follow_redirects=False,
            trust_env=False,
            timeout=httpx.Timeout(
                settings.GATEWAY_WEBHOOK_TIMEOUT_SECONDS,
                connect=settings.GATEWAY_WEBHOOK_CONNECT_TIMEOUT_SECONDS,
            ),
        )
        _clients[os.getpid()] = client
    return client


def _basic_auth(url: str) -> httpx.BasicAuth | None:
    """Basic auth from the URL's user info, if any."""
    parts = urlsplit(url)
    return httpx.BasicAuth(parts.username, parts.password or "") if parts.username else None


def _excerpt(raw: bytes) -> str:
    text = raw.decode("utf-8", errors="replace")
    text = "".join(char if char.isprintable() or char in "\n\t" else "?" for char in text)
    limit = settings.GATEWAY_WEBHOOK_RESPONSE_EXCERPT
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _read_some(response: httpx.Response, limit: int) -> bytes:
    collected = b""
    for chunk in response.iter_bytes():
        collected += chunk
        if len(collected) >= limit:
            break
    return collected[:limit]


def _send(delivery: WebhookDelivery, *, now: datetime) -> Result:
    url = delivery.key.response_url
    if not url:
        return Result(Outcome.NO_URL, error=_("The API key has no webhook URL any more."))
    try:
        target = webhooks.check_response_url(url, require_resolution=True)
    except UnsafeWebhookUrl as error:
        return Result(Outcome.REFUSED, url=url, error=str(error.message)[:300])
    body = delivery.body.encode()
    headers = signed_headers(delivery, body, now=now)
    pinned, host_header, extensions = outbound.pinned(target, target.url)
    headers["Host"] = host_header
    timeout = httpx.Timeout(
        settings.GATEWAY_WEBHOOK_TIMEOUT_SECONDS, connect=settings.GATEWAY_WEBHOOK_CONNECT_TIMEOUT_SECONDS
    )
    request = _client().build_request(
        "POST", pinned, headers=headers, content=body, extensions=extensions, timeout=timeout
    )
    total = settings.GATEWAY_WEBHOOK_TIMEOUT_SECONDS + settings.GATEWAY_WEBHOOK_CONNECT_TIMEOUT_SECONDS
    started = time.perf_counter()
    with deadline(total):
        try:
            response = _client().send(request, stream=True, auth=_basic_auth(target.url))
        except httpx.HTTPError as error:
            outcome = Outcome.TIMEOUT if isinstance(error, httpx.TimeoutException) else Outcome.NETWORK_ERROR
            return Result(
                outcome, url=url, latency_ms=(time.perf_counter() - started) * 1000, error=_short(error)
            )
        latency = (time.perf_counter() - started) * 1000
        try:
            raw = _read_some(response, settings.GATEWAY_WEBHOOK_RESPONSE_EXCERPT * 4)
        except httpx.HTTPError:
            raw = b""
        finally:
            response.close()
    code = response.status_code
    excerpt = _excerpt(raw)

    def answered(outcome: str, error: str = "") -> Result:
        return Result(outcome, url=url, status_code=code, latency_ms=latency, error=error, excerpt=excerpt)

    if 200 <= code < 300:
        return answered(Outcome.DELIVERED)
    if code == 410:
        return answered(Outcome.GONE, _("The receiver answered 410 Gone: no more attempts."))
    if 300 <= code < 400:
        return answered(
            Outcome.REDIRECT, _("Redirects are not followed: point the webhook URL at the final address.")
        )
    return answered(Outcome.HTTP_ERROR, _("The receiver answered %(code)d.") % {"code": code})


def _short(error: Exception) -> str:
    text = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    return text[:300]


def next_delay(attempt_in_schedule: int) -> float | None:
    """Seconds to wait after the `attempt_in_schedule`-th failed attempt (1-based), jittered; None
    once the schedule is spent."""
    schedule = settings.GATEWAY_WEBHOOK_RETRY_SCHEDULE
    if attempt_in_schedule > len(schedule):
        return None
    jitter = settings.GATEWAY_WEBHOOK_JITTER
    return schedule[attempt_in_schedule - 1] * random.uniform(1 - jitter, 1 + jitter)  # noqa: S311 (timing, not secrecy)


def attempt(delivery_id: int) -> str | None:
    """Makes the next attempt of a delivery if it is due and nobody else is sending it. Returns
    the attempt's outcome, or None when there was nothing to do."""
    now = timezone.now()
    with transaction.atomic():
        delivery = (
            WebhookDelivery.objects.select_for_update(skip_locked=True, of=("self",))
            .filter(pk=delivery_id, status__in=[Status.PENDING, Status.RETRYING], next_attempt_at__lte=now)
            .select_related("key")
            .first()
        )
        if delivery is None:
            return None
        delivery.status = Status.SENDING
        delivery.attempts += 1
        delivery.enqueued_at = None
        delivery.lease_expires_at = now + timedelta(
            seconds=settings.GATEWAY_WEBHOOK_TIMEOUT_SECONDS
            + settings.GATEWAY_WEBHOOK_CONNECT_TIMEOUT_SECONDS
            + SENDING_GRACE_SECONDS
        )
        delivery.save(update_fields=["status", "attempts", "enqueued_at", "lease_expires_at", "updated_at"])
    number = delivery.attempts
    with request_scope(delivery.request_id):
        try:
            result = _send(delivery, now=now)
        except Exception as error:  # a bug must not leave the delivery stuck in `sending`
            logger.exception("webhook delivery %s: attempt %s failed unexpectedly", delivery.pk, number)
            result = Result(Outcome.NETWORK_ERROR, url=delivery.key.response_url, error=_short(error))
        _record(delivery, number, now, result)
    return result.outcome


def _record(delivery: WebhookDelivery, number: int, started: datetime, result: Result) -> None:
    finished = timezone.now()
    with transaction.atomic():
        current = WebhookDelivery.objects.select_for_update().filter(pk=delivery.pk).first()
        if current is None:
            return
        WebhookAttempt.objects.create(
            delivery=current,
            number=number,
            started_at=started,
            url=result.url[:2000],
            outcome=result.outcome,
            status_code=result.status_code,
            latency_ms=result.latency_ms,
            error=result.error[:300],
            response_excerpt=result.excerpt,
        )
        if current.status != Status.SENDING or current.attempts != number:
            # Taken over meanwhile (a redelivery, or the sweeper took this sender for dead).
            return
        current.last_status_code = result.status_code
        current.lease_expires_at = None
        if result.outcome == Outcome.DELIVERED:
            current.status = Status.DELIVERED
            current.delivered_at = finished
            current.next_attempt_at = None
            current.failed_reason = ""
        elif result.outcome in (Outcome.GONE, Outcome.NO_URL):
            current.status = Status.FAILED
            current.next_attempt_at = None
            current.failed_reason = result.error
        elif current.is_test:
            # A test is a question asked now: its answer is this attempt, not one hours later.
            current.status = Status.FAILED
            current.next_attempt_at = None
            current.failed_reason = _("A test event is tried once; this attempt: %(last)s") % {
                "last": result.error or result.outcome
            }
        else:
            delay = next_delay(number - current.schedule_base)
            if delay is None:
                current.status = Status.FAILED
                current.next_attempt_at = None
                current.failed_reason = _("Gave up after %(count)d attempts; the last: %(last)s") % {
                    "count": number - current.schedule_base,
                    "last": result.error or result.outcome,
                }
            else:
                current.status = Status.RETRYING
                current.next_attempt_at = finished + timedelta(seconds=delay)
        current.save(
            update_fields=[
                "status",
                "delivered_at",
                "next_attempt_at",
                "failed_reason",
                "last_status_code",
                "lease_expires_at",
                "updated_at",
            ]
        )
        counted = {Status.DELIVERED: "delivered", Status.FAILED: "failed"}.get(
            current.status, "retry_scheduled"
        )
        seconds = (result.latency_ms or 0.0) / 1000
        transaction.on_commit(lambda: metrics.webhook_delivery(outcome=counted, seconds=seconds))
    logger.info(
        "webhook delivery %s attempt %s: %s%s",
        delivery.pk,
        number,
        result.outcome,
        f" ({result.status_code})" if result.status_code else "",
    )


# --- the sweeper ----------------------------------------------------------------------------------


def in_flight() -> bool:
    """Whether this workspace has a delivery not yet delivered or failed: its mark (IN_FLIGHT)
    stays until it has none, so the sweep (`send_due`, every few seconds) visits it until then and
    never visits a workspace without one."""
    return WebhookDelivery.objects.filter(
        status__in=[Status.PENDING, Status.RETRYING, Status.SENDING]
    ).exists()


def send_due(*, now: datetime | None = None, limit: int = 500) -> int:
    """Queues an attempt for every delivery that is due (beat, every few seconds, in the workspaces
    with deliveries in flight). A delivery left `sending` by a sender that died is made due again.
    Returns how many were queued."""
    now = now or timezone.now()
    WebhookDelivery.objects.filter(status=Status.SENDING, lease_expires_at__lt=now).update(
        status=Status.RETRYING, next_attempt_at=now, lease_expires_at=None, enqueued_at=None
    )
    due = list(
        WebhookDelivery.objects.filter(status__in=[Status.PENDING, Status.RETRYING], next_attempt_at__lte=now)
        .filter(Q(enqueued_at__isnull=True) | Q(enqueued_at__lt=now - timedelta(seconds=REQUEUE_SECONDS)))
        .order_by("next_attempt_at")
        .values_list("pk", flat=True)[:limit]
    )
    if due:
        WebhookDelivery.objects.filter(pk__in=due).update(enqueued_at=now)
        for delivery_id in due:
            send_later(delivery_id)
    return len(due)


def remove_old(*, now: datetime | None = None) -> int:
    """Deliveries, their bodies and logs are kept GATEWAY_WEBHOOK_RETENTION_DAYS once created."""
    now = now or timezone.now()
    cutoff = now - timedelta(days=settings.GATEWAY_WEBHOOK_RETENTION_DAYS)
    removed, _by_model = (
        WebhookDelivery.objects.filter(created_at__lt=cutoff).exclude(status=Status.SENDING).delete()
    )
    return removed
