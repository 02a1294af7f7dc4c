"""Provider Travel Search records for tests: results and saved options as the services keep them
(the services themselves are exercised against the loopback providers in test_travelsearch.py)."""

from datetime import timedelta
from decimal import Decimal
from typing import Any

from django.utils import timezone

from apps.core import factories
from apps.core.factories import AccessRows, access_rows
from apps.core.records import Visibility
from apps.travelsearch.models import Kind, Offer, SavedItem


def offer(
    actor: Any, title: str = "Harbour View Hotel", *, kind: str = Kind.PROPERTY, **fields: Any
) -> Offer:
    starts = timezone.localdate() + timedelta(days=20)
    values: dict[str, Any] = {
        "kind": kind,
        "provider": "booking.com",
        "provider_id": "10004",
        "title": title,
        "total": Decimal("246.30"),
        "currency": "EUR",
        "starts_on": starts,
        "ends_on": starts + timedelta(days=2),
        "expires_at": timezone.now() + timedelta(minutes=30),
        "deep_link": "https://www.booking.com/hotel/pt/10004.html",
        "snapshot": {"criteria": {"adults": 2, "rooms": 1, "currency": "EUR"}, "details": {}},
        "created_by": actor,
        **fields,
    }
    return Offer.objects.create(**values)


def saved(
    actor: Any, title: str = "Harbour View Hotel", *, shared: bool = False, note: str = ""
) -> SavedItem:
    found = offer(actor, title)
    return SavedItem.objects.create(
        kind=found.kind,
        offer=found,
        provider=found.provider,
        provider_id=found.provider_id,
        title=title,
        total=found.total,
        currency=found.currency,
        starts_on=found.starts_on,
        ends_on=found.ends_on,
        expires_at=found.expires_at,
        deep_link=found.deep_link,
        snapshot=found.snapshot,
        note=note,
        owner=actor,
        visibility=Visibility.WORKSPACE if shared else Visibility.PRIVATE,
        created_by=actor,
    )


@access_rows("travelsearch.Offer")
def _offers(people: dict[str, Any]) -> AccessRows:
    """The member's result and the owner's: each its finder's (the area's admins see every one)."""
    return AccessRows(own={"member": [offer(people["member"])], "owner": [offer(people["owner"])]})


@access_rows("travelsearch.SavedItem")
def _saved(people: dict[str, Any]) -> AccessRows:
    """The member's and the owner's private saved options, and one the owner shared."""
    return AccessRows(
        own={"member": [saved(people["member"])], "owner": [saved(people["owner"])]},
        everyone=[saved(people["owner"], "Shared river hotel", shared=True)],
    )


@factories.privacy_rows("travelsearch")
def _private(people: dict[str, Any], marker: str, rows: factories.PrivateRows) -> None:
    """The owner's result and private saved option, the marker in their titles and note."""
    kept = saved(people["owner"], f"{marker} hotel", note=marker)
    rows.records["resultId"] = [offer(people["owner"], f"{marker} stay")]
    rows.records["savedId"] = [kept]
