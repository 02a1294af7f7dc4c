"""Browser sessions for tests, as rows (no Chromium behind them: a session whose process is gone
ends at its next call), and the rows of the access and privacy sweeps."""

from datetime import timedelta
from typing import Any

from django.utils import timezone

from apps.browser.models import BrowserAction, BrowserSession
from apps.core import factories
from apps.core.factories import AccessRows, access_rows


def session_row(actor: Any, url: str = "https://example.org/orders", **fields: Any) -> BrowserSession:
    now = timezone.now()
    made = BrowserSession.objects.create(
        handle=f"bs_test_{BrowserSession.objects.count()}_{actor.pk}",
        owner=actor,
        host="elsewhere.invalid",
        url=url,
        title=fields.pop("title", "Orders"),
        expires_at=now + timedelta(hours=1),
        **fields,
    )
    BrowserAction.objects.create(session=made, kind=BrowserAction.Kind.NAVIGATE, url=url, created_by=actor)
    return made


@access_rows("browser.BrowserSession")
def _sessions(people: dict[str, Any]) -> AccessRows:
    """The member's session and the owner's: each its owner's alone (the area's admins see all)."""
    return AccessRows(
        own={"member": [session_row(people["member"])], "owner": [session_row(people["owner"])]}
    )


@access_rows("browser.BrowserAction")
def _actions(people: dict[str, Any]) -> AccessRows:
    member, owner = session_row(people["member"]), session_row(people["owner"])
    return AccessRows(
        own={"member": list(member.actions.all()), "owner": list(owner.actions.all())},
    )


@factories.privacy_rows("browser")
def _private(people: dict[str, Any], marker: str, rows: factories.PrivateRows) -> None:
    """The owner's session on a page named by the marker, and what was done there."""
    made = session_row(people["owner"], url=f"https://example.org/{marker}", title=marker)
    BrowserAction.objects.create(
        session=made, kind=BrowserAction.Kind.INTERACT, detail=f"fill {marker}", created_by=people["owner"]
    )
