"""The message gateway's records (SPEC 2.1, 3.1, 3.2, 6.1). Workspace schema.

- `Conversation`: one message sent to `POST /api/agent`, its state, what it cost, and the lease of
  the worker running it. Removed 24 hours after creation.
- `Turn`: the turns SPEC 2.1 shows (the caller's message, the agent's reply).
- `AgentStep`: the agent's working transcript (model replies, tool calls and their results), kept
  step by step so that a worker that dies mid-turn is resumed where it stopped, never re-running a
  tool whose effect was recorded.
- `WebhookDelivery` and `WebhookAttempt`: the reply sent to the key's `response_url`, retried with
  back-off by a beat sweeper, every attempt logged. A delivery outlives its conversation (retries
  span more than the conversation's 24 hours), so it keeps its own copy of the body.
"""

import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apps.apikeys.models import ApiKey


class Conversation(models.Model):
    class Status(models.TextChoices):
        OPEN = "open", _("open")
        PROCESSING = "processing", _("processing")
        RESOLVED = "resolved", _("resolved")
        FAILED = "failed", _("failed")

    FINISHED = (Status.RESOLVED, Status.FAILED)

    uuid = models.UUIDField(unique=True, default=uuid.uuid4, editable=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    key = models.ForeignKey(ApiKey, on_delete=models.CASCADE, related_name="conversations")
    # The personal access token that sent it: the tool-call log names it (`pat:<pk>`).
    token_id = models.BigIntegerField(null=True, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OPEN)
    context = models.JSONField(default=dict, blank=True)
    metadata = models.JSONField(default=dict, blank=True)

    # `Idempotency-Key` of the POST that created it (per API key), and a digest of that POST's body.
    idempotency_key = models.CharField(max_length=255, blank=True)
    request_digest = models.CharField(max_length=64, blank=True)

    # Which agent answered: "built-in", or "<backend>:<model>".
    agent = models.CharField(max_length=200, blank=True)
    # The catalogue's SessionState for this conversation (first calls made, confirmation tokens).
    session_state = models.JSONField(default=dict, blank=True)

    # The worker running it holds a lease: a random token and a time. Every write of the run is
    # fenced by the token; a lease past its time belongs to a worker that died (the sweeper).
    attempts = models.PositiveSmallIntegerField(default=0)
    lease_token = models.CharField(max_length=32, blank=True)
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    # When it was last handed to the agent's queue (accepted, or queued again).
    queued_at = models.DateTimeField(default=timezone.now)
    # Set when sending its task failed (the broker did not answer): the sweeper sends it again at
    # its next pass. Cleared when it does. Open conversations without it were sent, and may be
    # waiting behind others in the queue (apps.gateway.backlog).
    enqueue_failed_at = models.DateTimeField(null=True, blank=True)
    # The budget reservation of a model call under way (released if its worker dies).
    open_reservation_id = models.BigIntegerField(null=True, blank=True)

    cost_micro_usd = models.BigIntegerField(default=0)
    model_calls = models.PositiveIntegerField(default=0)
    tool_calls = models.PositiveIntegerField(default=0)

    # Set when failed: a stable code and a message that reveals nothing internal.
    error_code = models.CharField(max_length=64, blank=True)
    error_message = models.TextField(blank=True)

    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)
    started_at = models.DateTimeField(null=True, blank=True)
    resolved_at = models.DateTimeField(null=True, blank=True)
    failed_at = models.DateTimeField(null=True, blank=True)
    cancelled_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField()
    # The request id of the POST that created it, carried into the work done for it.
    request_id = models.CharField(max_length=64, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["key", "idempotency_key"],
                condition=~Q(idempotency_key=""),
                name="gateway_one_conversation_per_idempotency_key",
            ),
            models.CheckConstraint(
                condition=Q(status__in=["open", "processing", "resolved", "failed"]),
                name="gateway_conversation_status_known",
            ),
            models.CheckConstraint(condition=Q(cost_micro_usd__gte=0), name="gateway_cost_not_negative"),
        ]
        indexes = [
            models.Index(fields=["user", "-created_at"], name="gateway_conv_user_created"),
            models.Index(fields=["expires_at"], name="gateway_conv_expires"),
            models.Index(
                fields=["lease_expires_at"],
                condition=Q(status="processing"),
                name="gateway_conv_processing_lease",
            ),
            models.Index(fields=["queued_at"], condition=Q(status="open"), name="gateway_conv_open_queued"),
            models.Index(
                fields=["enqueue_failed_at"],
                condition=Q(status="open", enqueue_failed_at__isnull=False),
                name="gateway_conv_open_unsent",
            ),
        ]

    def __str__(self) -> str:
        return f"conversation {self.uuid} ({self.status})"

    @property
    def is_finished(self) -> bool:
        return self.status in self.FINISHED


