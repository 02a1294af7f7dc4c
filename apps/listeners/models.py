"""Listeners: automations that act on their own (Zapier's zaps, n8n's workflows). Workspace schema.

A `Listener` is an `OwnedRecord`: its owner's, the workspace's or private to them. It waits for a
trigger (a record event, a schedule, an inbound webhook), checks its filter, and runs its current
`FlowVersion`'s steps as its owner. Each firing is a `TriggerEvent` with a key unique per listener,
so a delivery made twice runs once; each run is a `Run`, with the payload, every step's result,
its status, attempts, depth and origin (loop prevention). Runs and flow versions are reached
through their listener.
"""

import secrets

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apps.core.records import Access, OwnedRecord
from apps.listeners.permissions import ListenersPerm

USER = settings.AUTH_USER_MODEL


def _token() -> str:
    return secrets.token_urlsafe(24)


class Listener(OwnedRecord):
    class Trigger(models.TextChoices):
        RECORD = "record", _("record event")
        SCHEDULE = "schedule", _("schedule")
        WEBHOOK = "webhook", _("inbound webhook")
        MANUAL = "manual", _("by hand only")

    class Status(models.TextChoices):
        DRAFT = "draft", _("draft")
        ACTIVE = "active", _("active")
        PAUSED = "paused", _("paused")
        DISABLED = "disabled", _("disabled")

    access = Access(ListenersPerm, label=_("Listener"), find_with="listListeners")

    name = models.CharField(_("name"), max_length=200)
    description = models.TextField(_("description"), blank=True)
    trigger_kind = models.CharField(_("trigger"), max_length=10, choices=Trigger.choices)
    # record: {"entityType", "events": [...], "fields": [...]}; schedule: {"cron", "zone"}.
    trigger = models.JSONField(_("trigger settings"), default=dict, blank=True)
    # A condition over the payload (simpleeval), empty: every event.
    filter = models.CharField(_("filter"), max_length=1000, blank=True)
    status = models.CharField(_("status"), max_length=10, choices=Status.choices, default=Status.DRAFT)
    version = models.PositiveIntegerField(_("flow version"), default=0)
    # The steps (by id) a person approved at activation, for `approved_version` of the flow.
    approved_steps = models.JSONField(_("approved steps"), default=list, blank=True)
    approved_version = models.PositiveIntegerField(null=True, blank=True)
    approved_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    # The inbound webhook's address (/hooks/listeners/<token>/) and its HMAC key (encrypted).
    webhook_token = models.CharField(max_length=40, unique=True, default=_token)
    webhook_secret = models.TextField(blank=True)
    next_run_at = models.DateTimeField(_("next scheduled run"), null=True, blank=True, db_index=True)
    max_concurrent = models.PositiveSmallIntegerField(_("runs at once"), default=1)
    activated_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["name", "id"]
        verbose_name = _("listener")
        verbose_name_plural = _("listeners")
        indexes = [models.Index(fields=["trigger_kind", "status"], name="listeners_kind_status")]

    def __str__(self) -> str:
        return self.name


class FlowVersion(models.Model):
    """One saved version of a listener's steps (never changed: a new flow is a new version)."""

    listener = models.ForeignKey(Listener, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    steps = models.JSONField(default=list)
    created_at = models.DateTimeField(default=timezone.now)
    created_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")

    class Meta:
        ordering = ["listener", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["listener", "number"], name="listeners_flow_version_once")
        ]

    def __str__(self) -> str:
        return f"{self.listener_id} v{self.number}"


class TriggerEvent(models.Model):
    """A firing of a listener, once per key: a record event, a schedule's time, a webhook's
    delivery id, a manual trigger."""

    listener = models.ForeignKey(Listener, on_delete=models.CASCADE, related_name="events")
    key = models.CharField(max_length=200)
    source = models.CharField(max_length=10)
    payload = models.JSONField(default=dict)
    received_at = models.DateTimeField(default=timezone.now)
    deliveries = models.PositiveIntegerField(default=1)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["listener", "key"], name="listeners_event_key_once")]

    def __str__(self) -> str:
        return self.key


class Run(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued", _("queued")
        RUNNING = "running", _("running")
        SUCCEEDED = "succeeded", _("succeeded")
        FAILED = "failed", _("failed")
        CANCELLED = "cancelled", _("cancelled")
        DEAD = "dead", _("dead (retries spent)")

    FINISHED = (Status.SUCCEEDED, Status.FAILED, Status.CANCELLED, Status.DEAD)

    listener = models.ForeignKey(Listener, on_delete=models.CASCADE, related_name="runs")
    event = models.ForeignKey(
        TriggerEvent, on_delete=models.SET_NULL, null=True, blank=True, related_name="runs"
    )
    flow_version = models.PositiveIntegerField()
    source = models.CharField(max_length=10)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    payload = models.JSONField(default=dict)
    # One entry per step done: {"step", "kind", "tool", "outcome", "result" | "error", "at"}.
    results = models.JSONField(default=list)
    next_step = models.PositiveIntegerField(default=0)
    # Loop prevention: how many runs led to this one, and which ({"listener", "run"} each).
    depth = models.PositiveSmallIntegerField(default=0)
    origin = models.JSONField(default=list)
    # Runs of one record's events start in order (apps.listeners.runner).
    order_key = models.CharField(max_length=200, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    due_at = models.DateTimeField(default=timezone.now, db_index=True)
    cancel_requested = models.BooleanField(default=False)
    error = models.TextField(blank=True)
    cost = models.DecimalField(max_digits=12, decimal_places=6, default=0)
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    started_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["listener", "status"], name="listeners_run_status")]

    def __str__(self) -> str:
        return f"run {self.pk} ({self.status})"
