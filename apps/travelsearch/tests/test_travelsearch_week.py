"""What a week of planning a team offsite found in Provider Travel Search: hotels near the venue,
cars at the airport and flights compared and saved to the shortlist, under an admin, a member and
a viewer. A pick-up time with an offset and a drop-off without one failed the call with a server
error (and two offsets were compared as instants but sent as local times, a drop-off before its
pick-up); currencies of no money (XXX, gold) were searched in; saving an option again without a
note wiped the note kept; a return flight years ahead went to the provider; and a provider's
answer of the wrong shape failed the call with a server error."""

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from apps.catalogue import testing
from apps.catalogue.dispatch import MemorySession
from apps.travel.tests.servers import duffel
from apps.travelsearch.models import Offer, SavedItem
from apps.travelsearch.tests.servers import demand


def _day(days: int) -> str:
    return (timezone.localdate() + timedelta(days=days)).isoformat()


STAY = {"city": "Lisbon", "country": "PT", "checkInDate": _day(30), "checkOutDate": _day(32), "adults": 2}


def _as(user: Any) -> dict[str, Any]:
    """One session of `user`'s client, the area's first call made."""
    session = MemorySession()
    testing.ok(user, "getProviderSummary", {}, session=session)
    return {"session": session}


def ok(user: Any, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return testing.ok(user, name, arguments, **_as(user))


def refused(user: Any, name: str, arguments: dict[str, Any]) -> str:
    return testing.refused(user, name, arguments, **_as(user))


@pytest.fixture
def served():
    with demand() as running:
        yield running


def test_car_times_are_checked_as_the_local_times_sent_to_the_provider(people, served):
    member = people["member"]
    mixed = {"pickupAirport": "LIS", "pickupAt": f"{_day(30)}T10:00:00Z", "dropoffAt": f"{_day(33)}T09:00:00"}
    found = ok(member, "searchProviderCars", mixed)["results"]
    assert found and served.body("/cars/search")["route"]["pickup"]["datetime"] == f"{_day(30)}T10:00:00"
    before = len(served.asked)
    backwards = {
        "pickupAirport": "LIS",
        "pickupAt": f"{_day(30)}T10:00:00+05:00",
        "dropoffAt": f"{_day(30)}T08:00:00+00:00",
    }
    assert "after the pick-up" in refused(member, "searchProviderCars", backwards)
    assert len(served.asked) == before


@pytest.mark.parametrize("code", ["XXX", "XAU", "XTS"])
def test_a_currency_of_no_money_is_refused(people, served, code):
    message = refused(people["member"], "searchProviderProperties", {**STAY, "currency": code})
    assert "currency" in message and "ISO 4217" in message
    assert served.asked == [] and not Offer.objects.exists()


def test_saving_an_option_again_keeps_its_note_and_sharing_unless_given(people, served):
    member = people["member"]
    result = ok(member, "searchProviderProperties", STAY)["results"][0]
    ok(member, "saveProviderProperty", {"resultId": result["id"], "note": "Walk to the venue"})
    again = ok(member, "saveProviderProperty", {"resultId": result["id"], "shared": True})
    assert again["note"] == "Walk to the venue" and again["shared"] is True
    assert SavedItem.objects.get().note == "Walk to the venue"
    # Saved again with a new note alone, it stays shared; unshared only when asked.
    assert (
        ok(member, "saveProviderProperty", {"resultId": result["id"], "note": "Has a gym"})["shared"] is True
    )
    assert ok(member, "saveProviderProperty", {"resultId": result["id"], "shared": False})["shared"] is False


def test_a_return_flight_years_ahead_is_refused_before_the_provider_is_asked(people):
    with duffel() as flights:
        message = refused(
            people["member"],
            "searchProviderFlights",
            {"origin": "LHR", "destination": "LIS", "departureDate": _day(30), "returnDate": _day(800)},
        )
    assert "returnDate" in message and "days ahead" in message
    assert flights.asked == [] and not Offer.objects.exists()


def test_a_provider_answer_of_the_wrong_shape_is_a_clear_provider_error(people, served):
    member = people["member"]
    served.answers["/accommodations/details"] = (
        200,
        {"data": [{"id": 10004, "name": "Harbour View Hotel", "location": "Lisbon", "rating": [4]}]},
    )
    message = refused(member, "searchProviderProperties", STAY)
    assert "not the expected JSON" in message and "nothing was saved" in message
    assert not Offer.objects.exists()
