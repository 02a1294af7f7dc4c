"""The Calendars area, as the rest of the service knows it (apps.core.areas)."""

from django.utils.translation import gettext_lazy as _

from apps.calendars.permissions import CalendarsPerm
from apps.calendars.providers import CalendarEvents
from apps.core import areas
from apps.core.navigation import NavItem

area = areas.register(
    areas.Area(
        app="calendars",
        key="calendars",
        title=_("Calendars"),
        description=_("Calendars, events, availability and invitations"),
        permissions=CalendarsPerm,
        nav=[NavItem("calendars", _("Calendars"), "calendars:list", CalendarsPerm.VIEW, order=32)],
        event_sources=[CalendarEvents()],
    )
)
