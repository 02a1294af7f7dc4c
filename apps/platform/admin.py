"""The operators' view of the tickets a workspace sent them (Django admin, in the workspace's schema):
they answer one by writing its reply and setting its status, which its requester reads back."""

from django.contrib import admin

from apps.platform.models import SupportTicket


@admin.register(SupportTicket)
class SupportTicketAdmin(admin.ModelAdmin):
    list_display = ("subject", "category", "status", "requested_by", "created_at", "operators_notified")
    list_filter = ("status", "category")
    search_fields = ("subject", "body", "requested_by__email")
    raw_id_fields = ("requested_by",)
    readonly_fields = ("requested_by", "category", "subject", "body", "operators_notified", "created_at")
