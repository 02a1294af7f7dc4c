"""The Outreach settings page of the Deals area: the deal finders and reachout campaigns one may
see, as people and agents left them (criteria, schedule, last run and its problem; campaign state
and how its recipients stand)."""

from django.http import HttpResponse
from django.shortcuts import render

from apps.accounts.requests import AuthenticatedHttpRequest
from apps.core.pages import READ, page
from apps.deals import reachout
from apps.deals.models import DealFinder, ReachoutCampaign
from apps.deals.permissions import DealsPerm


@page(DealsPerm.VIEW, methods=READ)
def outreach(request: AuthenticatedHttpRequest) -> HttpResponse:
    finders = list(DealFinder.objects.restrict(request.user).order_by("name", "id")[:200])
    campaigns = list(
        ReachoutCampaign.objects.restrict(request.user)
        .select_related("mailbox")
        .order_by("-created_at")[:200]
    )
    # What the page shows beside each one, kept on it for the template alone.
    for finder in finders:
        finder.lead_count = finder.leads.exclude(status="dismissed").count()  # type: ignore[attr-defined]
    for campaign in campaigns:
        campaign.tally = reachout.counts(campaign)  # type: ignore[attr-defined]
    return render(
        request, "deals/outreach.html", {"nav": "deals-outreach", "finders": finders, "campaigns": campaigns}
    )
