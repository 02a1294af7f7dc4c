"""The operators' view of a workspace's calendars (Django admin, in the workspace's schema)."""

from django.contrib import admin

from apps.calendars.models import Attendee, Calendar, Event, Invitation
from apps.core.admin import inline


@admin.register(Calendar)
class CalendarAdmin(admin.ModelAdmin):
    list_display = ("name", "owner", "time_zone", "visibility", "is_default", "updated_at", "deleted_at")
    list_filter = ("visibility", "is_default")
    search_fields = ("name",)
    raw_id_fields = ("owner",)


@admin.register(Event)
class EventAdmin(admin.ModelAdmin):
    list_display = (
        "title",
        "calendar",
        "starts_at",
        "ends_at",
        "time_zone",
        "recurrence",
        "status",
        "sequence",
    )
    list_filter = ("status", "all_day", "calendar")
    search_fields = ("title", "location")
    raw_id_fields = ("calendar", "organizer")
    readonly_fields = ("uid", "sequence", "recurrence_ends_at")
    inlines = [inline(Attendee, "user", "contact")]


@admin.register(Invitation)
class InvitationAdmin(admin.ModelAdmin):
    list_display = ("event", "recipient", "sequence", "sent_by", "sent_at")
    raw_id_fields = ("event", "attendee", "sent_by")
