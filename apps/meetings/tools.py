"""The Video Meeting area's tool (SPEC 4.7): createProviderMeeting, a thin door onto the service."""

from datetime import datetime
from typing import Annotated

from django.utils.translation import gettext as _
from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import tool
from apps.catalogue.shapes import In, Out, id_field
from apps.meetings import services
from apps.meetings.permissions import MeetingsPerm


class ParticipantIn(In):
    email: Annotated[str, Field(max_length=254)]
    name: Annotated[str, Field(max_length=200)] = ""
    moderator: bool = False


class LinkOut(Out):
    email: str
    name: str
    moderator: bool
    join_url: str = Field(description="This person's own link")
    expires_at: datetime | None


class MeetingOut(Out):
    id: int
    provider: str
    title: str
    room: str
    join_url: str
    host_url: str = Field(description="The host's link: a secret")
    passcode: str
    starts_at: datetime
    ends_at: datetime
    event_id: int | None
    participants: list[LinkOut]
    warnings: list[str]


@tool("createProviderMeeting", permission=MeetingsPerm.EDIT, title="Create a video meeting", open_world=True)
def create_provider_meeting(
    ctx: ToolContext,
    *,
    title: Annotated[str, Field(max_length=200, description="Default: the event's")] = "",
    starts_at: Annotated[datetime | None, Field(description="Default: the event's")] = None,
    duration_minutes: Annotated[
        int | None, Field(ge=5, le=1440, description="Default: the event's, or 60")
    ] = None,
    event_id: Annotated[int | None, id_field("searchCalendarEvents")] = None,
    participants: Annotated[
        list[ParticipantIn] | None, Field(max_length=50, description="Default: the event's guests")
    ] = None,
) -> MeetingOut:
    """Create a video meeting and its join links, on a calendar event (the event: createCalendarEvent).
    Jitsi Meet or Zoom; each person gets a link of their own."""
    created = services.meeting_create(
        actor=ctx.actor,
        title=title,
        starts_at=starts_at,
        minutes=duration_minutes,
        event_id=event_id,
        participants=None if participants is None else [person.model_dump() for person in participants],
    )
    meeting, made = created.meeting, created.made
    warnings = list(made.warnings)
    if made.provider == "jitsi" and all(link.expires_at is None for link in made.links):
        warnings.append(
            _("The room is protected by its unguessable name alone: share the link only with the guests.")
        )
    return MeetingOut(
        id=meeting.pk,
        provider=meeting.provider,
        title=meeting.title,
        room=meeting.room,
        join_url=meeting.join_url,
        host_url=made.host_url,
        passcode=made.passcode,
        starts_at=meeting.starts_at,
        ends_at=meeting.ends_at,
        event_id=meeting.event_id,
        participants=[
            LinkOut(
                email=link.invitee.email,
                name=link.invitee.name,
                moderator=link.invitee.moderator,
                join_url=link.url,
                expires_at=link.expires_at,
            )
            for link in made.links
        ],
        warnings=warnings,
    )