class Turn(models.Model):
    class Role(models.TextChoices):
        USER = "user", _("user")
        AGENT = "agent", _("agent")

    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="turns")
    position = models.PositiveIntegerField()
    role = models.CharField(max_length=8, choices=Role.choices)
    # user: {"message", "context"?, "metadata"?}; agent: {"content"}.
    payload = models.JSONField()
    timestamp = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["conversation", "position"]
        constraints = [
            models.UniqueConstraint(fields=["conversation", "position"], name="gateway_turn_position_unique")
        ]

    def __str__(self) -> str:
        return f"turn {self.position} ({self.role}) of {self.conversation_id}"


class AgentStep(models.Model):
    """One message of the agent's transcript, in a neutral form the model backends translate:
    {"role": "assistant", "content", "tool_calls": [{"id", "name", "arguments"}]} or
    {"role": "tool", "tool_call_id", "name", "content", "is_error"}."""

    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="steps")
    position = models.PositiveIntegerField()
    message = models.JSONField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["conversation", "position"]
        constraints = [
            models.UniqueConstraint(fields=["conversation", "position"], name="gateway_step_position_unique")
        ]

    def __str__(self) -> str:
        return f"step {self.position} of {self.conversation_id}"


class WebhookDelivery(models.Model):
    """The webhook of one finished conversation (SPEC 6.1), sent to the key's `response_url`.

    Status (documented in docs/gateway.md): pending → sending → delivered; or sending → retrying →
    sending … → delivered, or failed once the schedule is spent, on 410 Gone, or when the key has
    no webhook URL any more. Redelivering a delivered or failed one makes it pending again.
    """

    class Status(models.TextChoices):
        PENDING = "pending", _("pending")
        SENDING = "sending", _("sending")
        RETRYING = "retrying", _("retrying")
        DELIVERED = "delivered", _("delivered")
        FAILED = "failed", _("failed")

    # `webhook-id` is "msg_" + this, the same for every attempt (receivers drop duplicates by it).
    uuid = models.UUIDField(unique=True, default=uuid.uuid4, editable=False)
    key = models.ForeignKey(ApiKey, on_delete=models.CASCADE, related_name="webhook_deliveries")
    conversation = models.ForeignKey(
        Conversation, on_delete=models.SET_NULL, null=True, blank=True, related_name="deliveries"
    )
    conversation_uuid = models.UUIDField(db_index=True)
    # "resolved" or "failed": what the body says.
    event = models.CharField(max_length=16)
    # A test event sent from the key's page (no conversation behind it; tried once, not retried).
    is_test = models.BooleanField(default=False)
    # The exact bytes sent (UTF-8 JSON): signatures are computed over them.
    body = models.TextField()
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    # Attempts made before the last redelivery: the retry schedule starts again from there.
    schedule_base = models.PositiveSmallIntegerField(default=0)
    # When the next attempt is due (pending, retrying); None once final.
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    # Set when the sweeper queues an attempt, so the next sweep does not queue it again.
    enqueued_at = models.DateTimeField(null=True, blank=True)
    # While sending: past this, the sender died and the attempt is retried.
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)
    failed_reason = models.CharField(max_length=300, blank=True)
    last_status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    request_id = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name = _("webhook delivery")
        verbose_name_plural = _("webhook deliveries")
        indexes = [
            models.Index(
                fields=["next_attempt_at"],
                condition=Q(status__in=["pending", "retrying"]),
                name="gateway_delivery_due",
            ),
            models.Index(
                fields=["lease_expires_at"], condition=Q(status="sending"), name="gateway_delivery_sending"
            ),
            models.Index(fields=["key", "-created_at"], name="gateway_delivery_key_created"),
        ]

    def __str__(self) -> str:
        return f"webhook {self.uuid} of conversation {self.conversation_uuid} ({self.status})"

    @property
    def webhook_id(self) -> str:
        return f"msg_{self.uuid.hex}"


class WebhookAttempt(models.Model):
    class Outcome(models.TextChoices):
        DELIVERED = "delivered", _("delivered (2xx)")
        HTTP_ERROR = "http_error", _("refused by the receiver")
        REDIRECT = "redirect", _("redirect (not followed)")
        GONE = "gone", _("410 Gone: stopped")
        TIMEOUT = "timeout", _("timed out")
        NETWORK_ERROR = "network_error", _("could not connect")
        REFUSED = "refused", _("destination refused (not a public address)")
        NO_URL = "no_url", _("the key has no webhook URL")

    delivery = models.ForeignKey(WebhookDelivery, on_delete=models.CASCADE, related_name="attempt_log")
    number = models.PositiveSmallIntegerField()
    started_at = models.DateTimeField()
    url = models.CharField(max_length=2000, blank=True)
    outcome = models.CharField(max_length=16, choices=Outcome.choices)
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    latency_ms = models.FloatField(null=True, blank=True)
    error = models.CharField(max_length=300, blank=True)
    # The start of the receiver's answer (at most GATEWAY_WEBHOOK_RESPONSE_EXCERPT characters).
    response_excerpt = models.TextField(blank=True)

    class Meta:
        ordering = ["delivery", "-number"]

    def __str__(self) -> str:
        return f"attempt {self.number} of {self.delivery_id}: {self.outcome}"
