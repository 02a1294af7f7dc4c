"""The operators' view of a workspace's group accounts (Django admin, in the workspace's schema)."""

from django.contrib import admin

from apps.groupaccounts.models import GroupAccount, GroupAccountContact


class ContactInline(admin.TabularInline):
    model = GroupAccountContact
    extra = 0
    raw_id_fields = ("contact", "linked_by")


@admin.register(GroupAccount)
class GroupAccountAdmin(admin.ModelAdmin):
    list_display = ("name", "kind", "industry", "owner", "updated_at", "deleted_at")
    list_filter = ("kind",)
    search_fields = ("name", "description", "industry")
    raw_id_fields = ("organisation", "owner", "created_by")
    inlines = [ContactInline]
