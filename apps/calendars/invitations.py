"""Invitations: an iCalendar REQUEST (RFC 5545 / RFC 5546, made by apps.core.ical) e-mailed through
the mail app (apps.mail.api.send), one message per attendee, and the signed links in it
by which an attendee answers (accept, maybe, decline) without an account.

Each message carries the event as a `text/calendar; method=REQUEST` part named `invite.ics`, so
mail clients offer to add it and show its answer buttons; the UID stays the same across
updates and SEQUENCE goes up when the time, place or rule changes, so a new invitation replaces
the old one in the attendee's calendar. Every message sent is kept as an `Invitation` row.
"""

import logging
from typing import Any
from zoneinfo import ZoneInfo

from django.conf import settings
from django.utils import timezone

from apps.calendars.models import Attendee, Event, Invitation
from apps.core import ical, workspaces
from apps.mail import api as mail
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


def happening(event: Event) -> ical.Happening:
    """The event as the iCalendar builder takes it: every attendee with their answer."""
    organizer = event.organizer
    return ical.Happening(
        uid=event.uid,
        sequence=event.sequence,
        summary=event.title,
        starts_at=event.starts_at,
        ends_at=event.ends_at,
        time_zone=event.time_zone,
        all_day=event.all_day,
        recurrence=event.recurrence,
        excluded=event.excluded or (),
        description=event.description,
        location=event.location,
        status=STATUS[event.status],
        transparency="OPAQUE" if event.busy else "TRANSPARENT",
        organizer=ical.Address(organizer.email, organizer.full_name) if organizer is not None else None,
        attendees=[
            ical.Address(
                attendee.email,
                attendee.name,
                {
                    "role": "OPT-PARTICIPANT" if attendee.optional else "REQ-PARTICIPANT",
                    "partstat": PARTSTAT[attendee.response],
                    "rsvp": "TRUE",
                },
            )
            for attendee in event.attendees.all()
        ],
    )


def ics_of(event: Event, *, method: str = "REQUEST") -> bytes:
    return ical.ics_of(happening(event), method=method, prodid=PRODID)


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
    """One e-mail per attendee, each with the invitation attached; all through one connection of
    the mail app (apps.mail.api.send, which serves the workspace whether or not it has the Email
    Inbox area). Rows are written first, so a failure to send leaves nothing recorded (the
    caller's transaction rolls back)."""
    brand = workspaces.brand()
    prefix = "Updated invitation" if any(a.invited_sequence is not None for a in attendees) else "Invitation"
    subject = f"{prefix}: {event.title} ({_when(event)})"[:300]
    if event.status == Event.Status.CANCELLED:
        subject = f"Cancelled: {event.title}"[:300]
    now = timezone.now()
    method = "CANCEL" if event.status == Event.Status.CANCELLED else "REQUEST"
    invite = mail.Attachment("invite.ics", ics_of(event, method=method), "text/calendar", method=method)
    notices, sent = [], []
    for attendee in attendees:
        notices.append(
            mail.Notice(
                to=[attendee.email],
                subject=subject,
                text=_body(event, attendee, actor, note, brand),
                reply_to=actor.email,
                attachments=(invite,),
            )
        )
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
    mail.send(notices)
    logger.info("event %s: %s invitation(s) sent", event.pk, len(notices))
    return sent
