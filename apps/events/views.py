"""The Events settings page: events by stage, and each event's agenda, attendees, suppliers,
hotel blocks, budget and travel plans: what people and agents planned."""

from django.http import HttpResponse
from django.shortcuts import render

from apps.accounts.requests import AuthenticatedHttpRequest
from apps.core.pages import READ, page
from apps.events import selectors
from apps.events.models import Attendee, Event
from apps.events.permissions import EventsPerm


@page(EventsPerm.VIEW, methods=READ)
def event_list(request: AuthenticatedHttpRequest) -> HttpResponse:
    rows = selectors.with_counts(
        Event.objects.restrict(request.user).select_related("stage__pipeline", "owner")
    )
    return render(
        request,
        "events/list.html",
        {"nav": "events", "events": rows.order_by("-starts_at", "id")[:500]},
    )


@page(EventsPerm.VIEW, methods=READ)
def event_detail(request: AuthenticatedHttpRequest, event_id: int) -> HttpResponse:
    event = Event.objects.select_related("stage__pipeline", "owner").fetch(request.user, event_id)
    attendees = (
        Attendee.objects.restrict(request.user)
        .filter(event=event)
        .select_related("needs", "travel")
        .prefetch_related("room_allocations__block")
        .order_by("status", "name", "id")
    )
    budget = selectors.budget_of(event)
    return render(
        request,
        "events/detail.html",
        {
            "nav": "events",
            "event": event,
            "counts": selectors.status_counts(event),
            "sessions": event.sessions.filter(deleted_at__isnull=True).prefetch_related("speakers"),
            "attendees": attendees[:1000],
            "with_needs": "needs" in Attendee.access.fields_allowed(request.user),
            "suppliers": event.suppliers.filter(deleted_at__isnull=True).prefetch_related("cost_lines"),
            "budget": budget,
            "findings": selectors.findings(event, budget),
            "imports": event.imports.all()[:50],
        },
    )
