"""Settings → Travel search: the options saved to shortlists that a person may see (their own and
those shared with the workspace), which providers are set, and the recent calls of the area's tools
with their outcome (a person's own; every person's to the area's admins)."""

from django.http import HttpResponse
from django.shortcuts import render

from apps.accounts.requests import AuthenticatedHttpRequest
from apps.catalogue.models import ToolCall
from apps.core.actors import can
from apps.core.pages import READ, page, paged
from apps.travel import api as flights
from apps.travelsearch import providers
from apps.travelsearch.area import TOOLS
from apps.travelsearch.models import SavedItem
from apps.travelsearch.permissions import TravelSearchPerm


@page(TravelSearchPerm.VIEW, methods=READ)
def travelsearch(request: AuthenticatedHttpRequest) -> HttpResponse:
    saved = SavedItem.objects.restrict(request.user).select_related("owner")
    calls = ToolCall.objects.filter(tool__in=TOOLS).select_related("user")
    if not can(request.user, TravelSearchPerm.ADMIN):
        calls = calls.filter(user=request.user)
    return render(
        request,
        "travelsearch/travelsearch.html",
        {
            "nav": "travelsearch",
            **paged(request, saved.order_by("-updated_at", "-id")),
            "calls": calls.order_by("-at", "-id")[:30],
            "inventory": providers.configured(),
            "flights": flights.configured(),
        },
    )
