"""The Deals settings page: each pipeline as a board of its stages and their open deals, and each
deal's page (its stage history, contacts, follow-ups and changes): what people and agents did."""

from django.http import HttpResponse
from django.shortcuts import render

from apps.accounts.requests import AuthenticatedHttpRequest
from apps.core.pages import READ, page
from apps.deals import selectors
from apps.deals.models import Deal
from apps.deals.permissions import DealsPerm


@page(DealsPerm.VIEW, methods=READ)
def board(request: AuthenticatedHttpRequest) -> HttpResponse:
    boards = selectors.boards(actor=request.user)
    return render(request, "deals/board.html", {"nav": "deals", "boards": boards})


@page(DealsPerm.VIEW, methods=READ)
def deal_detail(request: AuthenticatedHttpRequest, deal_id: int) -> HttpResponse:
    deal = Deal.objects.select_related("pipeline", "stage", "owner").fetch(request.user, deal_id, trash=True)
    return render(
        request,
        "deals/detail.html",
        {
            "nav": "deals",
            "deal": deal,
            "weighted": selectors.weighted(deal),
            "rotting": selectors.rotting_days(deal),
            "visits": deal.visits.order_by("entered_at", "id")[:200],
            "activities": deal.activities.select_related("owner").order_by("-created_at", "-id")[:200],
            "events": deal.events.select_related("actor")[:200],
        },
    )
