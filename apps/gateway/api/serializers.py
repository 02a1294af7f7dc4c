"""The shapes of `/api/agent` (SPEC 2.1, 4.4): the bodies are built as plain dicts (the hot door
does not pay for serializers); these classes describe them in the OpenAPI schema."""

from datetime import UTC, datetime
from typing import Any

from rest_framework import serializers

from apps.gateway import selectors
from apps.gateway.models import Conversation, WebhookDelivery

MICRO_USD_PER_CENT = 10_000
CONVERSATION_STATUSES = Conversation.Status.values
# `webhook.status` of a polled conversation: "none" (the key has no webhook URL) or a delivery's.
WEBHOOK_STATUSES = ["none", *WebhookDelivery.Status.values]


def iso(value: datetime | None) -> str | None:
    return value.astimezone(UTC).isoformat() if value is not None else None


def _turn(turn: Any) -> dict[str, Any]:
    return {"role": turn.role, "payload": turn.payload, "timestamp": iso(turn.timestamp)}


def conversation_body(conversation: Conversation, *, turns: bool = True) -> dict[str, Any]:
    webhook = selectors.webhook_state(conversation)
    body: dict[str, Any] = {
        "conversation_uuid": str(conversation.uuid),
        "status": conversation.status,
    }
    if turns:
        body["turns"] = [_turn(turn) for turn in conversation.turns.all()]
    else:
        first = next(iter(conversation.turns.all()), None)
        message = str((first.payload if first else {}).get("message", ""))
        body["message"] = message if len(message) <= 200 else message[:199] + "…"
    body.update(
        {
            "webhook": {
                **webhook,
                "delivered_at": iso(webhook["delivered_at"]),
                "next_attempt_at": iso(webhook["next_attempt_at"]),
            },
            "resolved_at": iso(conversation.resolved_at),
            "failed_at": iso(conversation.failed_at),
            "cancelled_at": iso(conversation.cancelled_at),
            "expires_at": iso(conversation.expires_at),
            "created_at": iso(conversation.created_at),
            "updated_at": iso(conversation.updated_at),
            "error": (
                {"code": conversation.error_code, "message": conversation.error_message}
                if conversation.status == Conversation.Status.FAILED
                else None
            ),
            "cost": {
                "micro_usd": conversation.cost_micro_usd,
                "usd_cents": round(conversation.cost_micro_usd / MICRO_USD_PER_CENT, 4),
                "model_calls": conversation.model_calls,
                "tool_calls": conversation.tool_calls,
            },
            "agent": conversation.agent or None,
        }
    )
    return body


# --- for the OpenAPI schema ---------------------------------------------------------------------


class ContextSerializer(serializers.Serializer):
    entity_type = serializers.CharField(
        required=False, help_text="A hint such as contact, task, document, inbox."
    )
    entity_id = serializers.CharField(required=False, help_text="A specific record.")
    action = serializers.CharField(
        required=False, help_text="A hint such as create, update, search, summarize."
    )


class AgentRequestSerializer(serializers.Serializer):
    message = serializers.CharField(
        max_length=10_000, help_text="The request in plain English; at most 10,000 characters."
    )
    # DRF takes declared fields off the class: these shadow nothing of Serializer at run time.
    context = ContextSerializer(required=False)  # type: ignore[assignment]
    metadata = serializers.DictField(
        required=False, help_text="Extra key-value data for the agent (at most 16 KiB as JSON, 50 keys)."
    )


class AcceptedSerializer(serializers.Serializer):
    conversation_uuid = serializers.UUIDField()
    status = serializers.ChoiceField(choices=["accepted"])
    message = serializers.CharField(help_text="Confirms the queueing and says how to get the reply.")


class TurnSerializer(serializers.Serializer):
    role = serializers.ChoiceField(choices=["user", "agent"])
    payload = serializers.DictField(
        help_text="user: `message` (and the `context` and `metadata` sent with it); agent: `content`."
    )
    timestamp = serializers.DateTimeField()


class WebhookStateSerializer(serializers.Serializer):
    status = serializers.ChoiceField(
        choices=WEBHOOK_STATUSES,
        help_text="none: the key has no webhook URL; the rest: docs/gateway.md.",
    )
    delivered_at = serializers.DateTimeField(allow_null=True)
    attempts = serializers.IntegerField()
    next_attempt_at = serializers.DateTimeField(allow_null=True)
    last_status_code = serializers.IntegerField(allow_null=True)


class CostSerializer(serializers.Serializer):
    micro_usd = serializers.IntegerField(
        help_text="What the conversation's model calls cost, in micro-dollars."
    )
    usd_cents = serializers.FloatField(help_text="The same in US cents.")
    model_calls = serializers.IntegerField()
    tool_calls = serializers.IntegerField()


class ConversationErrorSerializer(serializers.Serializer):
    code = serializers.CharField(
        help_text="CANCELLED, BUDGET_EXCEEDED, MODEL_BACKEND_REQUIRED, MODEL_UNAVAILABLE, …"
    )
    message = serializers.CharField()


class ConversationFieldsSerializer(serializers.Serializer):
    conversation_uuid = serializers.UUIDField()
    status = serializers.ChoiceField(choices=CONVERSATION_STATUSES)
    webhook = WebhookStateSerializer()
    resolved_at = serializers.DateTimeField(allow_null=True)
    failed_at = serializers.DateTimeField(allow_null=True)
    cancelled_at = serializers.DateTimeField(allow_null=True)
    expires_at = serializers.DateTimeField()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()
    error = ConversationErrorSerializer(allow_null=True)
    cost = CostSerializer()
    agent = serializers.CharField(allow_null=True, help_text="built-in, or <backend>:<model>.")


class ConversationSerializer(ConversationFieldsSerializer):
    turns = TurnSerializer(many=True)


class ConversationSummarySerializer(ConversationFieldsSerializer):
    message = serializers.CharField(help_text="The start of the message (200 characters).")


class ConversationListSerializer(serializers.Serializer):
    data = ConversationSummarySerializer(many=True)  # type: ignore[assignment]
    next_cursor = serializers.CharField(allow_null=True)
