"""The workspace-wide search's page: a search box at the top of the menu, and what it finds for
the person asking, grouped by kind, each record linked to its page."""

from typing import cast

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from apps.core.actors import Actor
from apps.core.kinds import Kind, finding, kinds
from apps.core.pages import READ, page


@page(methods=READ)
def search(request: HttpRequest) -> HttpResponse:
    """Signed in is enough: each kind is searched only where the person may see its area, and
    among the records they may open."""
    actor = cast(Actor, request.user)
    query = request.GET.get("q", "").strip()[: finding.MAX_QUERY]
    searched = finding.searched()
    asked = set(request.GET.getlist("kind")) & {kind.key for kind in searched}
    chosen: list[Kind] | None = [kind for kind in searched if kind.key in asked] or None
    limit = finding.MAX_LIMIT if chosen is not None and len(chosen) == 1 else finding.LIMIT
    found = (
        finding.search(actor, query, kinds=[kind.key for kind in chosen] if chosen else None, limit=limit)
        if query
        else []
    )
    return render(
        request,
        "core/search.html",
        {
            "query": query,
            "search_query": query,
            "found": found,
            "chosen": asked,
            "total": sum(group.total for group in found),
            "all_kinds": [kind for kind in kinds() if kind.search and finding.may_search(actor, kind)],
        },
    )
