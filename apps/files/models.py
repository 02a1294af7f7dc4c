"""Files: the workspace's stored files, in folders, with a trash. Workspace schema.

The bytes live in the storage `apps.files.blobs` names (Django's storage API; each workspace
under its own prefix), under a key that is never reused: a file's row points at its bytes, and
the bytes are written before the row (and removed again if the row does not commit).
"""

from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apps.core.folders import FolderBase, path_of
from apps.core.records import Access, OwnedRecord, Visibility
from apps.core.sharing import ShareBase
from apps.files.permissions import FilesPerm

USER = settings.AUTH_USER_MODEL


class Folder(FolderBase):
    access = Access(
        FilesPerm,
        visibility="workspace",
        label=_("Folder"),
        find_with="listFiles",
        restore_with="restoreFile",
    )

    class Meta(FolderBase.Meta):
        verbose_name = _("folder")


class File(OwnedRecord):
    access = Access(
        FilesPerm, shares=True, label=_("File"), find_with="listFiles", restore_with="restoreFile"
    )

    class Source(models.TextChoices):
        UPLOAD = "upload", _("added by a person or an agent")
        CHAT = "chat", _("saved from a conversation")
        CONTACT = "contact", _("saved to a contact")
        COPY = "copy", _("copy of another file")
        EXPORT = "export", _("exported from a document")
        TASK = "task", _("written by a task")

    name = models.CharField(_("name"), max_length=255)
    folder = models.ForeignKey(
        Folder,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="files",
        verbose_name=_("folder"),
    )
    description = models.CharField(_("description"), max_length=500, blank=True)
    # The storage key of the bytes (relative to the workspace's prefix); never reused.
    blob = models.CharField(max_length=500, unique=True)
    size = models.BigIntegerField(_("size"))
    mime_type = models.CharField(_("type"), max_length=150)
    sha256 = models.CharField(max_length=64)
    source = models.CharField(_("source"), max_length=20, choices=Source.choices, default=Source.UPLOAD)
    # Where it came from, in ids: "session 9f…", "document 12", "file 4" (never personal data).
    origin = models.CharField(max_length=200, blank=True)
    # The text readFileContent extracted, kept until the bytes change (they never do: new key).
    text = models.TextField(null=True, blank=True)
    trashed_with = models.ForeignKey(
        Folder, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["name", "id"]
        verbose_name = _("file")
        constraints = [
            # A name is the workspace's files' once, and once more among each person's private
            # ones (apps.files.services._siblings): a colleague's private file never takes one.
            models.UniqueConstraint(
                "folder",
                Lower("name"),
                condition=Q(deleted_at__isnull=True, visibility=Visibility.WORKSPACE),
                nulls_distinct=False,
                name="files_file_unique_name",
            ),
            models.UniqueConstraint(
                "folder",
                "owner",
                Lower("name"),
                condition=Q(deleted_at__isnull=True, visibility=Visibility.PRIVATE),
                nulls_distinct=False,
                name="files_file_unique_private_name",
            ),
            models.CheckConstraint(condition=Q(size__gte=0), name="files_file_size"),
        ]
        indexes = [models.Index(fields=["folder", "deleted_at"], name="files_file_folder")]

    def __str__(self) -> str:
        return self.name

    @property
    def path(self) -> str:
        return path_of(self.folder, self.name)


class FileShare(ShareBase):
    item = models.ForeignKey(File, on_delete=models.CASCADE, related_name="shares")


class Attachment(models.Model):
    """A file or a document attached to a record of any area (a task, a group account, a
    document): the item by kind and id, the record by content type and id."""

    class Kind(models.TextChoices):
        FILE = "file", _("file")
        DOCUMENT = "document", _("document")

    kind = models.CharField(max_length=20, choices=Kind.choices)
    item_id = models.BigIntegerField()
    content_type = models.ForeignKey(ContentType, on_delete=models.CASCADE, related_name="+")
    object_id = models.BigIntegerField()
    # The item's title when attached, shown if it can no longer be read.
    title = models.CharField(max_length=300, blank=True)
    attached_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    attached_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-attached_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["kind", "item_id", "content_type", "object_id"], name="files_attachment_once"
            )
        ]
        indexes = [
            models.Index(fields=["content_type", "object_id"], name="files_attachment_entity"),
            models.Index(fields=["kind", "item_id"], name="files_attachment_item"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.item_id} on {self.content_type_id}:{self.object_id}"


class Delivery(models.Model):
    """A file sent out of the workspace by e-mail (emailFileAsAttachment): who, when, to how many.
    The addresses are kept for the sender's record and erased with the file."""

    file = models.ForeignKey(File, on_delete=models.CASCADE, related_name="deliveries")
    sent_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    sent_at = models.DateTimeField(default=timezone.now)
    recipients = models.JSONField(default=list)
    subject = models.CharField(max_length=200)

    class Meta:
        ordering = ["-sent_at", "-id"]

    def __str__(self) -> str:
        return f"file {self.file_id} sent at {self.sent_at:%Y-%m-%d %H:%M}"
