"""Approved leave in the Calendars area (apps.calendars.api): an all-day event on the workspace's
"Leave" calendar, with the employee (when they are a person of the workspace) as its attendee;
cancelled when the leave is. Nothing is written where the Calendars area is not installed."""

import logging
from datetime import datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from apps.core import workspaces
from apps.core.clean import plain

logger = logging.getLogger(__name__)
CALENDAR_NAME = "Leave"


def show(*, actor: Any, request: Any) -> int | None:
    """The id of the calendar event made for an approved request (None: no Calendars area)."""
    if not workspaces.has_area("calendars"):
        return None
    from apps.calendars import api as calendars

    employee = request.employee
    zone = ZoneInfo(employee.time_zone)
    title = _("%(name)s on leave") % {"name": employee.full_name}
    if request.start_half or request.end_half:
        title += " " + _("(half day)")
    guests = (
        [calendars.Guest(employee.user.email, employee.full_name, employee.user_id, "accepted")]
        if employee.user_id is not None
        else []
    )
    event_id = calendars.put_event(
        actor=actor,
        calendar=CALENDAR_NAME,
        calendar_description=_("Approved leave (from the HR area)"),
        title=title,
        # Never the kind of leave: the calendar is everyone's, and sick leave is health data.
        description=ngettext(
            "%(days)s working day of leave", "%(days)s working days of leave", 1 if request.days == 1 else 2
        )
        % {"days": plain(request.days)},
        starts_at=datetime.combine(request.start_date, time(0), tzinfo=zone),
        ends_at=datetime.combine(request.end_date + timedelta(days=1), time(0), tzinfo=zone),
        time_zone=employee.time_zone,
        all_day=True,
        busy=True,
        guests=guests,
    )
    logger.info("leave request %s shown as calendar event %s", request.pk, event_id)
    return event_id


def remove(*, actor: Any, request: Any) -> None:
    if request.calendar_event_id is None or not workspaces.has_area("calendars"):
        return
    from apps.calendars import api as calendars

    calendars.cancel_event(actor=actor, event_id=request.calendar_event_id)
