"""Listeners' reads: the listeners a person may see, and their runs."""

from django.db.models import Count, QuerySet
from django.utils.translation import gettext_lazy as _

from apps.core.actors import Actor
from apps.core.errors import RecordNotFound
from apps.core.records import Action
from apps.core.search import matching
from apps.listeners.models import Listener, Run


def listeners(
    actor: Actor, *, status: str | None = None, trigger_kind: str | None = None, query: str = ""
) -> QuerySet[Listener]:
    rows = Listener.objects.restrict(actor, "view").select_related("owner")
    if status:
        rows = rows.filter(status=status)
    if trigger_kind:
        rows = rows.filter(trigger_kind=trigger_kind)
    if query:
        rows = matching(rows, query, ("name", "description"))
    return rows.order_by("name", "id")


def runs_by_status(listener: Listener) -> dict[str, int]:
    counted = Run.objects.filter(listener=listener).values("status").annotate(n=Count("id"))
    return {row["status"]: row["n"] for row in counted}


def run_of(actor: Actor, run_id: int, action: Action = "view") -> Run:
    """A run of a listener the actor may see (or change), or not found: the same answer."""
    seen = Listener.objects.restrict(actor, action)
    run = Run.objects.filter(pk=run_id, listener__in=seen).select_related("listener").first()
    if run is None:
        raise RecordNotFound(label=_("Run"), id=run_id, find_with="getListenerRuns")
    return run
