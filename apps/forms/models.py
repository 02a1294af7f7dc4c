"""Form Builder: forms (FormTemplate), their immutable published versions (FormVersion) and the
submissions answering one version each (Submission). Workspace schema.

A form is an `OwnedRecord`: its maker owns it, and it is the workspace's or private to them. Its
fields are edited in its draft (`draft`: groups and fields, apps.forms.lib.fields says their
shape); publishing freezes the draft into a new FormVersion with its JSON Schema, which no write
changes afterwards. A submission keeps the version it answered, so a field removed later keeps
its historic answers, and a field's key never changes (its label may).
"""

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apps.core.records import Access, OwnedRecord, Record, live_once
from apps.forms.permissions import FormsPerm

USER = settings.AUTH_USER_MODEL


def empty_draft() -> dict:
    return {"groups": [], "fields": []}


class FormTemplate(OwnedRecord):
    class Status(models.TextChoices):
        DRAFT = "draft", _("draft")
        PUBLISHED = "published", _("published")
        CLOSED = "closed", _("closed")
        ARCHIVED = "archived", _("archived")

    access = Access(FormsPerm, label=_("Form"), find_with="searchFormTemplates", trash_state=_("deleted"))

    title = models.CharField(_("title"), max_length=200)
    slug = models.SlugField(_("address"), max_length=80)
    description = models.TextField(_("description"), blank=True)
    status = models.CharField(_("status"), max_length=12, choices=Status.choices, default=Status.DRAFT)
    # What the respondent reads after sending, the submit button's words.
    confirmation = models.CharField(_("confirmation"), max_length=500, blank=True)
    submit_label = models.CharField(_("submit button"), max_length=60, blank=True)
    # The working copy of groups and fields (apps.forms.lib.fields), published as a FormVersion.
    draft = models.JSONField(default=empty_draft)
    # The draft changed since its last version was published.
    changed_since_publish = models.BooleanField(default=True)
    current_version = models.ForeignKey(
        "forms.FormVersion", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["-updated_at", "-id"]
        verbose_name = _("form")
        constraints = [live_once("forms_form_slug_once", "slug")]

    def __str__(self) -> str:
        return self.title

    @property
    def is_open(self) -> bool:
        return (
            self.status == self.Status.PUBLISHED
            and self.current_version_id is not None
            and self.deleted_at is None
        )

    @property
    def is_public(self) -> bool:
        return self.is_open and self.visibility == "workspace"

    @property
    def is_closed_to_public(self) -> bool:
        """Published to the public once, and closed since: where it was shown, it says so."""
        return (
            self.status == self.Status.CLOSED
            and self.current_version_id is not None
            and self.deleted_at is None
            and self.visibility == "workspace"
        )


class FormVersion(models.Model):
    """A published version: the draft's groups and fields as they were, and their JSON Schema.
    Never changed once written."""

    form = models.ForeignKey(FormTemplate, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    definition = models.JSONField()
    json_schema = models.JSONField()
    published_at = models.DateTimeField(default=timezone.now)
    published_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")

    class Meta:
        ordering = ["form", "-number"]
        verbose_name = _("form version")
        constraints = [models.UniqueConstraint(fields=["form", "number"], name="forms_version_number_once")]

    def __str__(self) -> str:
        return f"{self.form_id} v{self.number}"


class Submission(Record):
    class Status(models.TextChoices):
        RECEIVED = "received", _("received")
        LOCKED = "locked", _("locked")

    class Source(models.TextChoices):
        PUBLIC = "public", _("public page")
        WORKSPACE = "workspace", _("entered in the workspace")

    access = Access(
        FormsPerm,
        through="form",
        change=FormsPerm.PUBLISH,
        delete=FormsPerm.PUBLISH,
        label=_("Form submission"),
        find_with="searchFormSubmissions",
    )

    form = models.ForeignKey(FormTemplate, on_delete=models.CASCADE, related_name="submissions")
    version = models.ForeignKey(FormVersion, on_delete=models.PROTECT, related_name="submissions")
    answers = models.JSONField(default=dict)
    # Personal data (docs/privacy.md): the respondent's address, and the person who entered it.
    respondent_email = models.EmailField(_("respondent's e-mail"), max_length=254, blank=True)
    submitted_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    source = models.CharField(max_length=12, choices=Source.choices, default=Source.WORKSPACE)
    status = models.CharField(_("status"), max_length=10, choices=Status.choices, default=Status.RECEIVED)
    locked_at = models.DateTimeField(null=True, blank=True)
    locked_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    # SHA-256 of the submission's canonical JSON (apps.forms.services.content_hash), kept at locking.
    content_hash = models.CharField(max_length=64, blank=True)
    # Files (apps.files) the answers uploaded, by id.
    file_ids = models.JSONField(default=list, blank=True)
    # Where a public respondent came from: the `utm_*` parameters of the page they filled it in on
    # (apps.forms.public.utm_of), e.g. {"utm_source": "newsletter", "utm_campaign": "spring"}.
    utm = models.JSONField(_("campaign parameters"), default=dict, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("form submission")
        indexes = [
            models.Index(fields=["form", "-created_at"], name="forms_submission_form_at"),
            models.Index(fields=["respondent_email"], name="forms_submission_email"),
        ]

    def __str__(self) -> str:
        return f"submission {self.pk} to {self.form_id}"
