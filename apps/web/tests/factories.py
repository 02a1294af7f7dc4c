"""Web searches and pages read for tests, logged as the tools log them."""

from typing import Any

from apps.core import factories
from apps.core.factories import AccessRows, access_rows
from apps.web.models import WebCall


def web_call(actor: Any, query: str = "harbour news", **fields: Any) -> WebCall:
    return WebCall.objects.create(
        created_by=actor, kind=WebCall.Kind.SEARCH, query=query, provider="searxng", results=3, **fields
    )


@access_rows("web.WebCall")
def _calls(people: dict[str, Any]) -> AccessRows:
    """The member's search and the owner's: each its caller's alone (admins of the area see all)."""
    return AccessRows(own={"member": [web_call(people["member"])], "owner": [web_call(people["owner"])]})


@factories.privacy_rows("web")
def _private(people: dict[str, Any], marker: str, rows: factories.PrivateRows) -> None:
    """The owner's search and page read: what they looked into."""
    web_call(people["owner"], query=f"{marker} plans")
    WebCall.objects.create(
        created_by=people["owner"],
        kind=WebCall.Kind.EXTRACT,
        url=f"https://example.org/{marker}",
        title=marker,
    )
