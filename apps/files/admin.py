"""The operators' view of a workspace's files (Django admin, in the workspace's schema)."""

from django.contrib import admin

from apps.files.models import Attachment, Delivery, File, FileShare, Folder


@admin.register(Folder)
class FolderAdmin(admin.ModelAdmin):
    list_display = ("name", "parent", "created_by", "updated_at", "deleted_at")
    list_filter = ("deleted_at",)
    search_fields = ("name",)
    raw_id_fields = ("parent", "trashed_with", "created_by", "deleted_by")


class ShareInline(admin.TabularInline):
    model = FileShare
    extra = 0
    raw_id_fields = ("user", "shared_by")


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
    inlines = [ShareInline]


@admin.register(Attachment)
class AttachmentAdmin(admin.ModelAdmin):
    list_display = ("kind", "item_id", "content_type", "object_id", "title", "attached_by", "attached_at")
    list_filter = ("kind", "content_type")


@admin.register(Delivery)
class DeliveryAdmin(admin.ModelAdmin):
    list_display = ("file", "subject", "sent_by", "sent_at")
    raw_id_fields = ("file", "sent_by")
