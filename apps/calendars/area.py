"""The Calendars area, as the rest of the service knows it (apps.core.areas)."""

from django.utils.translation import gettext_lazy as _

from apps.calendars.permissions import CalendarsPerm
from apps.calendars.providers import CalendarEvents
from apps.core import areas, env
from apps.core.kinds import Kind, page
from apps.core.navigation import NavItem

area = areas.declare(
    title=_("Calendars"),
    group=areas.Group.WORK,
    description=_("Calendars, events, availability and invitations"),
    words="calendar diary agenda schedule event appointment meeting call booking attendee invitation",
    hints={
        "createCalendarEvent": (
            "book schedule put an appointment meeting call in the diary, a repeating meeting"
        ),
        "updateCalendarEvent": (
            "reschedule move push back change the time or room of a meeting, cancel it or one occurrence, "
            "invite add or remove people, record who accepted"
        ),
        "searchCalendarEvents": (
            "find meetings appointments what is on my diary agenda schedule this week, when is my next "
            "meeting"
        ),
        "checkAvailability": "who is free busy available when can we meet, a free slot for everyone",
        "checkEventRsvpStatus": "who accepted declined replied can't make it coming attending to a meeting",
        "sendCalendarInvite": "send email the invitation to attendees guests, resend updated invites",
        "getCalendarSummary": (
            "overview of my schedule, the coming days, invitations not answered, time zone"
        ),
        "manageCalendar": "create rename share archive restore a calendar, subscribe import an ics feed",
    },
    profiles={
        "essentials": (
            "searchCalendarEvents",
            "createCalendarEvent",
            "updateCalendarEvent",
            "checkAvailability",
        ),
        "sales": (
            "searchCalendarEvents",
            "createCalendarEvent",
            "updateCalendarEvent",
            "checkAvailability",
            "sendCalendarInvite",
            "checkEventRsvpStatus",
        ),
        "operations": ("searchCalendarEvents", "createCalendarEvent", "checkAvailability"),
        "people": (
            "searchCalendarEvents",
            "createCalendarEvent",
            "updateCalendarEvent",
            "checkAvailability",
            "getCalendarSummary",
        ),
        "events": ("searchCalendarEvents", "createCalendarEvent", "checkAvailability", "sendCalendarInvite"),
        "admin": ("manageCalendar", "getCalendarSummary"),
    },
    nav=[NavItem("calendars", _("Calendars"), "calendars:list", CalendarsPerm.VIEW, order=32)],
    kinds=[
        Kind(
            "calendar",
            "calendars.Calendar",
            title="name",
            url=page("calendars:list"),
            search=("name", "description"),
        ),
        Kind(
            "calendar_event",
            "calendars.Event",
            named=_("Calendar event"),
            url=page("calendars:event", "event_id"),
            search=("title", "location", "description"),
        ),
    ],
    event_sources=[CalendarEvents()],
    settings={
        # How long the answer links in a calendar invitation work (default: 90 days).
        "ATRIUM_CALENDAR_RSVP_TTL_SECONDS": env.int(
            "ATRIUM_CALENDAR_RSVP_TTL_SECONDS", 90 * 24 * 3600, min=1
        ),
    },
)
