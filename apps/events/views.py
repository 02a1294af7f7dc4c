"""The Events settings page: events by stage, and each event's agenda, attendees, suppliers,
hotel blocks, budget and travel plans: what people and agents planned; and the deleted events,
which whoever may delete them can restore."""

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from apps.accounts.requests import AuthenticatedHttpRequest
from apps.core.pages import READ, page
from apps.events import selectors, services
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
        {
            "nav": "events",
            "events": rows.order_by("-starts_at", "id")[:500],
            # The deleted ones the person may bring back (whoever may delete an event).
            "deleted": Event.objects.restrict(request.user, "delete", trash="only").order_by("-deleted_at")[
                :200
            ],
        },
    )


@page(EventsPerm.EDIT, methods=("POST",))
def event_restore(request: AuthenticatedHttpRequest, event_id: int) -> HttpResponse:
    event = Event.objects.fetch(request.user, event_id, "delete", trash=True)
    services.event_restore(actor=request.user, event=event)
    messages.success(request, _("%(name)s is back.") % {"name": event.name})
    return redirect("events:detail", event.pk)


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
            "imports": selectors.imports_of(actor=request.user, event=event),
        },
    )
