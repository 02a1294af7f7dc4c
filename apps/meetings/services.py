"""The Video Meeting area's one write: a meeting made at the configured provider, kept with who was
given a link, and attached to a calendar event when one is named (apps.calendars.api)."""

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.calendars import api as calendars
from apps.core import clean, recurrence
from apps.core.actors import require
from apps.core.errors import FieldRequired, NoCalendar, invalid
from apps.core.workspaces import has_area
from apps.meetings import providers
from apps.meetings.models import Meeting, Participant
from apps.meetings.permissions import MeetingsPerm

logger = logging.getLogger(__name__)

MAX_PARTICIPANTS = 50


@dataclass(frozen=True)
class Created:
    meeting: Meeting
    made: providers.Made


def _invitees(actor: Any, given: list[dict[str, Any]]) -> list[providers.Invitee]:
    """The maker first, as a moderator, then each participant once (by address)."""
    invitees = [
        providers.Invitee(email=actor.email.lower(), name=actor.get_full_name(), moderator=True, host=True)
    ]
    seen = {invitees[0].email}
    for index, person in enumerate(given):
        email = clean.email(person.get("email"), field=f"participants[{index}].email", required=True)
        if email in seen:
            continue
        seen.add(email)
        name = clean.text(person.get("name"), field=f"participants[{index}].name", limit=200)
        invitees.append(providers.Invitee(email=email, name=name, moderator=bool(person.get("moderator"))))
    if len(invitees) > MAX_PARTICIPANTS + 1:
        raise invalid("participants", _("at most {most} participants"), most=MAX_PARTICIPANTS)
    return invitees


def meeting_create(
    *,
    actor: Any,
    title: str = "",
    starts_at: datetime | None = None,
    minutes: int | None = None,
    event_id: int | None = None,
    participants: list[dict[str, Any]] | None = None,
) -> Created:
    """A meeting at the configured provider; with `event_id`, that event's title, times and guests
    (unless given) and the join address written on it. Everything is checked before the provider
    is asked, and nothing is kept when it refuses."""
    require(actor, MeetingsPerm.EDIT)
    event = None
    if event_id is not None:
        if not has_area("calendars"):
            raise NoCalendar()
        event = calendars.event_for_meeting(actor=actor, event_id=event_id)
    title = clean.text(title or (event.title if event else ""), field="title", limit=200, required=True)
    if starts_at is None and event is None:
        raise FieldRequired(field="startsAt")
    starts = starts_at or (event.starts_at if event else timezone.now())
    zone = recurrence.zone_named(getattr(actor, "time_zone", "") or None)
    if starts.tzinfo is None:
        # A time without an offset is the maker's wall-clock time (their zone, else the workspace's).
        starts = starts.replace(tzinfo=zone)
    if minutes is not None:
        ends = starts + timedelta(minutes=minutes)
    elif event is not None and starts_at is None:
        ends = event.ends_at
    else:
        ends = starts + timedelta(hours=1)
    clean.in_years(ends, field="startsAt")
    if ends <= timezone.now():
        raise invalid(
            "startsAt", _("the meeting would be over already (it ends {end})"), end=ends.isoformat()
        )
    if participants is None and event is not None:
        participants = [{"email": guest.email, "name": guest.name} for guest in event.guests]
    invitees = _invitees(actor, participants or [])
    provider = providers.provider()
    made = provider.create(title=title, starts_at=starts, ends_at=ends, invitees=invitees, time_zone=zone.key)
    with transaction.atomic():
        meeting = Meeting.objects.create(
            provider=made.provider,
            title=title,
            room=made.room,
            join_url=made.join_url,
            starts_at=starts,
            ends_at=ends,
            event_id=event.id if event else None,
            created_by=actor,
        )
        Participant.objects.bulk_create(
            Participant(
                meeting=meeting,
                email=link.invitee.email,
                name=link.invitee.name,
                moderator=link.invitee.moderator,
                token_expires_at=link.expires_at,
            )
            for link in made.links
        )
        if event is not None:
            note = _("Video meeting ({provider}): {url}").format(
                provider=meeting.get_provider_display(), url=made.join_url
            )
            calendars.link_meeting(actor=actor, event_id=event.id, url=made.join_url, note=note)
    logger.info("meeting %s made at %s", meeting.pk, made.provider)
    return Created(meeting=meeting, made=made)
