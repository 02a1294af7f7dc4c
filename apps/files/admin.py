"""The operators' view of a workspace's files (Django admin, in the workspace's schema)."""

from django.contrib import admin

from apps.core.admin import FolderAdmin, inline
from apps.files.models import Attachment, Delivery, File, FileShare, Folder

admin.site.register(Folder, FolderAdmin)


@admin.register(File)
class FileAdmin(admin.ModelAdmin):
    list_display = (
        "name",
        "folder",
        "mime_type",
        "size",
        "owner",
        "visibility",
        "source",
        "updated_at",
        "deleted_at",
    )
    list_filter = ("source", "visibility", "mime_type")
    search_fields = ("name", "description")
    readonly_fields = ("blob", "size", "sha256", "mime_type", "text")
    raw_id_fields = ("folder", "owner", "created_by", "deleted_by", "trashed_with")
    inlines = [inline(FileShare, "user", "shared_by")]


@admin.register(Attachment)
class AttachmentAdmin(admin.ModelAdmin):
    list_display = ("kind", "item_id", "content_type", "object_id", "title", "attached_by", "attached_at")
    list_filter = ("kind", "content_type")


@admin.register(Delivery)
class DeliveryAdmin(admin.ModelAdmin):
    list_display = ("file", "subject", "sent_by", "sent_at")
    raw_id_fields = ("file", "sent_by")
