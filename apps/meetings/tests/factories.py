"""Video meetings for tests, made through the service (Jitsi, configured here)."""

from datetime import timedelta
from typing import Any

from django.test import override_settings
from django.utils import timezone

from apps.core import factories
from apps.core.factories import AccessRows, access_rows
from apps.meetings import services
from apps.meetings.models import Meeting

JITSI = {
    "ATRIUM_MEETINGS_PROVIDER": "jitsi",
    "ATRIUM_MEETINGS_JITSI_DOMAIN": "meet.kestrel.example",
    "ATRIUM_MEETINGS_JITSI_APP_ID": "atrium",
    "ATRIUM_MEETINGS_JITSI_APP_SECRET": "jitsi-test-secret-of-32-bytes-at-least",
}


def meeting(actor: Any, title: str = "Weekly sync", **fields: Any) -> Meeting:
    with override_settings(**JITSI):
        made = services.meeting_create(
            actor=actor, title=title, starts_at=timezone.now() + timedelta(days=1), **fields
        )
    return made.meeting


@access_rows("meetings.Meeting")
def _meetings(people: dict[str, Any]) -> AccessRows:
    """The member's meeting and the owner's: each its maker's (the area's admins see all)."""
    return AccessRows(own={"member": [meeting(people["member"])], "owner": [meeting(people["owner"])]})


@factories.privacy_rows("meetings")
def _private(people: dict[str, Any], marker: str, rows: factories.PrivateRows) -> None:
    """The owner's meeting, with a guest named by the marker."""
    meeting(
        people["owner"],
        title=f"{marker} board talk",
        participants=[{"email": f"{marker}@guests.example", "name": marker}],
    )
