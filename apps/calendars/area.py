"""The Calendars area, as the rest of the service knows it (apps.core.areas)."""

from django.utils.translation import gettext_lazy as _

from apps.calendars.permissions import CalendarsPerm
from apps.calendars.providers import CalendarEvents
from apps.core import areas, env
from apps.core.navigation import NavItem

area = areas.declare(
    title=_("Calendars"),
    description=_("Calendars, events, availability and invitations"),
    words="calendar diary agenda schedule event appointment meeting call booking attendee invitation",
    nav=[NavItem("calendars", _("Calendars"), "calendars:list", CalendarsPerm.VIEW, order=32)],
    event_sources=[CalendarEvents()],
    settings={
        # How long the answer links in a calendar invitation work (default: 90 days).
        "ATRIUM_CALENDAR_RSVP_TTL_SECONDS": env.int(
            "ATRIUM_CALENDAR_RSVP_TTL_SECONDS", 90 * 24 * 3600, min=1
        ),
    },
)
