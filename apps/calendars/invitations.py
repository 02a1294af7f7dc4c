"""Invitations: an iCalendar REQUEST (RFC 5545 / RFC 5546, made with the `icalendar` library)
e-mailed through Django's e-mail backend, one message per attendee, and the signed links in it
by which an attendee answers (accept, maybe, decline) without an account.

Each message carries the event as a `text/calendar; method=REQUEST` part named `invite.ics`, so
mail clients offer to add it and show its answer buttons; the UID stays the same across
updates and SEQUENCE goes up when the time, place or rule changes, so a new invitation replaces
the old one in the attendee's calendar. Every message sent is kept as an `Invitation` row.
"""

import logging
from datetime import UTC, datetime
from email.mime.text import MIMEText
from typing import Any
from zoneinfo import ZoneInfo

import icalendar
from django.conf import settings
from django.core.mail import EmailMessage, get_connection
from django.utils import timezone

from apps.calendars.models import Attendee, Event, Invitation
from apps.tenancy import links

logger = logging.getLogger(__name__)

PRODID = "-//Atrium//Calendars//EN"
RSVP_SALT = "atrium.calendars.rsvp"
PARTSTAT: dict[str, str] = {
    Attendee.Response.NEEDS_ACTION: "NEEDS-ACTION",
    Attendee.Response.ACCEPTED: "ACCEPTED",
    Attendee.Response.TENTATIVE: "TENTATIVE",
    Attendee.Response.DECLINED: "DECLINED",
}
STATUS: dict[str, str] = {
    Event.Status.CONFIRMED: "CONFIRMED",
    Event.Status.TENTATIVE: "TENTATIVE",
    Event.Status.CANCELLED: "CANCELLED",
}


def _address(email: str, name: str = "", **params: str) -> icalendar.vCalAddress:
    address = icalendar.vCalAddress(f"mailto:{email}")
    if name:
        address.params["CN"] = icalendar.vText(name)
    for key, value in params.items():
        address.params[key.replace("_", "-").upper()] = icalendar.vText(value)
    return address


def calendar_of(event: Event, *, method: str = "REQUEST") -> icalendar.Calendar:
    """The event as an iCalendar object with its VTIMEZONE, every attendee and their answers."""
    zone = ZoneInfo(event.time_zone)
    ical = icalendar.Calendar()
    ical.add("prodid", PRODID)
    ical.add("version", "2.0")
    ical.add("calscale", "GREGORIAN")
    ical.add("method", method)
    vevent = icalendar.Event()
    vevent.add("uid", event.uid)
    vevent.add("dtstamp", datetime.now(UTC))
    vevent.add("sequence", event.sequence)
    vevent.add("summary", event.title)
    if event.all_day:
        vevent.add("dtstart", event.starts_at.astimezone(zone).date())
        vevent.add("dtend", event.ends_at.astimezone(zone).date())
    else:
        vevent.add("dtstart", event.starts_at.astimezone(zone))
        vevent.add("dtend", event.ends_at.astimezone(zone))
    if event.recurrence:
        vevent.add("rrule", icalendar.vRecur.from_ical(event.recurrence))
        if event.excluded:
            vevent.add("exdate", [moment.astimezone(zone) for moment in event.excluded])
    if event.description:
        vevent.add("description", event.description)
    if event.location:
        vevent.add("location", event.location)
    vevent.add("status", STATUS[event.status])
    vevent.add("transp", "OPAQUE" if event.busy else "TRANSPARENT")
    organizer = event.organizer
    if organizer is not None:
        vevent.add("organizer", _address(organizer.email, organizer.full_name))
    for attendee in event.attendees.all():
        vevent.add(
            "attendee",
            _address(
                attendee.email,
                attendee.name,
                role="OPT-PARTICIPANT" if attendee.optional else "REQ-PARTICIPANT",
                partstat=PARTSTAT[attendee.response],
                rsvp="TRUE",
            ),
        )
    ical.add_component(vevent)
    ical.add_missing_timezones()
    return ical


