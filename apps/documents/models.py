"""Documents: rich text in folders, with every version kept. Workspace schema.

The body is sanitised HTML (apps.documents.richtext: written as Markdown, HTML or plain text,
cleaned by nh3 to a fixed set of tags), with its plain text beside it for search and agents.
Every save is a `DocumentVersion`: version 1 on create, one more on each update, so the previous
versions are always there.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apps.core.folders import FolderBase, path_of
from apps.core.records import Access, OwnedRecord
from apps.core.sharing import ShareBase
from apps.documents.permissions import DocumentsPerm

USER = settings.AUTH_USER_MODEL


class DocumentFolder(FolderBase):
    access = Access(
        DocumentsPerm,
        visibility="workspace",
        label=_("Document folder"),
        find_with="listDocuments",
    )

    class Meta(FolderBase.Meta):
        verbose_name = _("document folder")


class Document(OwnedRecord):
    access = Access(
        DocumentsPerm,
        shares=True,
        label=_("Document"),
        find_with="listDocuments",
        trash_hint=_("An administrator can restore it from the Documents page."),
    )

    title = models.CharField(_("title"), max_length=300)
    folder = models.ForeignKey(
        DocumentFolder,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="documents",
        verbose_name=_("folder"),
    )
    body_html = models.TextField(_("body"), blank=True)
    body_text = models.TextField(blank=True)
    version = models.PositiveIntegerField(_("version"), default=1)
    updated_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    trashed_with = models.ForeignKey(
        DocumentFolder, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["title", "id"]
        verbose_name = _("document")
        indexes = [
            models.Index(fields=["folder", "deleted_at"], name="documents_folder_idx"),
            models.Index(Lower("title"), name="documents_title_lower"),
        ]

    def __str__(self) -> str:
        return self.title

    @property
    def path(self) -> str:
        return path_of(self.folder, self.title)

    @property
    def excerpt(self) -> str:
        """The first words of its text (200 characters at most)."""
        return " ".join(self.body_text.split())[:200]


class DocumentVersion(models.Model):
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    title = models.CharField(max_length=300)
    body_html = models.TextField(blank=True)
    body_text = models.TextField(blank=True)
    note = models.CharField(max_length=300, blank=True)
    created_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-number"]
        constraints = [
            models.UniqueConstraint(fields=["document", "number"], name="documents_version_once"),
            models.CheckConstraint(condition=Q(number__gte=1), name="documents_version_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.document_id} v{self.number}"


class DocumentShare(ShareBase):
    item = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="shares")
