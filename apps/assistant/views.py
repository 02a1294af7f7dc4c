"""Settings → Personal assistant: what the assistant did for a person (their goals, the schedule
proposals, governance checks and plan tests); the area's administrators see everyone's."""

from django.http import HttpResponse
from django.shortcuts import render

from apps.accounts.requests import AuthenticatedHttpRequest
from apps.assistant.models import Goal, GovernanceCheck, PlanTest, ScheduleProposal
from apps.assistant.permissions import AssistantPerm
from apps.core.pages import READ, page, paged


@page(AssistantPerm.VIEW, methods=READ)
def home(request: AuthenticatedHttpRequest) -> HttpResponse:
    goals = Goal.objects.restrict(request.user).select_related("owner").order_by("deadline", "id")
    context = paged(request, goals)
    proposals = (
        ScheduleProposal.objects.restrict(request.user)
        .select_related("goal")
        .order_by("-created_at", "-id")[:20]
    )
    checks = GovernanceCheck.objects.restrict(request.user).select_related("goal").order_by("-at", "-id")[:20]
    tests = PlanTest.objects.restrict(request.user).select_related("goal").order_by("-created_at", "-id")[:20]
    return render(
        request,
        "assistant/home.html",
        {
            "nav": "assistant",
            **context,
            "proposals": list(proposals),
            "checks": list(checks),
            "tests": list(tests),
        },
    )
