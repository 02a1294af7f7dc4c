"""The Video meetings settings page: the meetings a person's agents made (every one, to the area's
admins), who was given a link, and which provider is set."""

from django.http import HttpResponse
from django.shortcuts import render

from apps.accounts.requests import AuthenticatedHttpRequest
from apps.core.pages import READ, page, paged
from apps.integrations.api import setting
from apps.meetings import providers
from apps.meetings.models import Meeting
from apps.meetings.permissions import MeetingsPerm


@page(MeetingsPerm.VIEW, methods=READ)
def meetings(request: AuthenticatedHttpRequest) -> HttpResponse:
    rows = (
        Meeting.objects.restrict(request.user).select_related("created_by").prefetch_related("participants")
    )
    return render(
        request,
        "meetings/meetings.html",
        {
            "nav": "meetings",
            **paged(request, rows.order_by("-starts_at", "-id")),
            "provider": providers.configured(),
            "chosen_provider": setting("ATRIUM_MEETINGS_PROVIDER"),
        },
    )
