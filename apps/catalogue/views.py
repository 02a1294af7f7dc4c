"""The settings page listing the tool-call log (admins)."""

from django.http import HttpResponse
from django.shortcuts import render

from apps.accounts.requests import AuthenticatedHttpRequest
from apps.catalogue import registry, selectors
from apps.catalogue.models import ToolCall
from apps.catalogue.permissions import CataloguePerm
from apps.core import credentials
from apps.core.credentials import CredentialName
from apps.core.pages import READ, chosen, page, paged

PAGE_SIZE = 50


@page(CataloguePerm.AUDIT, methods=READ)
def tool_calls(request: AuthenticatedHttpRequest) -> HttpResponse:
    tool = request.GET.get("tool", "").strip()[:100]
    outcome = chosen(request, "outcome", ToolCall.Outcome.values)
    user_id, key_id = _number(request, "person"), _number(request, "key")
    calls = selectors.tool_call_list(
        actor=request.user, tool=tool, outcome=outcome, user_id=user_id, api_key_id=key_id
    )
    pager = paged(request, calls, PAGE_SIZE)
    # The page's rows, read once, each with its credential's and API key's names (one query per
    # kind).
    shown = pager["page"].object_list = list(pager["page"].object_list)
    keys = {f"key:{call.api_key_id}" for call in shown if call.api_key_id}
    names = credentials.names({call.credential for call in shown if call.credential} | keys)
    for call in shown:
        call.credential_name = _credential_name(call, names)
        call.key_name = names.get(f"key:{call.api_key_id}") if call.api_key_id else None
    return render(
        request,
        "catalogue/tool_calls.html",
        {
            "nav": "tool-calls",
            **pager,
            "tool": tool,
            "outcome": outcome,
            "key": credentials.names([f"key:{key_id}"])[f"key:{key_id}"] if key_id else None,
            "key_id": key_id,
            "outcomes": ToolCall.Outcome.choices,
            "tools": [spec.name for spec in registry.all_tools()],
        },
    )


def _number(request: AuthenticatedHttpRequest, name: str) -> int | None:
    try:
        return int(request.GET.get(name, "") or 0) or None
    except ValueError:
        return None


def _credential_name(call: ToolCall, names: dict[str, CredentialName]) -> CredentialName | None:
    """The credential of a call by its kind and name. An OAuth token is short-lived: once it is
    gone, the connected app is named by the client name the log kept."""
    if not call.credential:
        return None
    named = names[call.credential]
    if not named.found and call.scheme == "oauth" and call.client:
        return CredentialName(named.kind, call.client)
    return named
