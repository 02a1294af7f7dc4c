"""Sync to an outside ledger (apps.accounting.services.sync): one row per record pushed or to push, and one
per run of the push.

A `SyncRecord` is made when a document is approved, a bill posted or a payment recorded (one call
in each of those services); a change that the outside ledger must see again (a void) puts it back
to `pending` with a new `version`, which is part of the idempotency key sent with the push.
"""

from django.db import models
from django.utils.translation import gettext_lazy as _


class SyncRecord(models.Model):
    class Kind(models.TextChoices):
        CONTACT = "contact", _("contact")
        INVOICE = "invoice", _("sales invoice")
        CREDIT_NOTE = "credit_note", _("credit note")
        BILL = "bill", _("purchase bill")
        PAYMENT = "payment", _("payment received")
        BILL_PAYMENT = "bill_payment", _("bill payment")

    class Status(models.TextChoices):
        PENDING = "pending", _("pending")
        SYNCED = "synced", _("synced")
        FAILED = "failed", _("failed")

    kind = models.CharField(_("kind"), max_length=12, choices=Kind.choices)
    # The id of the record of `kind`: a SalesDocument, PurchaseBill, Payment, contacts.Contact, or
    # for a bill payment the JournalEntry that posted it.
    record_id = models.PositiveBigIntegerField()
    remote_id = models.CharField(_("remote id"), max_length=64, blank=True)
    status = models.CharField(_("status"), max_length=8, choices=Status.choices, default=Status.PENDING)
    version = models.PositiveIntegerField(default=1)
    attempts = models.PositiveSmallIntegerField(_("attempts"), default=0)
    last_error = models.TextField(_("last error"), blank=True)
    # When the sweep may push it next (a backoff after a failure, a provider's Retry-After);
    # empty: at the next run (pending) or only when retried (a validation error).
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    synced_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["id"]
        verbose_name = _("sync record")
        constraints = [
            models.UniqueConstraint(fields=["kind", "record_id"], name="accounting_sync_record_once"),
        ]
        indexes = [models.Index(fields=["status", "next_attempt_at"], name="accounting_sync_due")]

    def __str__(self) -> str:
        return f"{self.kind} {self.record_id} {self.status}"


class SyncRun(models.Model):
    """One push to the outside ledger: by the periodic sweep or retryAccountingSyncs."""

    provider = models.CharField(max_length=20)
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)
    pushed = models.PositiveIntegerField(default=0)
    failed = models.PositiveIntegerField(default=0)
    # Why the run stopped early (a rate limit, a refused token), else empty.
    stopped = models.CharField(max_length=300, blank=True)
    # A provider's rate limit holds every push of the workspace until then (its Retry-After).
    hold_until = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-started_at", "-id"]

    def __str__(self) -> str:
        return f"sync run {self.pk}"
