"""What a week of planning a team offsite found in Flights and Stays: flights compared, bookmarked,
held and cancelled, a hotel quoted, under an admin, a member and a viewer. A return more than a
year ahead went to the provider (only the departure was held to the year the airlines sell); a
provider's offer of the wrong shape (a slice that is not an object) failed the call with a server
error, and one without its currency was kept as a price in no currency. On a team's booking its
traveller read every colleague's birth date, e-mail and phone, and so did the payment page."""

from datetime import date, timedelta
from typing import Any

import pytest
from django.urls import reverse
from django.utils import timezone

from apps.catalogue import testing
from apps.catalogue.dispatch import MemorySession
from apps.catalogue.testing import confirmed
from apps.travel.models import Offer, Passenger
from apps.travel.tests.factories import booking
from apps.travel.tests.servers import duffel

CONFIRM = {"capabilities": {"elicitation": {}}, "elicit": confirmed}


def _day(days: int) -> str:
    return (timezone.localdate() + timedelta(days=days)).isoformat()


def _search(**extra: Any) -> dict[str, Any]:
    return {"origin": "LHR", "destination": "LIS", "departureDate": _day(30), **extra}


@pytest.fixture
def served():
    with duffel() as running:
        yield running


def _as(user: Any) -> dict[str, Any]:
    """One session of `user`'s client, the area's first call made, confirmations accepted."""
    session = MemorySession()
    testing.ok(user, "getTravelOverview", {}, session=session)
    return {"session": session, **CONFIRM}


def ok(user: Any, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return testing.ok(user, name, arguments, **_as(user))


def refused(user: Any, name: str, arguments: dict[str, Any]) -> str:
    return testing.refused(user, name, arguments, **_as(user))


def test_a_return_more_than_a_year_ahead_is_refused_before_the_provider_is_asked(people, served):
    member = people["member"]
    message = refused(member, "findFlightOffers", _search(returnDate=_day(800)))
    assert "returnDate" in message and "more than a year ahead" in message
    assert served.asked == [] and not Offer.objects.exists()


def _offer_answer(**changes: Any) -> tuple[int, Any]:
    offer = {
        "id": "off_0001",
        "total_amount": "149.90",
        "total_currency": "GBP",
        "expires_at": (timezone.now() + timedelta(minutes=30)).isoformat(),
        "owner": {"name": "Kestrel Air"},
        "passengers": [{"id": "pas_0001", "type": "adult"}],
        "slices": [],
        **changes,
    }
    return 201, {"data": {"id": "orq_0001", "offers": [offer]}}


def test_an_offer_of_the_wrong_shape_is_a_clear_provider_error(people, served):
    member = people["member"]
    for broken in (
        {"slices": ["LHR-LIS"]},
        {"passengers": ["pas_0001"]},
        {"owner": "Kestrel Air"},
        {"total_amount": "-149.90"},
        {"total_amount": "1e12"},
    ):
        served.answers["POST /air/offer_requests"] = _offer_answer(**broken)
        message = refused(member, "findFlightOffers", _search())
        assert "not the expected JSON" in message and "Nothing was booked" in message, message
    assert not Offer.objects.exists()


def test_an_offer_without_a_currency_is_not_kept_as_a_price(people, served):
    member = people["member"]
    for currency in ("", "£", "pounds"):
        served.answers["POST /air/offer_requests"] = _offer_answer(total_currency=currency)
        assert "not the expected JSON" in refused(member, "findFlightOffers", _search())
    assert not Offer.objects.exists()


def test_a_team_bookings_traveller_reads_their_own_identity_data_not_their_colleagues(people, acme_client):
    member = people["member"]
    offsite = booking(people["admin"], "Offsite flight", traveller=member)
    offsite.passengers.update(email=member.email)
    Passenger.objects.create(
        booking=offsite,
        given_name="Ben",
        family_name="Costa",
        born_on=date(1979, 11, 23),
        email="ben@kestrel.example",
        phone="+351210000000",
    )
    seen = ok(member, "getTravelOverview", {})["bookings"][0]["passengers"]
    assert [(row["givenName"], row["bornOn"]) for row in seen] == [("Ana", "1985-04-02"), ("Ben", None)]
    assert seen[1]["email"] == "" and seen[1]["phone"] == ""
    everyone = ok(people["admin"], "getTravelOverview", {})["bookings"][0]["passengers"]
    assert everyone[1]["bornOn"] == "1979-11-23"
    acme_client.force_login(member)
    page = acme_client.get(reverse("travel:pay", args=[offsite.pk])).content.decode()
    assert "1985-04-02" in page and "Ben Costa" in page and "1979" not in page
