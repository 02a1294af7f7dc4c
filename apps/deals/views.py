"""The Deals settings page: each pipeline as a board of its stages and their open deals."""

from django.http import HttpResponse
from django.shortcuts import render

from apps.accounts.requests import AuthenticatedHttpRequest
from apps.core.pages import READ, page
from apps.deals.models import Deal, Pipeline
from apps.deals.permissions import DealsPerm


@page(DealsPerm.VIEW, methods=READ)
def board(request: AuthenticatedHttpRequest) -> HttpResponse:
    pipelines = list(Pipeline.objects.restrict(request.user).prefetch_related("stages"))
    deals = Deal.objects.restrict(request.user).filter(status=Deal.Status.OPEN).order_by("-value", "id")
    by_stage: dict[int, list[Deal]] = {}
    for deal in deals.filter(pipeline__in=pipelines)[:2000]:
        by_stage.setdefault(deal.stage_id, []).append(deal)
    columns = [
        (pipeline, [(stage, by_stage.get(stage.pk, [])) for stage in pipeline.stages.all()])
        for pipeline in pipelines
    ]
    return render(request, "deals/board.html", {"nav": "deals", "columns": columns})
