"""Reachout campaigns: sequenced e-mails (Apollo sequences, Lemlist, Outreach) sent from one
mailbox of the mail app. Each recipient goes through the steps on their own clock: a step is due
`delay_days` after the previous one, inside the send window in the recipient's time zone, and
their sequence stops for good on a reply, a bounce or an unsubscribe (the mail app's suppression
list). A mailbox sends at most the campaign's `daily_cap` campaign messages in 24 hours, over
every campaign sending from it. apps.deals.reachout runs it."""

from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apps.core.records import Access, OwnedRecord, RecordQuerySet, name_once
from apps.deals.permissions import DealsPerm


class ReachoutCampaign(OwnedRecord):
    class Status(models.TextChoices):
        DRAFT = "draft", _("draft")
        RUNNING = "running", _("running")
        PAUSED = "paused", _("paused")
        STOPPED = "stopped", _("stopped")
        FINISHED = "finished", _("finished")

    access = Access(
        DealsPerm,
        label=_("Reachout campaign"),
        find_with="listReachoutCampaigns",
        manage=DealsPerm.CAMPAIGNS,
        trash_hint=_("Create it again with createReachoutCampaign."),
    )

    name = models.CharField(_("name"), max_length=120)
    # Null once the mailbox is gone (its owner erased, say): the campaign then stops.
    mailbox = models.ForeignKey("mail.Mailbox", on_delete=models.SET_NULL, null=True, related_name="+")
    status = models.CharField(_("status"), max_length=10, choices=Status.choices, default=Status.DRAFT)
    # The send window, in each recipient's local time: hours [start, end) on these ISO weekdays.
    window_start = models.PositiveSmallIntegerField(_("window opens"), default=9)
    window_end = models.PositiveSmallIntegerField(_("window closes"), default=17)
    weekdays = models.JSONField(_("weekdays"), default=list)  # 1 = Monday ... 7 = Sunday
    time_zone = models.CharField(
        _("time zone"), max_length=64, default="UTC"
    )  # when a recipient's is unknown
    daily_cap = models.PositiveIntegerField(_("daily cap of the mailbox"), default=50)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("reachout campaign")
        constraints = [
            name_once("deals_campaign_name_once"),
            models.CheckConstraint(condition=Q(window_start__lt=models.F("window_end")), name="deals_window"),
        ]

    def __str__(self) -> str:
        return self.name


class CampaignStep(models.Model):
    access = Access(DealsPerm, through="campaign", change=DealsPerm.CAMPAIGNS, label=_("Campaign step"))

    campaign = models.ForeignKey(ReachoutCampaign, on_delete=models.CASCADE, related_name="steps")
    position = models.PositiveSmallIntegerField()  # 1, 2, 3...
    delay_days = models.PositiveSmallIntegerField(default=0)  # after the previous step
    subject = models.CharField(max_length=200)
    body = models.TextField()

    objects = RecordQuerySet.as_manager()

    class Meta:
        ordering = ["campaign", "position"]
        constraints = [models.UniqueConstraint(fields=["campaign", "position"], name="deals_step_once")]

    def __str__(self) -> str:
        return f"step {self.position}"


class CampaignRecipient(models.Model):
    class State(models.TextChoices):
        ACTIVE = "active", _("in sequence")
        DONE = "done", _("sequence finished")
        REPLIED = "replied", _("replied")
        BOUNCED = "bounced", _("bounced")
        UNSUBSCRIBED = "unsubscribed", _("unsubscribed")
        FAILED = "failed", _("not sent: the server refused it")

    STOPPED = (State.REPLIED, State.BOUNCED, State.UNSUBSCRIBED)

    access = Access(
        DealsPerm,
        through="campaign",
        change=DealsPerm.CAMPAIGNS,
        label=_("Recipient"),
        find_with="getReachoutCampaign",
    )

    campaign = models.ForeignKey(ReachoutCampaign, on_delete=models.CASCADE, related_name="recipients")
    email = models.CharField(max_length=254)  # lower case
    name = models.CharField(max_length=200, blank=True)
    contact = models.ForeignKey(
        "contacts.Contact", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    time_zone = models.CharField(max_length=64, blank=True)  # empty: the campaign's
    state = models.CharField(max_length=15, choices=State.choices, default=State.ACTIVE)
    next_step = models.PositiveSmallIntegerField(default=1)
    next_due_at = models.DateTimeField(null=True, blank=True)
    stopped_at = models.DateTimeField(null=True, blank=True)

    objects = RecordQuerySet.as_manager()

    class Meta:
        ordering = ["campaign", "id"]
        constraints = [models.UniqueConstraint(fields=["campaign", "email"], name="deals_recipient_once")]
        indexes = [models.Index(fields=["state", "next_due_at"], name="deals_recipient_due_idx")]

    def __str__(self) -> str:
        return f"recipient {self.pk}"


class CampaignMessage(models.Model):
    """One step sent (or being sent) to one recipient: made, with its outbox row, before anything
    is sent, so a step is never sent twice (apps.mail.models.Outgoing)."""

    access = Access(DealsPerm, through="recipient", change=DealsPerm.CAMPAIGNS, label=_("Campaign message"))

    recipient = models.ForeignKey(CampaignRecipient, on_delete=models.CASCADE, related_name="messages")
    position = models.PositiveSmallIntegerField()
    mailbox = models.ForeignKey("mail.Mailbox", on_delete=models.CASCADE, related_name="+")
    outgoing = models.ForeignKey("mail.Outgoing", on_delete=models.SET_NULL, null=True, related_name="+")
    message_id = models.CharField(max_length=998)
    created_at = models.DateTimeField(default=timezone.now)
    sent_at = models.DateTimeField(null=True, blank=True)

    objects = RecordQuerySet.as_manager()

    class Meta:
        ordering = ["recipient", "position"]
        constraints = [models.UniqueConstraint(fields=["recipient", "position"], name="deals_message_once")]
        indexes = [models.Index(fields=["mailbox", "sent_at"], name="deals_message_sent_idx")]

    def __str__(self) -> str:
        return f"campaign message {self.pk}"
