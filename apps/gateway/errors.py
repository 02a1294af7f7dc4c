"""The gateway's failures. The door's errors have SPEC 7.1's body; the codes a finished conversation
carries in `error.code` (and whose message goes into the webhook's `error`) are listed here too."""

from django.utils.translation import gettext_lazy as _

from apps.core.errors import Conflict, NotFound, ValidationFailed


class ConversationNotFound(NotFound):
    message = _("Conversation not found, or expired (conversations are kept for 24 hours).")


class AlreadyFinished(Conflict):
    code = "CONVERSATION_FINISHED"
    message = _("The conversation has already ended; there is nothing to cancel.")


class NoWebhookUrl(ValidationFailed):
    code = "NO_WEBHOOK_URL"
    message = _("This key has no webhook URL, so there is nowhere to send a test event: add one first.")


class TestEventUnderWay(Conflict):
    code = "TEST_EVENT_UNDER_WAY"
    message = _("A test event of this key is still being sent: wait for its answer before sending another.")


# Codes of a failed conversation (`error.code` in the poll).
CANCELLED = "CANCELLED"
BUDGET_EXCEEDED = "BUDGET_EXCEEDED"
MODEL_BACKEND_REQUIRED = "MODEL_BACKEND_REQUIRED"
MODEL_UNAVAILABLE = "MODEL_UNAVAILABLE"
AGENT_ERROR = "AGENT_ERROR"
KEY_REVOKED = "KEY_REVOKED"
TOO_MANY_STEPS = "TOO_MANY_STEPS"
# Not a status a poll shows (an expired conversation is gone): what `signals.conversation_finished`
# says of a conversation removed before it ended.
EXPIRED = "EXPIRED"
