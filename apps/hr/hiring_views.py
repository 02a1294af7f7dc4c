"""The Hiring settings page (a section of HR): pipelines with their stages and candidates, and
each candidate's page with their CV, consent, stage history and the rankings given as advice."""

from django.db.models import Count, Q
from django.http import HttpResponse
from django.shortcuts import render

from apps.accounts.requests import AuthenticatedHttpRequest
from apps.core.pages import READ, page
from apps.hr.models import Candidate, HiringAdvice, HiringPipeline
from apps.hr.permissions import HrPerm


@page(HrPerm.HIRING, methods=READ)
def hiring(request: AuthenticatedHttpRequest) -> HttpResponse:
    candidates = Candidate.objects.restrict(request.user)
    pipelines = (
        HiringPipeline.objects.restrict(request.user)
        .prefetch_related("stages")
        .annotate(live=Count("candidates", filter=Q(candidates__in=candidates)))
        .order_by("name", "id")[:100]
    )
    rows = candidates.select_related("pipeline", "stage").order_by("-last_activity_at", "-id")[:500]
    return render(request, "hr/hiring.html", {"nav": "hr-hiring", "pipelines": pipelines, "candidates": rows})


@page(HrPerm.HIRING, methods=READ)
def candidate(request: AuthenticatedHttpRequest, candidate_id: int) -> HttpResponse:
    found = Candidate.objects.select_related("pipeline", "stage", "duplicate_of").fetch(
        request.user, candidate_id
    )
    history = found.history.select_related("from_stage", "to_stage", "by")
    advice = [
        a
        for a in HiringAdvice.objects.order_by("-at")[:200]
        if any(r["candidate"] == found.pk for r in a.ranking)
    ]
    return render(
        request,
        "hr/candidate.html",
        {"nav": "hr-hiring", "candidate": found, "history": history, "advice": advice[:20]},
    )
