"""The settings page listing the tool-call log (admins)."""

from django.http import HttpResponse
from django.shortcuts import render

from apps.accounts.requests import AuthenticatedHttpRequest
from apps.catalogue import registry, selectors
from apps.catalogue.models import ToolCall
from apps.catalogue.permissions import CataloguePerm
from apps.core.pages import READ, chosen, page, paged

PAGE_SIZE = 50


@page(CataloguePerm.AUDIT, methods=READ)
def tool_calls(request: AuthenticatedHttpRequest) -> HttpResponse:
    tool = request.GET.get("tool", "").strip()[:100]
    outcome = chosen(request, "outcome", ToolCall.Outcome.values)
    try:
        user_id = int(request.GET.get("person", "") or 0) or None
    except ValueError:
        user_id = None
    calls = selectors.tool_call_list(actor=request.user, tool=tool, outcome=outcome, user_id=user_id)
    return render(
        request,
        "catalogue/tool_calls.html",
        {
            "nav": "tool-calls",
            **paged(request, calls, PAGE_SIZE),
            "tool": tool,
            "outcome": outcome,
            "outcomes": ToolCall.Outcome.choices,
            "tools": [spec.name for spec in registry.all_tools()],
        },
    )
