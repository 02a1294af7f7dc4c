"""An event's invitation as iCalendar (RFC 5545/5546, made by apps.core.ical), e-mailed to an
attendee through the mail app (apps.mail.api.send). The UID stays the same for the life of the
event and SEQUENCE goes up whenever its time or place changes (apps.events.services.event_update),
so a newer invitation replaces the older one in the attendee's calendar."""

import logging
from typing import Any
from zoneinfo import ZoneInfo

from django.utils import timezone

from apps.core import ical
from apps.events.models import Attendee, Event
from apps.mail import api as mail

logger = logging.getLogger(__name__)
PRODID = "-//Atrium//Events//EN"


def _method(event: Event, attendee: Attendee | None) -> str:
    if event.cancelled_at is not None:
        return "CANCEL"
    return "CANCEL" if attendee and attendee.status == Attendee.Status.CANCELLED else "REQUEST"


def ics_of(event: Event, attendee: Attendee | None = None) -> bytes:
    """The event's invitation, for `attendee` (named in it, with RSVP) when given."""
    happening = ical.Happening(
        uid=event.ical_uid,
        sequence=event.ical_sequence,
        summary=event.name,
        starts_at=event.starts_at,
        ends_at=event.ends_at,
        time_zone=event.time_zone,
        description=event.description,
        location=event.venue,
        status="CANCELLED" if event.cancelled_at is not None else "",
        organizer=ical.Address(event.owner.email) if event.owner is not None else None,
        attendees=[ical.Address(attendee.email, attendee.name, {"rsvp": "TRUE"})] if attendee else [],
    )
    return ical.ics_of(happening, method=_method(event, attendee), prodid=PRODID)


def send(*, actor: Any, event: Event, attendee: Attendee) -> None:
    """E-mails `attendee` the event's current invitation and records which SEQUENCE they have."""
    prefix = "Updated invitation" if attendee.invited_sequence is not None else "Invitation"
    if attendee.status == Attendee.Status.CANCELLED or event.cancelled_at is not None:
        prefix = "Cancelled"
    zone = ZoneInfo(event.time_zone)
    when = event.starts_at.astimezone(zone).strftime("%Y-%m-%d %H:%M")
    method = _method(event, attendee)
    notice = mail.Notice(
        to=[attendee.email],
        subject=f"{prefix}: {event.name} ({when} {event.time_zone})"[:300],
        text=f"{event.name}\n{when} ({event.time_zone})\n{event.venue}\n",
        reply_to=actor.email,
        attachments=(mail.Attachment("invite.ics", ics_of(event, attendee), "text/calendar", method=method),),
    )
    attendee.invited_sequence = event.ical_sequence
    attendee.invited_at = timezone.now()
    attendee.save(update_fields=["invited_sequence", "invited_at", "updated_at"])
    mail.send([notice])
    logger.info(
        "event %s: invitation sequence %s sent to attendee %s", event.pk, event.ical_sequence, attendee.pk
    )
