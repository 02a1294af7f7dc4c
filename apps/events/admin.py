"""The operators' view of a workspace's events (Django admin, in the workspace's schema)."""

from django.contrib import admin

from apps.events.models import Attendee, Event, EventPipeline, HotelBlock


@admin.register(EventPipeline)
class PipelineAdmin(admin.ModelAdmin):
    list_display = ("name", "created_at", "deleted_at")


@admin.register(Event)
class EventAdmin(admin.ModelAdmin):
    list_display = ("name", "starts_at", "venue", "capacity", "stage", "owner", "visibility", "deleted_at")
    search_fields = ("name", "venue")
    raw_id_fields = ("owner", "created_by", "deleted_by", "stage")


@admin.register(Attendee)
class AttendeeAdmin(admin.ModelAdmin):
    # Needs are special-category data: not shown here.
    list_display = ("name", "email", "event", "status", "type")
    list_filter = ("status",)
    raw_id_fields = ("event", "created_by", "deleted_by")


@admin.register(HotelBlock)
class HotelBlockAdmin(admin.ModelAdmin):
    list_display = ("hotel", "room_type", "event", "first_night", "nights", "rooms", "cut_off")
    raw_id_fields = ("event", "created_by", "deleted_by")
