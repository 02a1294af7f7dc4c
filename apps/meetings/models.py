"""The Video Meeting area's records: each meeting made at a provider (its room, join address,
times, the calendar event it is on) and who was given a link to it."""

from django.db import models
from django.utils.translation import gettext_lazy as _

from apps.core.records import Access, Record
from apps.meetings.permissions import MeetingsPerm


class Meeting(Record):
    # Its maker's (their agents made it); the area's admins see every one.
    access = Access(
        MeetingsPerm,
        visibility="owner",
        owner="created_by",
        manage=MeetingsPerm.EDIT,
        label=_("Video meeting"),
    )

    class Provider(models.TextChoices):
        JITSI = "jitsi", _("Jitsi Meet")
        ZOOM = "zoom", _("Zoom")

    provider = models.CharField(_("provider"), max_length=10, choices=Provider.choices)
    title = models.CharField(_("title"), max_length=200)
    # The room's name (Jitsi: at least 128 random bits, the address's only secret without tokens),
    # or the provider's meeting id (Zoom).
    room = models.CharField(_("room"), max_length=200)
    # The address everyone joins by; the host's (Zoom's start_url, a moderator's token) is never kept.
    join_url = models.CharField(_("join address"), max_length=500)
    starts_at = models.DateTimeField(_("starts"))
    ends_at = models.DateTimeField(_("ends"))
    # The Calendars event it was attached to (by id: an event of another area).
    event_id = models.PositiveBigIntegerField(_("calendar event"), null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["created_by", "-starts_at"], name="meetings_by_start")]

    def __str__(self) -> str:
        return self.title


class Participant(models.Model):
    """Someone given a link to a meeting: their token's expiry when the provider signs links."""

    meeting = models.ForeignKey(Meeting, on_delete=models.CASCADE, related_name="participants")
    email = models.EmailField(_("e-mail"))
    name = models.CharField(_("name"), max_length=200, blank=True)
    moderator = models.BooleanField(_("moderator"), default=False)
    token_expires_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["meeting", "email"], name="meetings_participant_once")]

    def __str__(self) -> str:
        return self.email
