"""What Calendars gives other areas: a contact's upcoming events (apps.core.kinds.sources)."""

from datetime import datetime
from typing import Any

from django.db.models import Q
from django.urls import reverse

from apps.calendars import selectors
from apps.calendars.models import Event
from apps.core.actors import Actor
from apps.core.kinds.sources import UpcomingEvent


class CalendarEvents:
    """Events in which a contact takes part: as an attendee linked to the contact, or by one of
    the contact's addresses; only events the person asking may see, occurrences expanded."""

    area = "calendars"

    def upcoming(
        self, *, actor: Actor | None, contact: Any, start: datetime, end: datetime, limit: int
    ) -> list[UpcomingEvent]:
        match = Q(attendees__contact=contact)
        for address in contact.addresses:
            match |= Q(attendees__email__iexact=address)
        rows = Event.objects.restrict(actor).filter(match).exclude(status=Event.Status.CANCELLED).distinct()
        return [
            UpcomingEvent(
                id=occurrence.event.pk,
                title=occurrence.event.title,
                starts_at=occurrence.starts_at,
                ends_at=occurrence.ends_at,
                location=occurrence.event.location,
                url=reverse("calendars:event", kwargs={"event_id": occurrence.event.pk}),
                area=self.area,
            )
            for occurrence in selectors.occurrences(rows, start=start, end=end)[:limit]
        ]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CalendarEvents)

    def __hash__(self) -> int:
        return hash(CalendarEvents)
