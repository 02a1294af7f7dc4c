"""A normal call of each Provider Travel Search tool, for the catalogue's contract test: against a
Demand API and a Duffel served on loopback for the process (results found through the service
first)."""

import contextlib
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

from django.utils import timezone

from apps.catalogue.testing import Sample, sample
from apps.core.testing import for_the_process
from apps.travel.tests import servers as duffel_servers
from apps.travelsearch import services
from apps.travelsearch.tests import servers
from apps.travelsearch.tests.factories import saved

_served: dict[str, Any] = {}


@contextlib.contextmanager
def providers() -> Iterator[None]:
    """The settings pointing at the process's loopback providers (started on first use)."""
    if not _served:
        _served["demand"] = for_the_process(servers.serving(servers.Demand()))
        _served["duffel"] = for_the_process(duffel_servers.serving(duffel_servers.Duffel()))
    with servers.configured(_served["demand"]), duffel_servers.configured(_served["duffel"]):
        yield


def _day(days: int) -> str:
    return (timezone.localdate() + timedelta(days=days)).isoformat()


def _found(actor: Any, kind: str) -> int:
    today = timezone.localdate()
    with providers():
        if kind == "flight":
            found = services.flights_search(
                actor=actor,
                origin="LHR",
                destination="LIS",
                departs_on=today + timedelta(days=30),
                returns_on=None,
                adults=1,
                cabin="",
                most=5,
            )
        elif kind == "property":
            found = services.properties_search(
                actor=actor,
                where={"city": "Lisbon", "country_code": "PT"},
                checkin=today + timedelta(days=30),
                checkout=today + timedelta(days=32),
                adults=2,
                children=[],
                rooms=1,
                money_in="EUR",
                most=5,
            )
        elif kind == "car":
            start = timezone.now().replace(microsecond=0) + timedelta(days=30)
            found = services.cars_search(
                actor=actor,
                pickup={"airport": "LIS"},
                dropoff=None,
                pickup_at=start,
                dropoff_at=start + timedelta(days=3),
                driver_age=30,
                money_in="EUR",
                most=5,
            )
        else:
            found = services.activities_search(
                actor=actor,
                where={"city": "Lisbon", "country_code": "PT"},
                start=today + timedelta(days=30),
                end=today + timedelta(days=31),
                money_in="EUR",
                most=5,
            )
    return found.offers[0].pk


@sample("getProviderSummary")
def get_provider_summary(actor: Any) -> Sample:
    kept = saved(actor, "Harbour 4417 hotel")
    return Sample({}, private=[kept.title])


@sample("searchProviderFlights")
def search_provider_flights(actor: Any) -> Sample:
    return Sample({"origin": "LHR", "destination": "LIS", "departureDate": _day(30)}, around=providers)


@sample("searchProviderProperties")
def search_provider_properties(actor: Any) -> Sample:
    return Sample(
        {"city": "Lisbon", "country": "PT", "checkInDate": _day(30), "checkOutDate": _day(32), "adults": 2},
        around=providers,
    )


@sample("getProviderPropertyDetails")
def get_provider_property_details(actor: Any) -> Sample:
    return Sample({"resultId": _found(actor, "property")}, around=providers)


@sample("searchProviderCars")
def search_provider_cars(actor: Any) -> Sample:
    return Sample(
        {"pickupAirport": "LIS", "pickupAt": f"{_day(30)}T10:00:00", "dropoffAt": f"{_day(33)}T10:00:00"},
        around=providers,
    )


@sample("searchProviderActivities")
def search_provider_activities(actor: Any) -> Sample:
    return Sample(
        {"city": "Lisbon", "country": "PT", "startDate": _day(30), "endDate": _day(31)}, around=providers
    )


@sample("getProviderActivityOffers")
def get_provider_activity_offers(actor: Any) -> Sample:
    return Sample({"resultId": _found(actor, "activity")}, around=providers)


@sample("saveProviderFlight")
def save_provider_flight(actor: Any) -> Sample:
    return Sample({"resultId": _found(actor, "flight"), "note": "Morning flight"}, around=providers)


@sample("saveProviderProperty")
def save_provider_property(actor: Any) -> Sample:
    return Sample({"resultId": _found(actor, "property"), "note": "By the river"}, around=providers)


@sample("saveProviderCar")
def save_provider_car(actor: Any) -> Sample:
    return Sample({"resultId": _found(actor, "car"), "shared": True}, around=providers)


@sample("saveProviderActivity")
def save_provider_activity(actor: Any) -> Sample:
    return Sample({"resultId": _found(actor, "activity"), "note": "Saturday"}, around=providers)