def ics_of(event: Event, *, method: str = "REQUEST") -> bytes:
    return calendar_of(event, method=method).to_ical()


# --- answering by link ----------------------------------------------------------------------------


def rsvp_token(attendee: Attendee) -> str:
    return links.sign({"a": attendee.pk, "e": attendee.email}, salt=RSVP_SALT)


def rsvp_read(token: str) -> dict[str, Any] | None:
    return links.unsign(token, salt=RSVP_SALT, max_age=settings.ATRIUM_CALENDAR_RSVP_TTL_SECONDS)


def rsvp_url(attendee: Attendee) -> str:
    return links.page("calendars:rsvp", token=rsvp_token(attendee))


# --- sending --------------------------------------------------------------------------------------


def _when(event: Event) -> str:
    zone = ZoneInfo(event.time_zone)
    start, end = event.starts_at.astimezone(zone), event.ends_at.astimezone(zone)
    if event.all_day:
        return f"{start:%A %d %B %Y} (all day)"
    same_day = start.date() == end.date()
    until = f"{end:%H:%M}" if same_day else f"{end:%A %d %B %Y %H:%M}"
    return f"{start:%A %d %B %Y, %H:%M} - {until} ({event.time_zone})"


def _body(event: Event, attendee: Attendee, sender: Any, note: str, brand: str) -> str:
    lines = [f"{sender.full_name or sender.email} invites you to: {event.title}", "", f"When: {_when(event)}"]
    if event.recurrence:
        lines.append(f"Repeats: {event.recurrence}")
    if event.location:
        lines.append(f"Where: {event.location}")
    if note:
        lines += ["", note]
    if event.description:
        lines += ["", event.description]
    link = rsvp_url(attendee)
    lines += [
        "",
        "Your calendar program can answer with the attached invitation (invite.ics), or answer here:",
        f"  Accept:  {link}?answer=accepted",
        f"  Maybe:   {link}?answer=tentative",
        f"  Decline: {link}?answer=declined",
        "",
        f"-- {brand}",
    ]
    return "\n".join(lines)


def send(*, actor: Any, event: Event, attendees: list[Attendee], note: str = "") -> list[Invitation]:
    """One e-mail per attendee, each with the invitation attached; all through one connection.
    Rows are written first, so a failure to send leaves nothing recorded (the caller's
    transaction rolls back)."""
    from apps.core.workspaces import current_workspace

    workspace = current_workspace()
    brand = workspace.brand_name if workspace is not None else "Atrium"
    prefix = "Updated invitation" if any(a.invited_sequence is not None for a in attendees) else "Invitation"
    subject = f"{prefix}: {event.title} ({_when(event)})"[:300]
    if event.status == Event.Status.CANCELLED:
        subject = f"Cancelled: {event.title}"[:300]
    now = timezone.now()
    ics = ics_of(event, method="CANCEL" if event.status == Event.Status.CANCELLED else "REQUEST")
    messages, sent = [], []
    for attendee in attendees:
        message = EmailMessage(
            subject=subject,
            body=_body(event, attendee, actor, note, brand),
            from_email=settings.DEFAULT_FROM_EMAIL,
            to=[attendee.email],
            reply_to=[actor.email],
        )
        part = MIMEText(ics.decode(), "calendar", "utf-8")
        part.set_param("method", "CANCEL" if event.status == Event.Status.CANCELLED else "REQUEST")
        part.add_header("Content-Disposition", "attachment", filename="invite.ics")
        message.attach(part)
        messages.append(message)
        sent.append(
            Invitation(
                event=event,
                attendee=attendee,
                recipient=attendee.email,
                subject=subject,
                sequence=event.sequence,
                sent_by=actor,
                sent_at=now,
            )
        )
        attendee.invited_at = now
        attendee.invited_sequence = event.sequence
    Invitation.objects.bulk_create(sent)
    Attendee.objects.bulk_update(attendees, ["invited_at", "invited_sequence"])
    with get_connection() as mail:
        mail.send_messages(messages)
    logger.info("event %s: %s invitation(s) sent", event.pk, len(messages))
    return sent
