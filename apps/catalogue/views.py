"""The settings page listing the tool-call log (admins)."""

from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import render

from apps.accounts.requests import AuthenticatedHttpRequest
from apps.catalogue import registry, selectors
from apps.catalogue.models import ToolCall
from apps.catalogue.permissions import CataloguePerm
from apps.core.pages import READ, page

PAGE_SIZE = 50


@page(CataloguePerm.AUDIT, methods=READ)
def tool_calls(request: AuthenticatedHttpRequest) -> HttpResponse:
    tool = request.GET.get("tool", "").strip()[:100]
    outcome = request.GET.get("outcome", "").strip()
    if outcome not in ToolCall.Outcome.values:
        outcome = ""
    try:
        user_id = int(request.GET.get("person", "") or 0) or None
    except ValueError:
        user_id = None
    calls = selectors.tool_call_list(actor=request.user, tool=tool, outcome=outcome, user_id=user_id)
    page = Paginator(calls, PAGE_SIZE).get_page(request.GET.get("page"))
    return render(
        request,
        "catalogue/tool_calls.html",
        {
            "nav": "tool-calls",
            "page": page,
            "tool": tool,
            "outcome": outcome,
            "outcomes": ToolCall.Outcome.choices,
            "tools": [spec.name for spec in registry.all_tools()],
        },
    )
