"""The Platform area's imports and exports: validated import plans, committed by token; exports."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from apps.core.records import Access, RecordQuerySet
from apps.platform.permissions import PlatformPerm


class DataImport(models.Model):
    """A file's rows as validateDataImport (or bulkImportContacts) checked them, kept under a
    token until its maker commits it (commitDataImport) or it expires. Committed, it keeps what the
    commit made, so that committing again answers the same and makes nothing."""

    # Its maker's alone, admins' too: only they commit it (its rows quote the file's people).
    access = Access(
        PlatformPerm,
        visibility="owner",
        owner="created_by",
        admins=False,
        manage=PlatformPerm.IMPORT,
        label=_("Import"),
        find_with="validateDataImport",
    )

    class Status(models.TextChoices):
        VALIDATED = "validated", _("validated")
        COMMITTED = "committed", _("committed")

    token = models.CharField(max_length=64, unique=True)
    kind = models.CharField(max_length=50)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    # The caller's own key for a one-call import (bulkImportContacts' importKey, or the file's
    # digest), with the digest of what was imported under it.
    key = models.CharField(max_length=200, blank=True)
    digest = models.CharField(max_length=64)
    source = models.CharField(max_length=300, blank=True)
    total_rows = models.PositiveIntegerField(default=0)
    # [{"row": 2, "cells": {column: text}}]: the rows to make, in the file's order (read again at
    # the commit, through the same columns).
    rows = models.JSONField(default=list)
    # [{"row": 5, "column": "email", "problem": "..."}];
    # [{"row": 9, "key": "email:...", "ofRow": 3, "existingId": null}]
    problems = models.JSONField(default=list)
    duplicates = models.JSONField(default=list)
    invalid_rows = models.PositiveIntegerField(default=0)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.VALIDATED)
    committed_at = models.DateTimeField(null=True, blank=True)
    created_ids = models.JSONField(default=list)
    # Rows left out at the commit: a record with the same key was made since the validation.
    skipped = models.JSONField(default=list)
    # How many of `rows` the committed batches took (made or left out): a commit cut short
    # (a crash, a lost connection) is finished by the next from here, never made twice.
    done_rows = models.PositiveIntegerField(default=0)

    objects = RecordQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["created_by", "kind", "key"],
                condition=~models.Q(key=""),
                name="platform_import_key_once",
            )
        ]
        indexes = [models.Index(fields=["expires_at"], name="platform_import_expires")]

    def __str__(self) -> str:
        return f"import {self.pk} of {self.kind}"


class DataExport(models.Model):
    """An export run in the background (requestDataExport, or exportDataCsv when large): its
    progress, and the Files file it made, which getDataExportStatus links to."""

    # Its requester's alone, admins' too: it holds what they may read.
    access = Access(
        PlatformPerm,
        visibility="owner",
        owner="created_by",
        admins=False,
        manage=PlatformPerm.VIEW,
        label=_("Export"),
        find_with="getDataExportStatus",
    )

    class Status(models.TextChoices):
        QUEUED = "queued", _("queued")
        RUNNING = "running", _("running")
        DONE = "done", _("done")
        FAILED = "failed", _("failed")

    kind = models.CharField(max_length=50)
    format = models.CharField(max_length=10)
    query = models.CharField(max_length=200, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.QUEUED)
    total_rows = models.PositiveIntegerField(null=True, blank=True)
    done_rows = models.PositiveIntegerField(default=0)
    file = models.ForeignKey("files.File", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    # Why it failed: an error's code and message (never a record's data).
    error = models.CharField(max_length=500, blank=True)

    objects = RecordQuerySet.as_manager()

    def __str__(self) -> str:
        return f"export {self.pk} of {self.kind}"
