"""Personal data of the message gateway (docs/privacy.md): a person's conversations (their
messages, the agent's replies and working steps) and the webhooks sent for them. Soft delete:
conversations are expired at once (the poll answers 404) and webhooks not yet sent are stopped."""

from django.db.models import QuerySet
from django.utils import timezone

from apps.core import privacy
from apps.gateway.models import AgentStep, Conversation, Turn, WebhookAttempt, WebhookDelivery


def expire(conversations: QuerySet) -> int:
    return conversations.filter(expires_at__gt=timezone.now()).update(expires_at=timezone.now())


def stop(deliveries: QuerySet) -> int:
    return deliveries.filter(status__in=["pending", "retrying"]).update(
        status="failed", next_attempt_at=None, failed_reason="Stopped: the person's data was erased."
    )


privacy.register(
    Conversation,
    user="user",
    exclude=["lease_token", "session_state", "request_digest"],
    soft_delete=expire,
    # After its turns and steps, which its deletion takes along.
    order=40,
)
privacy.register(Turn, user="conversation__user")
privacy.register(AgentStep, user="conversation__user")
privacy.register(WebhookDelivery, user="key__user", soft_delete=stop, order=30)
privacy.register(WebhookAttempt, user="delivery__key__user")
