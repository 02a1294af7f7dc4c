"""The Agent Dialer area's records: the calls and text messages agents placed through the
telephony provider (with status, cost and what was said), the workspace's do-not-call list, how
names are pronounced, and each provider callback received (so that a repeated one changes nothing)."""

from django.db import models
from django.utils.translation import gettext_lazy as _

from apps.core.records import Access, Record
from apps.dialer.permissions import DialerPerm


class Call(Record):
    # Its maker's (their agents placed it); the area's admins see every one.
    access = Access(
        DialerPerm,
        visibility="owner",
        owner="created_by",
        manage=DialerPerm.CALL,
        label=_("Call"),
        find_with="searchCallLogs",
    )

    class Status(models.TextChoices):
        QUEUED = "queued", _("queued")
        RINGING = "ringing", _("ringing")
        IN_PROGRESS = "in-progress", _("in progress")
        COMPLETED = "completed", _("completed")
        BUSY = "busy", _("busy")
        FAILED = "failed", _("failed")
        NO_ANSWER = "no-answer", _("no answer")
        CANCELED = "canceled", _("canceled")

    sid = models.CharField(_("provider id"), max_length=64, unique=True)
    to_number = models.CharField(_("to"), max_length=20)
    from_number = models.CharField(_("caller id"), max_length=20)
    contact_name = models.CharField(_("callee"), max_length=200, blank=True)
    status = models.CharField(_("status"), max_length=12, choices=Status.choices, default=Status.QUEUED)
    # human, machine_start, machine_end_beep, fax, unknown... as the provider's detection says.
    answered_by = models.CharField(_("answered by"), max_length=30, blank=True)
    script = models.TextField(_("what the agent says"))
    voicemail = models.TextField(_("voicemail"), blank=True)
    voicemail_left_at = models.DateTimeField(_("voicemail left"), null=True, blank=True)
    consent = models.CharField(_("consent"), max_length=300)
    callee_zone = models.CharField(_("callee's time zone"), max_length=64)
    duration_seconds = models.PositiveIntegerField(_("duration"), null=True, blank=True)
    # What the provider charged (its `price`, a negative amount in its answer, kept positive).
    price = models.DecimalField(_("cost"), max_digits=10, decimal_places=5, null=True, blank=True)
    price_unit = models.CharField(_("currency"), max_length=3, blank=True)
    ended_at = models.DateTimeField(_("ended"), null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["created_by", "-created_at"], name="dialer_call_by_maker")]

    def __str__(self) -> str:
        return f"{self.to_number} ({self.status})"

    @property
    def active(self) -> bool:
        return self.status in {self.Status.QUEUED, self.Status.RINGING, self.Status.IN_PROGRESS}

    @property
    def machine(self) -> bool:
        return self.answered_by.startswith("machine")


class Message(Record):
    access = Access(
        DialerPerm,
        visibility="owner",
        owner="created_by",
        manage=DialerPerm.CALL,
        label=_("Text message"),
        find_with="searchCallLogs",
    )

    class Direction(models.TextChoices):
        OUTBOUND = "outbound", _("sent")
        INBOUND = "inbound", _("received")

    sid = models.CharField(_("provider id"), max_length=64, unique=True)
    direction = models.CharField(_("direction"), max_length=8, choices=Direction.choices)
    to_number = models.CharField(_("to"), max_length=20)
    from_number = models.CharField(_("from"), max_length=20)
    body = models.TextField(_("text"))
    # queued, sent, delivered, undelivered, failed, received.
    status = models.CharField(_("status"), max_length=12, default="queued")
    segments = models.PositiveSmallIntegerField(_("segments"), default=1)
    price = models.DecimalField(_("cost"), max_digits=10, decimal_places=5, null=True, blank=True)
    price_unit = models.CharField(_("currency"), max_length=3, blank=True)

    def __str__(self) -> str:
        return f"{self.direction} {self.to_number}"


class DoNotCall(Record):
    # The workspace's list: everyone of the area reads it (every call checks it), MANAGE changes it.
    access = Access(
        DialerPerm, visibility="workspace", manage=DialerPerm.MANAGE, label=_("Do-not-call entry")
    )

    class Source(models.TextChoices):
        MANUAL = "manual", _("added by a person or agent")
        SMS_STOP = "sms-stop", _("replied STOP to a text message")

    number = models.CharField(_("number"), max_length=20, unique=True)
    reason = models.CharField(_("reason"), max_length=300, blank=True)
    source = models.CharField(_("source"), max_length=10, choices=Source.choices, default=Source.MANUAL)
    expires_at = models.DateTimeField(_("expires"), null=True, blank=True)

    def __str__(self) -> str:
        return self.number


class Pronunciation(Record):
    access = Access(DialerPerm, visibility="workspace", manage=DialerPerm.MANAGE, label=_("Pronunciation"))

    term = models.CharField(_("term"), max_length=100, unique=True)
    # What the voice says instead (TwiML <Say> text): "Ah-TREE-um".
    say_as = models.CharField(_("said as"), max_length=200)

    def __str__(self) -> str:
        return self.term


class Callback(models.Model):
    """One provider callback acted on: its digest (the signed URL and parameters), so a callback
    delivered twice is acted on once."""

    digest = models.CharField(max_length=64, unique=True)
    sid = models.CharField(max_length=64)
    received_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.sid
