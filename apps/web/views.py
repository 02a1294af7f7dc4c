"""The Web browser settings page: the web searches and pages read by a person's agents (every
person's, to the area's admins), and which search provider is set."""

from django.http import HttpResponse
from django.shortcuts import render

from apps.accounts.requests import AuthenticatedHttpRequest
from apps.core.pages import READ, chosen, page, paged
from apps.integrations.api import setting
from apps.web import searching
from apps.web.models import WebCall
from apps.web.permissions import WebPerm


@page(WebPerm.VIEW, methods=READ)
def calls(request: AuthenticatedHttpRequest) -> HttpResponse:
    kind = chosen(request, "kind", WebCall.Kind.values)
    rows = WebCall.objects.restrict(request.user).select_related("created_by")
    if kind:
        rows = rows.filter(kind=kind)
    return render(
        request,
        "web/calls.html",
        {
            "nav": "web",
            **paged(request, rows.order_by("-created_at", "-id")),
            "kinds": list(WebCall.Kind.choices),
            "kind": kind,
            "provider": searching.configured(),
            "chosen_provider": setting("ATRIUM_WEB_SEARCH_PROVIDER"),
        },
    )
