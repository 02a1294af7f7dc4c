"""The Calendars area's failures (apps.core.errors): each names the problem and what to do next."""

from django.utils.translation import gettext_lazy as _

from apps.core.errors import AppError, Conflict, InTrash


class CalendarArchived(InTrash):
    """An archived calendar (its model's `Access(trash_error=...)`)."""

    code = "CALENDAR_ARCHIVED"


class EventReadOnly(Conflict):
    """An event the actor sees because they are invited to it, on a calendar they may not change."""

    code = "EVENT_READ_ONLY"
    msg_format = _(
        "You are invited to event {id} but it is on a calendar you may not change; ask its organiser "
        "to change it."
    )


class FeedUnreachable(AppError):
    """An outside calendar feed that could not be read, or that is not iCalendar."""

    code = "FEED_UNREACHABLE"
    http_status = 502
    msg_format = _("The calendar feed at {url} could not be imported: {problem}. Nothing was changed.")


class FeedNotICalendar(FeedUnreachable):
    problem_format = _("it is not an iCalendar file")


class FeedTooLarge(FeedUnreachable):
    problem_format = _("it holds more than {most} events")


class FeedPasswordRefused(AppError):
    """The feed's server refused the user name and password (the stored password is forgotten)."""

    code = "FEED_PASSWORD_REFUSED"
    http_status = 409
    msg_format = _(
        "The calendar feed at {url} refused the user name and password. Nothing was changed; call "
        "again and the user will be asked for the password."
    )
