"""Approved leave in the Calendars area: an all-day event on the workspace's "Leave" calendar,
with the employee (when they are a person of the workspace) as its attendee; removed when the
leave is cancelled. Nothing is written where the Calendars area is not installed."""

import logging
from datetime import datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from django.utils.translation import gettext as _

from apps.core import workspaces

logger = logging.getLogger(__name__)
CALENDAR_NAME = "Leave"


def _calendar(actor: Any, zone: str) -> Any:
    from apps.calendars.models import Calendar

    found = (
        Calendar.objects.live().filter(name=CALENDAR_NAME, visibility="workspace", is_default=False).first()
    )
    if found is None:
        found = Calendar.objects.create(
            name=CALENDAR_NAME,
            description=_("Approved leave (from the HR area)"),
            time_zone=zone,
            visibility="workspace",
            owner=None,
            created_by_id=getattr(actor, "pk", None),
        )
    return found


def show(*, actor: Any, request: Any) -> int | None:
    """The id of the calendar event made for an approved request (None: no Calendars area)."""
    if not workspaces.has_area("calendars"):
        return None
    from apps.calendars.models import Attendee, Event

    employee = request.employee
    zone = ZoneInfo(employee.time_zone)
    title = _("%(name)s on leave") % {"name": employee.full_name}
    if request.start_half or request.end_half:
        title += " " + _("(half day)")
    event = Event.objects.create(
        calendar=_calendar(actor, employee.time_zone),
        title=title[:300],
        description=_("%(days)s working days of %(policy)s")
        % {"days": request.days, "policy": request.policy.name},
        starts_at=datetime.combine(request.start_date, time(0), tzinfo=zone),
        ends_at=datetime.combine(request.end_date + timedelta(days=1), time(0), tzinfo=zone),
        all_day=True,
        time_zone=employee.time_zone,
        busy=True,
        organizer_id=getattr(actor, "pk", None),
        created_by_id=getattr(actor, "pk", None),
    )
    if employee.user_id is not None:
        Attendee.objects.create(
            event=event,
            email=employee.user.email,
            name=employee.full_name,
            user_id=employee.user_id,
            response="accepted",
        )
    logger.info("leave request %s shown as calendar event %s", request.pk, event.pk)
    return event.pk


def remove(*, actor: Any, request: Any) -> None:
    if request.calendar_event_id is None or not workspaces.has_area("calendars"):
        return
    from apps.calendars.models import Event

    event = Event.objects.filter(pk=request.calendar_event_id, deleted_at__isnull=True).first()
    if event is not None:
        event.status = Event.Status.CANCELLED
        event.sequence += 1
        event.save(update_fields=["status", "sequence", "updated_at"])
        event.trash(actor)
