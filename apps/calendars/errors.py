from typing import Any

from django.utils.translation import gettext as _

from apps.core.errors import Conflict, NotFound, ValidationFailed


class CalendarNotFound(NotFound):
    def __init__(self, calendar_id: Any) -> None:
        super().__init__(
            _(
                "Calendar %(id)s was not found, or you may not see it. getCalendarSummary lists the "
                "calendars you can use."
            )
            % {"id": calendar_id}
        )


class CalendarArchived(Conflict):
    code = "CALENDAR_ARCHIVED"

    def __init__(self, calendar_id: Any) -> None:
        super().__init__(
            _("Calendar %(id)s is archived. Restore it with manageCalendar (action restore) first.")
            % {"id": calendar_id}
        )


class EventNotFound(NotFound):
    def __init__(self, event_id: Any) -> None:
        super().__init__(
            _(
                "Event %(id)s was not found, or you may not see it. Find the right id with "
                "searchCalendarEvents."
            )
            % {"id": event_id}
        )


class EventReadOnly(Conflict):
    code = "EVENT_READ_ONLY"

    def __init__(self, event_id: Any) -> None:
        super().__init__(
            _(
                "You are invited to event %(id)s but it is on a calendar you may not change; ask its "
                "organiser to change it."
            )
            % {"id": event_id}
        )


class InvalidEvent(ValidationFailed):
    """A value an event or a calendar cannot take; `details` names the field."""

    @classmethod
    def on(cls, field: str, message: str) -> "InvalidEvent":
        return cls(f"{field}: {message}.", details={field: [message]})
