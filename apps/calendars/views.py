"""Pages of the Calendars area: the settings page where people see the calendars, events,
answers and invitations the tools made, and the page an invited person answers on."""

from datetime import timedelta

from django.db import transaction
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_http_methods

from apps.accounts.requests import AuthenticatedHttpRequest
from apps.calendars import invitations, selectors, services
from apps.calendars.models import Attendee, Calendar, Event
from apps.calendars.permissions import CalendarsPerm
from apps.calendars.shapes import EventOut
from apps.core.pages import READ, page

ANSWERS = {
    "accepted": "You accepted",
    "tentative": "You answered maybe",
    "declined": "You declined",
}


@page(CalendarsPerm.VIEW, methods=READ)
def calendar_list(request: AuthenticatedHttpRequest) -> HttpResponse:
    now = timezone.now()
    events = Event.objects.restrict(request.user).select_related("calendar")
    occurrences = selectors.occurrences(events, start=now, end=now + timedelta(days=30))[:200]
    return render(
        request,
        "calendars/list.html",
        {
            "nav": "calendars",
            "calendars": Calendar.objects.restrict(request.user, trash="include").select_related("owner"),
            "occurrences": occurrences,
            # The zone the page's times are shown in (apps.core.times): the reader's own.
            "zone": timezone.get_current_timezone(),
        },
    )


@page(CalendarsPerm.VIEW, methods=READ)
def event_detail(request: AuthenticatedHttpRequest, event_id: int) -> HttpResponse:
    event = Event.objects.select_related("calendar", "organizer").fetch(request.user, event_id)
    return render(
        request,
        "calendars/event.html",
        {
            "nav": "calendars",
            "event": EventOut.of(event),
            "invitations": event.invitations.select_related("sent_by")[:100],
        },
    )


@require_http_methods(["GET", "POST"])
def rsvp(request: HttpRequest, token: str) -> HttpResponse:
    """The link in an invitation: shows the event and the answer buttons (GET never changes
    anything, so a mail scanner following links answers nothing); the form posts the answer."""
    payload = invitations.rsvp_read(token)
    attendee = (
        Attendee.objects.select_related("event", "event__calendar", "event__organizer")
        .filter(Q(pk=payload.get("a")), email=payload.get("e"), event__deleted_at__isnull=True)
        .first()
        if payload
        else None
    )
    if attendee is None:
        raise Http404("This invitation link is not valid any more.")
    answered = ""
    if request.method == "POST":
        answer = request.POST.get("answer", "")
        if answer not in ANSWERS:
            raise Http404("Unknown answer.")
        with transaction.atomic():
            services.response_record(
                attendee=attendee, response=answer, comment=request.POST.get("comment", "")
            )
        answered = ANSWERS[answer]
    return render(
        request,
        "calendars/rsvp.html",
        {
            "attendee": attendee,
            "event": EventOut.of(attendee.event),
            "suggested": request.GET.get("answer", ""),
            "answered": answered,
        },
    )
