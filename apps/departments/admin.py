"""The operators' view of a workspace's departments (Django admin, in the workspace's schema)."""

from django.contrib import admin

from apps.departments.models import Department, DepartmentContact, Member


class MemberInline(admin.TabularInline):
    model = Member
    extra = 0
    raw_id_fields = ("user", "added_by")


class ContactInline(admin.TabularInline):
    model = DepartmentContact
    extra = 0
    raw_id_fields = ("contact", "linked_by")


@admin.register(Department)
class DepartmentAdmin(admin.ModelAdmin):
    list_display = ("name", "parent", "head", "email", "updated_at", "deleted_at")
    search_fields = ("name", "description")
    raw_id_fields = ("parent", "head", "created_by", "deleted_by")
    inlines = [MemberInline, ContactInline]
