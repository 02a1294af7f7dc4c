"""Extension Builder: the workspace's extension projects (a brief, then their details: name,
description, category, declared scopes, locales, logo), the resumable uploads of their bundles
(a session with a declared size and SHA-256, its chunks on the files storage), and their builds
(a version of the bundle, validating → rejected or approved → published, with the report).
Workspace schema.

A project is an `OwnedRecord`: its proposer owns it, and it is the workspace's or private to them;
its uploads and builds are seen with it.
"""

import uuid

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from apps.core.records import Access, OwnedRecord, RecordQuerySet
from apps.extensions.permissions import ExtensionsPerm

USER = settings.AUTH_USER_MODEL


class Project(OwnedRecord):
    access = Access(
        ExtensionsPerm,
        label=_("Extension project"),
        find_with="getExtensionBuilderOverview",
    )

    name = models.CharField(_("name"), max_length=80)
    brief = models.TextField(_("brief"))
    description = models.CharField(_("description"), max_length=500, blank=True)
    category = models.CharField(_("category"), max_length=40, blank=True)
    # The scopes the project declares ("contact:read"); a bundle's manifest requests a subset.
    scopes = models.JSONField(_("declared scopes"), default=list, blank=True)
    # BCP 47 tags; the first is the default locale.
    locales = models.JSONField(_("locales"), default=list, blank=True)
    # The logo on the files storage (a sanitised SVG or a checked PNG).
    logo = models.CharField(_("logo"), max_length=200, blank=True)
    logo_type = models.CharField(max_length=20, blank=True)

    class Meta:
        ordering = ["-updated_at", "-id"]
        verbose_name = _("extension project")

    def __str__(self) -> str:
        return self.name


class Upload(models.Model):
    """A resumable upload of one bundle (the tus protocol's upload resource)."""

    class Status(models.TextChoices):
        OPEN = "open", _("open")
        FINALIZED = "finalized", _("finalized")
        EXPIRED = "expired", _("expired")
        DISCARDED = "discarded", _("discarded")

    access = Access(
        ExtensionsPerm, through="project", label=_("Bundle upload"), find_with="getExtensionStatus"
    )
    token = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="uploads")
    created_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    filename = models.CharField(max_length=200, blank=True)
    size = models.PositiveBigIntegerField()
    sha256 = models.CharField(max_length=64)
    received = models.PositiveBigIntegerField(default=0)
    expires_at = models.DateTimeField()
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.OPEN)

    objects = RecordQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["status", "expires_at"], name="extensions_upload_due")]

    def __str__(self) -> str:
        return f"upload {self.pk} of {self.project_id}"

    @property
    def folder(self) -> str:
        return f"extensions/uploads/{self.token}"


class Chunk(models.Model):
    """A received chunk: its bytes are a file on the storage, its offset and hash here."""

    upload = models.ForeignKey(Upload, on_delete=models.CASCADE, related_name="chunks")
    offset = models.PositiveBigIntegerField()
    size = models.PositiveIntegerField()
    sha256 = models.CharField(max_length=64)

    class Meta:
        ordering = ["offset"]
        constraints = [models.UniqueConstraint(fields=["upload", "offset"], name="extensions_chunk_once")]

    def __str__(self) -> str:
        return f"{self.upload_id}@{self.offset}"

    @property
    def path(self) -> str:
        return f"{self.upload.folder}/{self.offset:012d}.part"


class Build(models.Model):
    class Status(models.TextChoices):
        VALIDATING = "validating", _("validating")
        REJECTED = "rejected", _("rejected")
        APPROVED = "approved", _("approved")
        PUBLISHED = "published", _("published")

    access = Access(
        ExtensionsPerm,
        through="project",
        change=ExtensionsPerm.EDIT,
        label=_("Extension build"),
        find_with="listExtensionBuilds",
    )
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="builds")
    upload = models.OneToOneField(Upload, on_delete=models.SET_NULL, null=True, related_name="build")
    created_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    bundle = models.CharField(max_length=200)
    size = models.PositiveBigIntegerField()
    sha256 = models.CharField(max_length=64)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.VALIDATING)
    version = models.CharField(_("version"), max_length=64, blank=True)
    manifest = models.JSONField(default=dict, blank=True)
    report = models.JSONField(default=dict, blank=True)
    validated_at = models.DateTimeField(null=True, blank=True)
    published_at = models.DateTimeField(null=True, blank=True)

    objects = RecordQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.project_id} {self.version or self.pk}"
