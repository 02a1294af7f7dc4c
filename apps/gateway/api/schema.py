"""The gateway's webhook in the OpenAPI schema (OpenAPI 3.1 `webhooks`): what the service POSTs to
an API key's `response_url` when a conversation ends (SPEC 5.3, 6.1; apps.gateway.deliveries is
the sender, and a test holds the two together header by header)."""

from django.conf import settings
from drf_spectacular.utils import OpenApiWebhook

from apps.gateway.models import Conversation

Status = Conversation.Status


def _header(name: str, description: str, *, required: bool = True, pattern: str = "") -> dict[str, object]:
    schema: dict[str, object] = {"type": "string"}
    if pattern:
        schema["pattern"] = pattern
    return {"in": "header", "name": name, "required": required, "description": description, "schema": schema}


def _payload(status: str, field: str, description: str) -> dict[str, object]:
    return {
        "type": "object",
        "title": status,
        "required": ["conversation_uuid", "status", field],
        "additionalProperties": False,
        "properties": {
            "conversation_uuid": {"type": "string", "format": "uuid"},
            "status": {"const": status},
            field: {"type": "string", "description": description},
        },
    }


def _schedule() -> str:
    delays = settings.GATEWAY_WEBHOOK_RETRY_SCHEDULE
    return ", ".join(f"{seconds} s" for seconds in delays)


conversation_ended = OpenApiWebhook(
    name="conversationEnded",
    decorator={
        "post": {
            "operationId": "conversationEnded",
            "summary": "A conversation ended (resolved or failed)",
            "description": "Sent to the API key's `response_url` when a conversation of `POST /api/agent` "
            "reaches `resolved` or `failed`; polling works with or without it. Every attempt sends the "
            "same body bytes and the same `webhook-id`. Verify a signature over the raw body before "
            "reading it: `X-Signature` is the lowercase hex HMAC-SHA256 of the body, "
            "`webhook-signature` the Standard Webhooks signature of "
            "`<webhook-id>.<webhook-timestamp>.<body>` "
            "(base64); both are keyed with the signing secret's UTF-8 bytes. Answer 2xx to acknowledge; "
            "410 stops the deliveries of this event; anything else, or no answer in time, is retried "
            f"after {_schedule()} (with jitter), then the delivery fails. Redirects are not followed.",
            "tags": ["Message gateway"],
            "parameters": [
                _header(
                    "X-Signature",
                    "Lowercase hexadecimal HMAC-SHA256 of the raw body, keyed with the key's signing secret "
                    "(SPEC 5.3). Compare in constant time.",
                    pattern="^[0-9a-f]{64}$",
                ),
                _header(
                    "X-Signature-Previous",
                    "The same with the previous signing secret, while a rolled secret's overlap lasts.",
                    required=False,
                    pattern="^[0-9a-f]{64}$",
                ),
                _header("X-Conversation-UUID", "The conversation's UUID."),
                _header(
                    "webhook-id",
                    "Standard Webhooks: this event's id (msg_…), the same on every attempt: "
                    "drop duplicates by it.",
                ),
                _header(
                    "webhook-timestamp",
                    "Standard Webhooks: Unix seconds of this attempt; refuse one too far from your clock.",
                    pattern="^[0-9]+$",
                ),
                _header(
                    "webhook-signature",
                    "Standard Webhooks: `v1,<base64 HMAC-SHA256>` entries separated by spaces, one per "
                    "signing secret in use (two during a roll's overlap).",
                    pattern="^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$",
                ),
                _header(
                    "X-Request-ID",
                    "The id of the request that sent the message, when it had one.",
                    required=False,
                ),
                _header("User-Agent", f"Atrium-Webhooks/{settings.ATRIUM_VERSION}"),
            ],
            "requestBody": {
                "required": True,
                "content": {
                    "application/json": {
                        "schema": {
                            "oneOf": [
                                _payload(Status.RESOLVED, "response", "The agent's reply."),
                                _payload(Status.FAILED, "error", "A generic failure message."),
                            ],
                            "discriminator": {"propertyName": "status"},
                        },
                        "examples": {
                            "resolved": {
                                "value": {
                                    "conversation_uuid": "5f0c6a9e-8d7b-4d6e-9f55-2d1f3c1b7a10",
                                    "status": Status.RESOLVED,
                                    "response": "Found 2 contacts named Ada.",
                                }
                            },
                            "failed": {
                                "value": {
                                    "conversation_uuid": "5f0c6a9e-8d7b-4d6e-9f55-2d1f3c1b7a10",
                                    "status": Status.FAILED,
                                    "error": "The request could not be completed.",
                                }
                            },
                        },
                    }
                },
            },
            "responses": {
                "2XX": {"description": "Received: the delivery is done."},
                "410": {"description": "Gone: no more attempts for this event."},
                "default": {"description": "Anything else: retried on the schedule above."},
            },
        }
    },
)
