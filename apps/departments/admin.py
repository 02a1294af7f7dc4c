"""The operators' view of a workspace's departments (Django admin, in the workspace's schema)."""

from django.contrib import admin

from apps.core.admin import inline
from apps.departments.models import Department, DepartmentContact, Member


@admin.register(Department)
class DepartmentAdmin(admin.ModelAdmin):
    list_display = ("name", "parent", "head", "email", "updated_at", "deleted_at")
    search_fields = ("name", "description")
    raw_id_fields = ("parent", "head", "created_by", "deleted_by")
    inlines = [inline(Member, "user", "added_by"), inline(DepartmentContact, "contact", "linked_by")]
