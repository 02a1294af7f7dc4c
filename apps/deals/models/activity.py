"""What happens to a deal: its stage visits (entered/left: velocity and rotting), the contacts
logged and follow-ups scheduled on it, and its history of changes (getDealHistory)."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apps.core import history
from apps.core.records import Access, Record
from apps.deals.models.deals import Deal
from apps.deals.models.pipelines import Stage
from apps.deals.permissions import DealsPerm

USER = settings.AUTH_USER_MODEL


class StageVisit(models.Model):
    """A deal's time on one stage: `left_at` null while it is there (one open visit a deal)."""

    deal = models.ForeignKey(Deal, on_delete=models.CASCADE, related_name="visits")
    stage = models.ForeignKey(Stage, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    # Kept as they were: a stage renamed or removed later does not rewrite the past.
    stage_name = models.CharField(max_length=80)
    pipeline_name = models.CharField(max_length=120)
    entered_at = models.DateTimeField(default=timezone.now)
    left_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["entered_at", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["deal"], condition=Q(left_at__isnull=True), name="deals_one_open_visit"
            )
        ]

    def __str__(self) -> str:
        return f"{self.deal_id} on {self.stage_name}"


class Activity(Record):
    """A contact logged on a deal (`happened_at`) or a follow-up due (`due_at`, done when
    `done_at` is set). A follow-up's day is its owner's day, in their time zone."""

    access = Access(
        DealsPerm,
        through="deal",
        label=_("Follow-up"),
        find_with="getDealFollowUpsDue",
        manage=DealsPerm.MANAGE,
    )

    class Kind(models.TextChoices):
        CONTACT = "contact", _("contact logged")
        FOLLOW_UP = "follow_up", _("follow-up")

    class Channel(models.TextChoices):
        CALL = "call", _("call")
        EMAIL = "email", _("e-mail")
        MEETING = "meeting", _("meeting")
        MESSAGE = "message", _("message")
        VISIT = "visit", _("visit")
        OTHER = "other", _("other")

    deal = models.ForeignKey(Deal, on_delete=models.CASCADE, related_name="activities")
    kind = models.CharField(_("kind"), max_length=10, choices=Kind.choices)
    channel = models.CharField(_("channel"), max_length=10, choices=Channel.choices, default=Channel.CALL)
    summary = models.CharField(_("summary"), max_length=1000)
    outcome = models.CharField(_("outcome"), max_length=300, blank=True)
    happened_at = models.DateTimeField(_("happened"), null=True, blank=True)
    owner = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    due_at = models.DateTimeField(_("due"), null=True, blank=True)
    # The owner's zone the due day was given in (a follow-up is due on their day).
    time_zone = models.CharField(_("time zone"), max_length=64, blank=True)
    done_at = models.DateTimeField(_("done"), null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("deal activity")
        verbose_name_plural = _("deal activities")
        constraints = [
            models.CheckConstraint(
                condition=Q(kind="contact", happened_at__isnull=False)
                | Q(kind="follow_up", due_at__isnull=False),
                name="deals_activity_has_its_time",
            )
        ]
        indexes = [models.Index(fields=["kind", "done_at", "due_at"], name="deals_followups_due_idx")]

    def __str__(self) -> str:
        return f"{self.kind} on {self.deal_id}"


class DealEvent(history.Event):
    """The deal's history, newest first: what happened, who did it (and through which door),
    which fields changed."""

    class Kind(models.TextChoices):
        CREATED = "created", _("created")
        UPDATED = "updated", _("updated")
        MOVED = "moved", _("moved to a stage")
        WON = "won", _("won")
        LOST = "lost", _("lost")
        REOPENED = "reopened", _("reopened")
        DELETED = "deleted", _("moved to the bin")
        RESTORED = "restored", _("restored")
        SHARED = "shared", _("sharing changed")
        CONTACT_LOGGED = "contact_logged", _("contact logged")
        FOLLOW_UP = "follow_up", _("follow-up scheduled")
        FOLLOW_UP_DONE = "follow_up_done", _("follow-up done")

    deal = models.ForeignKey(Deal, on_delete=models.CASCADE, related_name="events")
    kind = models.CharField(max_length=20, choices=Kind.choices)

    class Meta(history.Event.Meta):
        indexes = [models.Index(fields=["deal", "-at"], name="deals_event_deal_at")]

    def __str__(self) -> str:
        return f"{self.kind} of {self.deal_id}"
