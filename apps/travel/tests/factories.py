"""Flights and Stays records for tests: offers and bookings as the services keep them (the
services themselves are exercised against the loopback Duffel in test_travel.py)."""

from datetime import date, timedelta
from decimal import Decimal
from typing import Any

from django.utils import timezone

from apps.core import factories
from apps.core.factories import AccessRows, access_rows
from apps.travel.models import Booking, Kind, Offer, Passenger


def offer(actor: Any, title: str = "Kestrel Air LHR→MAD", *, kind: str = Kind.FLIGHT, **fields: Any) -> Offer:
    starts = timezone.localdate() + timedelta(days=20)
    values: dict[str, Any] = {
        "kind": kind,
        "provider": "duffel",
        "provider_id": "off_9999",
        "title": title,
        "total": Decimal("149.90"),
        "currency": "GBP",
        "starts_on": starts,
        "ends_on": starts,
        "expires_at": timezone.now() + timedelta(minutes=30),
        "snapshot": {"adults": 1, "passenger_ids": ["pas_9999"]},
        "created_by": actor,
        **fields,
    }
    return Offer.objects.create(**values)


def booking(
    actor: Any,
    title: str = "Kestrel Air LHR→MAD",
    *,
    traveller: Any = None,
    given: str = "Ana",
    ends_on: date | None = None,
) -> Booking:
    found = offer(actor, title)
    made = Booking.objects.create(
        kind=found.kind,
        offer=found,
        title=title,
        traveller=traveller or actor,
        provider="duffel",
        provider_id="ord_9999",
        booking_reference="KX9999",
        status=Booking.Status.HELD,
        total=found.total,
        currency=found.currency,
        payment_required_by=timezone.now() + timedelta(days=2),
        starts_on=found.starts_on,
        ends_on=ends_on or found.starts_on,
        created_by=actor,
    )
    Passenger.objects.create(
        booking=made,
        given_name=given,
        family_name="Lima",
        born_on=date(1985, 4, 2),
        gender="f",
        title="ms",
        email=f"{given.lower()}@kestrel.example",
        phone="+442079460000",
    )
    return made


@access_rows("travel.Offer")
def _offers(people: dict[str, Any]) -> AccessRows:
    """The member's offer and the owner's: each its finder's (the area's admins see every one)."""
    return AccessRows(own={"member": [offer(people["member"])], "owner": [offer(people["owner"])]})


@access_rows("travel.Booking")
def _bookings(people: dict[str, Any]) -> AccessRows:
    """The member's booking and the owner's: each its maker's and traveller's."""
    return AccessRows(own={"member": [booking(people["member"])], "owner": [booking(people["owner"])]})


@access_rows("travel.Passenger")
def _passengers(people: dict[str, Any]) -> AccessRows:
    """Each booking's passengers, seen with their booking."""
    member, owner = booking(people["member"]), booking(people["owner"])
    return AccessRows(own={"member": list(member.passengers.all()), "owner": list(owner.passengers.all())})


@factories.privacy_rows("travel")
def _private(people: dict[str, Any], marker: str, rows: factories.PrivateRows) -> None:
    """The owner's bookmarked offer and booking, the marker in the titles and the traveller's name."""
    kept = offer(people["owner"], f"{marker} trip", bookmarked_at=timezone.now(), note=marker)
    made = booking(people["owner"], f"{marker} flight", given=marker)
    rows.records["offerId"] = [kept]
    rows.records["bookingId"] = [made]
