"""Reads of the gateway. A conversation is its sender's: another person's, an unknown or an expired
one are all "not found"."""

import base64
import binascii
import uuid
from datetime import datetime
from typing import Any

from django.db.models import Prefetch, Q, QuerySet
from django.utils import timezone

from apps.accounts.models import User
from apps.apikeys.models import ApiKey
from apps.core.errors import or_not_found
from apps.gateway.errors import ConversationNotFound
from apps.gateway.models import Conversation, Turn, WebhookAttempt, WebhookDelivery


def conversation_get(*, user: User, conversation_uuid: Any, now: datetime | None = None) -> Conversation:
    now = now or timezone.now()
    try:
        wanted = (
            conversation_uuid
            if isinstance(conversation_uuid, uuid.UUID)
            else uuid.UUID(str(conversation_uuid))
        )
    except ValueError as error:
        raise ConversationNotFound() from error
    conversation = (
        Conversation.objects.filter(uuid=wanted, user=user, expires_at__gt=now)
        .select_related("key")
        .prefetch_related(
            Prefetch("turns", queryset=Turn.objects.order_by("position")),
            Prefetch("deliveries", queryset=WebhookDelivery.objects.order_by("-created_at")),
        )
        .first()
    )
    if conversation is None:
        raise ConversationNotFound()
    return conversation


def conversation_list(
    *, user: User, status: str | None = None, now: datetime | None = None
) -> QuerySet[Conversation]:
    now = now or timezone.now()
    rows = Conversation.objects.filter(user=user, expires_at__gt=now)
    if status:
        rows = rows.filter(status=status)
    return rows.select_related("key").prefetch_related(
        Prefetch("turns", queryset=Turn.objects.filter(position=0)),
        Prefetch("deliveries", queryset=WebhookDelivery.objects.order_by("-created_at")),
    )


def encode_cursor(conversation: Conversation) -> str:
    raw = f"{conversation.created_at.isoformat()}|{conversation.pk}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def after_cursor(rows: QuerySet[Conversation], cursor: str) -> QuerySet[Conversation] | None:
    """The rows after an opaque cursor (newest first), or None if the cursor is not ours."""
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        created, pk = base64.urlsafe_b64decode(padded.encode()).decode().split("|", 1)
        created_at = datetime.fromisoformat(created)
        pk_value = int(pk)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        return None
    if created_at.tzinfo is None:
        return None
    return rows.filter(Q(created_at__lt=created_at) | Q(created_at=created_at, pk__lt=pk_value))


def webhook_state(conversation: Conversation) -> dict[str, Any]:
    """SPEC 2.1's `webhook` object (docs/gateway.md lists the statuses)."""
    delivery = next(iter(conversation.deliveries.all()), None)
    if delivery is None:
        waiting = not conversation.is_finished and bool(conversation.key.response_url)
        return {
            "status": "pending" if waiting else "none",
            "delivered_at": None,
            "attempts": 0,
            "next_attempt_at": None,
            "last_status_code": None,
        }
    return {
        "status": delivery.status,
        "delivered_at": delivery.delivered_at,
        "attempts": delivery.attempts,
        "next_attempt_at": delivery.next_attempt_at,
        "last_status_code": delivery.last_status_code,
    }


def deliveries_for_key(*, key: ApiKey, limit: int = 20) -> list[WebhookDelivery]:
    """A key's latest deliveries with their attempts, for its settings page."""
    return list(
        WebhookDelivery.objects.filter(key=key)
        .order_by("-created_at", "-pk")
        .prefetch_related(Prefetch("attempt_log", queryset=WebhookAttempt.objects.order_by("-number")))[
            :limit
        ]
    )


def delivery_get(*, user: User, key_id: int, delivery_id: int) -> WebhookDelivery:
    return or_not_found(WebhookDelivery.objects.filter(pk=delivery_id, key_id=key_id, key__user=user).first())
