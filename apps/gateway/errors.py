"""The gateway's failures. The door's errors have SPEC 7.1's body; the codes a finished conversation
carries in `error.code` (and whose message goes into the webhook's `error`) are listed here too."""

from django.utils.translation import gettext_lazy as _

from apps.apikeys.errors import BudgetExceeded, KeyOwnerMismatch, KeyRevoked
from apps.core.errors import Conflict, NotFound, PayloadTooLarge, ValidationFailed


class ConversationNotFound(NotFound):
    message = _("Conversation not found, or expired (conversations are kept for 24 hours).")


class AlreadyFinished(Conflict):
    code = "CONVERSATION_FINISHED"
    msg_format = _("The conversation is already {status}; there is nothing to cancel.")


class KeyOfAnotherPerson(KeyOwnerMismatch):
    message = _("The API key belongs to someone else than the person the conversation is for.")


class RevokedKeySendsNothing(KeyRevoked):
    message = _("This key has been revoked: it sends no webhooks any more.")


class BodyTooLarge(PayloadTooLarge):
    msg_format = _("The request body is larger than {most} KiB.")


class RequestNotObject(ValidationFailed):
    message = _("The body must be a JSON object with a `message`.")


class IdempotencyKeyReused(ValidationFailed):
    field = "Idempotency-Key"
    message = _(
        "This Idempotency-Key was already used for a different request. Send the same body to get the "
        "first answer again, or use a new key for a new message."
    )


class IdempotencyKeyMalformed(ValidationFailed):
    field = "Idempotency-Key"
    msg_format = _("The Idempotency-Key header must be 1 to {most} printable ASCII characters.")


class NoWebhookUrl(ValidationFailed):
    code = "NO_WEBHOOK_URL"
    message = _("This key has no webhook URL, so there is nowhere to send a test event: add one first.")


class TestEventUnderWay(Conflict):
    code = "TEST_EVENT_UNDER_WAY"
    message = _("A test event of this key is still being sent: wait for its answer before sending another.")


# Codes of a failed conversation (`error.code` in the poll); a key's failure keeps its own code.
CANCELLED = "CANCELLED"
BUDGET_EXCEEDED = BudgetExceeded.code
MODEL_BACKEND_REQUIRED = "MODEL_BACKEND_REQUIRED"
MODEL_UNAVAILABLE = "MODEL_UNAVAILABLE"
AGENT_ERROR = "AGENT_ERROR"
KEY_REVOKED = KeyRevoked.code
TOO_MANY_STEPS = "TOO_MANY_STEPS"
# Not a status a poll shows (an expired conversation is gone): what `signals.conversation_finished`
# says of a conversation removed before it ended.
EXPIRED = "EXPIRED"
