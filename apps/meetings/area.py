"""The Video Meeting area, as the rest of the service knows it (apps.core.areas): meetings made at
a video provider (Jitsi Meet by default, Zoom), each person's join link, the calendar event."""

from django.utils.translation import gettext_lazy as _

from apps.core import areas, env
from apps.core.navigation import NavItem
from apps.meetings.permissions import MeetingsPerm

area = areas.declare(
    title=_("Video meetings"),
    catalogue_title="Video Meeting",
    group=areas.Group.WORK,
    description=_("Video meetings made at Jitsi Meet or Zoom, with join links, on calendar events"),
    words="video conference zoom jitsi",
    hints={
        "createProviderMeeting": "set up a video call conference, zoom jitsi join link for an online meeting",
    },
    profiles={"online": ("createProviderMeeting",)},
    nav=[NavItem("meetings", _("Video meetings"), "meetings:meetings", MeetingsPerm.VIEW, order=25)],
    not_kinds={
        "meetings.Meeting": "a link to a video room, reached through the calendar event it is on",
    },
    settings={
        # jitsi (Jitsi Meet, the default) or zoom.
        "ATRIUM_MEETINGS_PROVIDER": env.str("ATRIUM_MEETINGS_PROVIDER", "jitsi"),
        # The Jitsi Meet deployment's host name (meet.jit.si, or one's own), and, for a deployment
        # with token authentication (or 8x8 JaaS), its app id and secret: links signed per person.
        "ATRIUM_MEETINGS_JITSI_DOMAIN": env.str("ATRIUM_MEETINGS_JITSI_DOMAIN", ""),
        "ATRIUM_MEETINGS_JITSI_APP_ID": env.str("ATRIUM_MEETINGS_JITSI_APP_ID", ""),
        "ATRIUM_MEETINGS_JITSI_APP_SECRET": env.str("ATRIUM_MEETINGS_JITSI_APP_SECRET", ""),
        # A signed link still works this many hours after the meeting's end.
        "ATRIUM_MEETINGS_TOKEN_HOURS": env.int("ATRIUM_MEETINGS_TOKEN_HOURS", 2, min=0, max=48),
        # Zoom: a Server-to-Server OAuth app's account id, client id and secret.
        "ATRIUM_MEETINGS_ZOOM_ACCOUNT_ID": env.str("ATRIUM_MEETINGS_ZOOM_ACCOUNT_ID", ""),
        "ATRIUM_MEETINGS_ZOOM_CLIENT_ID": env.str("ATRIUM_MEETINGS_ZOOM_CLIENT_ID", ""),
        "ATRIUM_MEETINGS_ZOOM_CLIENT_SECRET": env.str("ATRIUM_MEETINGS_ZOOM_CLIENT_SECRET", ""),
        "ATRIUM_MEETINGS_ZOOM_API_URL": env.str("ATRIUM_MEETINGS_ZOOM_API_URL", "https://api.zoom.us/v2"),
        "ATRIUM_MEETINGS_ZOOM_OAUTH_URL": env.str(
            "ATRIUM_MEETINGS_ZOOM_OAUTH_URL", "https://zoom.us/oauth/token"
        ),
        "ATRIUM_MEETINGS_TIMEOUT_SECONDS": env.int("ATRIUM_MEETINGS_TIMEOUT_SECONDS", 10, min=1),
    },
)
