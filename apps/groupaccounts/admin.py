"""The operators' view of a workspace's group accounts (Django admin, in the workspace's schema)."""

from django.contrib import admin

from apps.core.admin import inline
from apps.groupaccounts.models import GroupAccount, GroupAccountContact


@admin.register(GroupAccount)
class GroupAccountAdmin(admin.ModelAdmin):
    list_display = ("name", "kind", "industry", "owner", "updated_at", "deleted_at")
    list_filter = ("kind",)
    search_fields = ("name", "description", "industry")
    raw_id_fields = ("organisation", "owner", "created_by")
    inlines = [inline(GroupAccountContact, "contact", "linked_by")]
