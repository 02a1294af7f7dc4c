"""The operators' view of a workspace's documents (Django admin, in the workspace's schema)."""

from django.contrib import admin

from apps.core.admin import FolderAdmin, inline
from apps.documents.models import Document, DocumentFolder, DocumentShare, DocumentVersion

admin.site.register(DocumentFolder, FolderAdmin)


class VersionInline(admin.TabularInline):
    model = DocumentVersion
    extra = 0
    fields = ("number", "title", "note", "created_by", "created_at")
    readonly_fields = fields
    can_delete = False


@admin.register(Document)
class DocumentAdmin(admin.ModelAdmin):
    list_display = ("title", "folder", "version", "owner", "visibility", "updated_at", "deleted_at")
    list_filter = ("visibility",)
    search_fields = ("title", "body_text")
    readonly_fields = ("version", "body_text")
    raw_id_fields = ("folder", "owner", "updated_by", "created_by", "deleted_by", "trashed_with")
    inlines = [VersionInline, inline(DocumentShare, "user", "shared_by")]
