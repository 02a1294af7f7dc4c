"""Personal data in calendars (docs/privacy.md).

Attendees are found by their address (they need not be workspace people); the invitations
e-mailed to them by recipient. Calendars and events are the workspace's records: a person's
own calendars (and the events on them) are theirs, found by owner; an event they organised on
someone else's calendar keeps existing, with the organiser cleared on erasure.
"""

from django.utils import timezone

from apps.calendars.models import Attendee, Calendar, CalendarFeed, Event, Invitation
from apps.core import privacy

privacy.register(Attendee, email="email")
privacy.register(Invitation, email="recipient")
# A person's own calendars go with them, after the rows on them (order 50).
privacy.register(
    Calendar,
    user="owner",
    soft_delete=lambda rows: rows.filter(deleted_at__isnull=True).update(deleted_at=timezone.now()),
    order=50,
)
privacy.register(Event, user="calendar__owner", soft_delete="deleted_at", order=40)
# A feed someone subscribed a calendar to stays with the calendar; the person is cleared.
privacy.register(
    CalendarFeed,
    user="created_by",
    exclude=["password_encrypted"],
    soft_delete=lambda rows: rows.update(created_by=None),
    order=45,
)
