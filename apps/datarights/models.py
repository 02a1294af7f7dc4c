"""Data-rights requests and what was done about them. Public schema: these are the service's own
records (SPEC 1 rule 5), kept beside the workspaces, not inside one."""

from django.db import models
from django.utils.translation import gettext_lazy as _


class DataRequest(models.Model):
    """One request received on `POST /api/data-request` (SPEC 2.6, 4.6)."""

    class Type(models.TextChoices):
        ACCESS = "access", _("access")
        RECTIFY = "rectify", _("rectification")
        DELETE = "delete", _("erasure")
        EXPORT = "export", _("export")
        OBJECT = "object", _("objection")
        OTHER = "other", _("other")

    class Status(models.TextChoices):
        RECEIVED = "received", _("received")
        IN_PROGRESS = "in_progress", _("in progress")
        DONE = "done", _("done")
        REJECTED = "rejected", _("rejected")

    class Notification(models.TextChoices):
        # Pending until the data team's e-mail went out; a sweeper retries (nothing is lost).
        PENDING = "pending", _("pending")
        SENT = "sent", _("sent")

    reference = models.CharField(_("reference"), max_length=20, unique=True, editable=False)
    type = models.CharField(_("type"), max_length=10, choices=Type.choices)
    # The requester (personal data: never logged, blanked by an erasure of the person).
    name = models.CharField(_("name"), max_length=200, blank=True)
    email = models.EmailField(_("e-mail"), max_length=254, blank=True)
    account = models.CharField(_("account"), max_length=200, blank=True)
    details = models.TextField(_("details"), blank=True)
    locale = models.CharField(_("locale"), max_length=16)
    country = models.CharField(_("country"), max_length=2)
    received_at = models.DateTimeField(_("received (as sent)"))
    # Where it came in: the host as the caller used it, and that host's workspace.
    host = models.CharField(_("receiving host"), max_length=255)
    workspace = models.ForeignKey(
        "tenancy.Workspace",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("workspace"),
    )
    created_at = models.DateTimeField(_("stored"), auto_now_add=True)

    # The data team's side.
    status = models.CharField(_("status"), max_length=12, choices=Status.choices, default=Status.RECEIVED)
    notes = models.TextField(
        _("notes"),
        blank=True,
        help_text=_(
            "What was done and when. No personal data here: notes are kept after the requester's "
            "data is erased, as the record of how the request was handled."
        ),
    )
    updated_at = models.DateTimeField(_("updated"), auto_now=True)
    closed_at = models.DateTimeField(_("closed"), null=True, blank=True)
    erased_at = models.DateTimeField(_("requester's data erased"), null=True, blank=True)

    # Recognising the same request sent again (a keyed digest of its content, not the content).
    fingerprint = models.CharField(max_length=64, blank=True, editable=False)
    duplicates = models.PositiveIntegerField(_("times sent again"), default=0)
    last_duplicate_at = models.DateTimeField(_("last sent again"), null=True, blank=True)

    notification = models.CharField(
        _("notification"), max_length=8, choices=Notification.choices, default=Notification.PENDING
    )
    notification_attempts = models.PositiveIntegerField(_("notification attempts"), default=0)
    notification_due_at = models.DateTimeField(_("next notification attempt"), null=True, blank=True)
    # The kind of the last failure (an exception class name), never its text: that may hold addresses.
    notification_error = models.CharField(_("last notification error"), max_length=100, blank=True)
    notified_at = models.DateTimeField(_("notified"), null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("data-rights request")
        indexes = [
            models.Index(fields=["fingerprint", "created_at"]),
            models.Index(fields=["notification", "notification_due_at"]),
            models.Index(fields=["status"]),
        ]
        permissions = [
            ("export_personal_data", _("Can export a person's data from a workspace")),
            ("erase_personal_data", _("Can erase a person's data from a workspace")),
        ]

    def __str__(self) -> str:
        return self.reference

    @property
    def is_closed(self) -> bool:
        return self.status in {self.Status.DONE, self.Status.REJECTED}


class PersonalDataOperation(models.Model):
    """An export or erasure of a person's data in a workspace: what was done, never about whom
    (no e-mail, no name): the request it answered, the counts per kind of record, the outcome."""

    class Kind(models.TextChoices):
        EXPORT = "export", _("export")
        ERASE = "erase", _("erasure")

    class Outcome(models.TextChoices):
        DONE = "done", _("done")
        REFUSED = "refused", _("refused")
        FAILED = "failed", _("failed")

    kind = models.CharField(_("kind"), max_length=8, choices=Kind.choices)
    outcome = models.CharField(_("outcome"), max_length=8, choices=Outcome.choices)
    workspace = models.ForeignKey(
        "tenancy.Workspace",
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
        verbose_name=_("workspace"),
    )
    schema_name = models.CharField(_("schema"), max_length=63)
    data_request = models.ForeignKey(
        DataRequest,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="operations",
        verbose_name=_("request"),
    )
    # "admin:<operator id>" or "command": who ran it, as an audit label.
    performed_by = models.CharField(_("performed by"), max_length=50)
    counts = models.JSONField(_("records per kind"), default=dict)
    files = models.PositiveIntegerField(_("files"), default=0)
    # An exception class name or the refusal's reason: never personal data.
    problem = models.CharField(_("problem"), max_length=300, blank=True)
    created_at = models.DateTimeField(_("when"), auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("personal-data operation")

    def __str__(self) -> str:
        return f"{self.get_kind_display()} #{self.pk}"
