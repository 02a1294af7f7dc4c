"""An event's invitation as iCalendar (RFC 5545/5546, made with the `icalendar` library), e-mailed
to an attendee through Django's e-mail backend. The UID stays the same for the life of the event
and SEQUENCE goes up whenever its time or place changes (apps.events.services.event_update), so a
newer invitation replaces the older one in the attendee's calendar."""

import logging
from datetime import UTC, datetime
from email.mime.text import MIMEText
from typing import Any
from zoneinfo import ZoneInfo

import icalendar
from django.conf import settings
from django.core.mail import EmailMessage
from django.utils import timezone

from apps.events.models import Attendee, Event

logger = logging.getLogger(__name__)
PRODID = "-//Atrium//Events//EN"


def calendar_of(event: Event, attendee: Attendee | None = None) -> icalendar.Calendar:
    zone = ZoneInfo(event.time_zone)
    ical = icalendar.Calendar()
    ical.add("prodid", PRODID)
    ical.add("version", "2.0")
    ical.add("calscale", "GREGORIAN")
    ical.add("method", "CANCEL" if attendee and attendee.status == Attendee.Status.CANCELLED else "REQUEST")
    vevent = icalendar.Event()
    vevent.add("uid", event.ical_uid)
    vevent.add("dtstamp", datetime.now(UTC))
    vevent.add("sequence", event.ical_sequence)
    vevent.add("summary", event.name)
    vevent.add("dtstart", event.starts_at.astimezone(zone))
    vevent.add("dtend", event.ends_at.astimezone(zone))
    if event.venue:
        vevent.add("location", event.venue)
    if event.description:
        vevent.add("description", event.description)
    if event.owner is not None:
        vevent.add("organizer", icalendar.vCalAddress(f"mailto:{event.owner.email}"))
    if attendee is not None:
        address = icalendar.vCalAddress(f"mailto:{attendee.email}")
        address.params["CN"] = icalendar.vText(attendee.name)
        address.params["RSVP"] = icalendar.vText("TRUE")
        vevent.add("attendee", address)
    ical.add_component(vevent)
    ical.add_missing_timezones()
    return ical


def ics_of(event: Event, attendee: Attendee | None = None) -> bytes:
    return bytes(calendar_of(event, attendee).to_ical())


def send(*, actor: Any, event: Event, attendee: Attendee) -> None:
    """E-mails `attendee` the event's current invitation and records which SEQUENCE they have."""
    prefix = "Updated invitation" if attendee.invited_sequence is not None else "Invitation"
    if attendee.status == Attendee.Status.CANCELLED:
        prefix = "Cancelled"
    zone = ZoneInfo(event.time_zone)
    when = event.starts_at.astimezone(zone).strftime("%Y-%m-%d %H:%M")
    message = EmailMessage(
        subject=f"{prefix}: {event.name} ({when} {event.time_zone})"[:300],
        body=f"{event.name}\n{when} ({event.time_zone})\n{event.venue}\n",
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[attendee.email],
        reply_to=[actor.email],
    )
    ics = ics_of(event, attendee)
    part = MIMEText(ics.decode(), "calendar", "utf-8")
    part.set_param("method", "CANCEL" if attendee.status == Attendee.Status.CANCELLED else "REQUEST")
    part.add_header("Content-Disposition", "attachment", filename="invite.ics")
    message.attach(part)
    attendee.invited_sequence = event.ical_sequence
    attendee.invited_at = timezone.now()
    attendee.save(update_fields=["invited_sequence", "invited_at", "updated_at"])
    message.send()
    logger.info(
        "event %s: invitation sequence %s sent to attendee %s", event.pk, event.ical_sequence, attendee.pk
    )
