from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CalendarsConfig(AppConfig):
    name = "apps.calendars"
    label = "calendars"
    verbose_name = _("Calendars")

    def ready(self) -> None:
        from apps.contacts import links
        from apps.core import navigation
        from apps.core.navigation import NavItem

        from . import providers
        from .permissions import CalendarsPerm

        links.register_event_source(providers.CalendarEvents())
        navigation.register(
            NavItem("calendars", _("Calendars"), "calendars:list", CalendarsPerm.VIEW, order=32)
        )
