"""Reads of the tool-call log, for the people who may see it."""

from django.db.models import QuerySet

from apps.catalogue.models import ToolCall
from apps.catalogue.permissions import CataloguePerm
from apps.core.actors import Actor, can


def tool_call_list(
    *,
    actor: Actor,
    tool: str = "",
    outcome: str = "",
    user_id: int | None = None,
    api_key_id: int | None = None,
) -> QuerySet[ToolCall]:
    if not can(actor, CataloguePerm.AUDIT):
        return ToolCall.objects.none()
    calls = ToolCall.objects.select_related("user").order_by("-at", "-id")
    if tool:
        calls = calls.filter(tool=tool)
    if outcome:
        calls = calls.filter(outcome=outcome)
    if user_id:
        calls = calls.filter(user_id=user_id)
    if api_key_id:
        calls = calls.filter(api_key_id=api_key_id)
    return calls
