"""A normal call of each Flights and Stays tool, for the catalogue's contract test: against a
Duffel served on loopback for the process (its offers are found through the service first)."""

from datetime import timedelta
from typing import Any

from django.utils import timezone

from apps.catalogue.testing import Sample, sample
from apps.core.testing import for_the_process
from apps.travel import services
from apps.travel.tests.factories import booking
from apps.travel.tests.servers import Duffel, configured, serving

_served: list[Duffel] = []


def _duffel() -> Any:
    """The settings pointing at the process's loopback Duffel (started on first use)."""
    if not _served:
        _served.append(for_the_process(serving(Duffel())))
    return configured(_served[0])


def _day(days: int) -> str:
    return (timezone.localdate() + timedelta(days=days)).isoformat()


def _found(actor: Any, kind: str) -> int:
    with _duffel():
        if kind == "flight":
            found = services.flight_offers_find(
                actor=actor,
                origin="LHR",
                destination="MAD",
                departs_on=timezone.localdate() + timedelta(days=30),
            )
        else:
            found = services.stay_offers_find(
                actor=actor,
                latitude=38.71,
                longitude=-9.14,
                radius_km=5,
                check_in=timezone.localdate() + timedelta(days=30),
                check_out=timezone.localdate() + timedelta(days=32),
            )
    return found[0].pk


PASSENGER = {
    "givenName": "Ana",
    "familyName": "Lima",
    "bornOn": "1985-04-02",
    "title": "ms",
    "gender": "f",
    "email": "ana@kestrel.example",
    "phone": "+44 20 7946 0000",
}


@sample("getTravelOverview")
def get_travel_overview(actor: Any) -> Sample:
    made = booking(actor, "Harbour 4417 trip")
    return Sample({}, private=[made.title])


@sample("findFlightOffers")
def find_flight_offers(actor: Any) -> Sample:
    return Sample({"origin": "LHR", "destination": "MAD", "departureDate": _day(30)}, around=_duffel)


@sample("findStayOffers")
def find_stay_offers(actor: Any) -> Sample:
    return Sample(
        {"latitude": 38.71, "longitude": -9.14, "checkInDate": _day(30), "checkOutDate": _day(32)},
        around=_duffel,
    )


@sample("bookmarkFlightOffer")
def bookmark_flight_offer(actor: Any) -> Sample:
    return Sample({"offerId": _found(actor, "flight"), "note": "Cheapest morning flight"})


@sample("bookmarkStayOffer")
def bookmark_stay_offer(actor: Any) -> Sample:
    return Sample({"offerId": _found(actor, "stay"), "note": "Breakfast included"})


@sample("prepareFlightBooking")
def prepare_flight_booking(actor: Any) -> Sample:
    return Sample({"offerId": _found(actor, "flight"), "passengers": [PASSENGER]}, around=_duffel)


@sample("prepareStayBooking")
def prepare_stay_booking(actor: Any) -> Sample:
    return Sample(
        {
            "offerId": _found(actor, "stay"),
            "guests": [{"givenName": "Ana", "familyName": "Lima"}],
            "email": "ana@kestrel.example",
            "phone": "+44 20 7946 0000",
        },
        around=_duffel,
    )


@sample("updateTravelBooking")
def update_travel_booking(actor: Any) -> Sample:
    return Sample({"bookingId": booking(actor).pk, "action": "note", "note": "Aisle seat asked"})
