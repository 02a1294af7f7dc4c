"""A stretch of use across the provider areas, through the tools as people use them: a person plans
a business trip to Lisbon (flights at Duffel compared, one bookmarked, re-priced and held; a stay
near the venue bookmarked; a property, a car and an activity found and saved through Provider
Travel Search; a video meeting on the trip's calendar event), and a colleague of another role never
sees the first's saved items nor the traveller's identity data."""

from datetime import timedelta
from typing import Any

import pytest
from django.test import override_settings
from django.urls import reverse
from django.utils import timezone

from apps.calendars.tests.factories import EventFactory
from apps.catalogue.dispatch import MemorySession
from apps.catalogue.testing import confirmed, ok, person_with, refused
from apps.meetings.tests.factories import JITSI
from apps.travel.models import Booking
from apps.travel.models import Offer as FlightOffer
from apps.travel.tests.samples import PASSENGER
from apps.travel.tests.servers import duffel
from apps.travelsearch.models import SavedItem
from apps.travelsearch.tests.servers import demand


def _day(days: int) -> str:
    return (timezone.localdate() + timedelta(days=days)).isoformat()


def _asked(session: MemorySession) -> dict[str, Any]:
    """How the person's client calls: one session, confirmations accepted by the person."""
    return {"session": session, "capabilities": {"elicitation": {}}, "elicit": confirmed}


def _started(user: Any) -> dict[str, Any]:
    """A session in which both travel areas' mandatory first calls were made."""
    context = _asked(MemorySession())
    ok(user, "getTravelOverview", {}, **context)
    ok(user, "getProviderSummary", {}, **context)
    return context


@pytest.fixture
def providers():
    with duffel() as flights, demand() as search, override_settings(**JITSI):
        yield flights, search


@pytest.fixture
def colleague():
    return person_with(
        {"travel.view", "travel.book", "travelsearch.view", "travelsearch.search", "meetings.edit"},
        email="colleague@acme.example",
    )


def test_a_person_plans_a_business_trip_and_a_colleague_sees_none_of_it(
    people, providers, colleague, acme_client
):
    flights, search = providers
    member = people["member"]
    trip = _started(member)

    # Flights to Lisbon, cheapest first, compared side by side.
    offers = ok(
        member,
        "findFlightOffers",
        {"origin": "lhr", "destination": "lis", "departureDate": _day(30)},
        **trip,
    )["offers"]
    cheaper, dearer = offers
    assert (cheaper["total"], dearer["total"]) == ("149.90", "182.40")
    for each in offers:
        leg = each["details"]["slices"][0]["segments"][0]
        assert (leg["from"], leg["to"]) == ("LHR", "LIS") and each["currency"] == "GBP"
        assert each["details"]["conditions"] and each["expiresAt"] and each["bookmarked"] is False

    # Both bookmarked to compare, the dearer one dropped again: only the cheaper stays kept.
    ok(member, "bookmarkFlightOffer", {"offerId": dearer["id"], "note": "Later flight"}, **trip)
    dropped = ok(member, "bookmarkFlightOffer", {"offerId": dearer["id"], "bookmarked": False}, **trip)
    assert dropped["bookmarked"] is False
    kept = ok(member, "bookmarkFlightOffer", {"offerId": cheaper["id"], "note": "Morning flight"}, **trip)
    assert kept["bookmarked"] is True and kept["note"] == "Morning flight"
    overview = ok(member, "getTravelOverview", {}, **trip)
    assert [(item["id"], item["note"]) for item in overview["bookmarks"]] == [
        (cheaper["id"], "Morning flight")
    ]

    # Re-priced when prepared: the new figure is said and nothing is held until it is accepted.
    flights.reprice[FlightOffer.objects.get(pk=cheaper["id"]).provider_id] = "171.20"
    hold = {"offerId": cheaper["id"], "passengers": [PASSENGER]}
    message = refused(member, "prepareFlightBooking", hold, **trip)
    assert "149.90 GBP to 171.20 GBP" in message and not Booking.objects.exists()
    held = ok(member, "prepareFlightBooking", {**hold, "expectedTotal": "171.20"}, **trip)
    assert (held["status"], held["total"], held["currency"]) == ("held", "171.20", "GBP")
    assert held["paymentRequiredBy"] and "/settings/travel/bookings/" in held["paymentUrl"]
    assert held["passengers"][0]["bornOn"] == "1985-04-02"
    assert flights.paths()[-1] == "POST /air/orders" and "POST /air/payments" not in flights.paths()

    # A stay near the venue, bookmarked beside the flight.
    rates = ok(
        member,
        "findStayOffers",
        {"latitude": 38.71, "longitude": -9.14, "checkInDate": _day(30), "checkOutDate": _day(33)},
        **trip,
    )["offers"]
    assert rates[0]["title"] == "Harbour Inn: Double room" and rates[0]["dueAtProperty"] == "8.40"
    ok(member, "bookmarkStayOffer", {"offerId": rates[0]["id"], "note": "Near the venue"}, **trip)
    overview = ok(member, "getTravelOverview", {}, **trip)
    assert {item["id"] for item in overview["bookmarks"]} == {cheaper["id"], rates[0]["id"]}
    assert [item["id"] for item in overview["bookings"]] == [held["id"]]

    # Provider Travel Search: a property read and a room saved, a car and a tour saved.
    stay = {"city": "Lisbon", "country": "PT", "checkInDate": _day(30), "checkOutDate": _day(33), "adults": 1}
    properties = ok(member, "searchProviderProperties", stay, **trip)["results"]
    assert [item["title"] for item in properties] == ["Harbour View Hotel", "Alfama Flats"]
    details = ok(member, "getProviderPropertyDetails", {"resultId": properties[0]["id"]}, **trip)
    assert details["details"]["stars"] == 4 and "Free WiFi" in details["details"]["facilities"]
    room = details["rooms"][0]
    ok(member, "saveProviderProperty", {"resultId": room["id"], "note": "Breakfast included"}, **trip)
    cars = ok(
        member,
        "searchProviderCars",
        {"pickupAirport": "LIS", "pickupAt": f"{_day(30)}T10:00:00", "dropoffAt": f"{_day(33)}T09:00:00"},
        **trip,
    )["results"]
    ok(member, "saveProviderCar", {"resultId": cars[0]["id"]}, **trip)
    tours = ok(
        member,
        "searchProviderActivities",
        {"city": "Lisbon", "country": "PT", "startDate": _day(31), "endDate": _day(32)},
        **trip,
    )["results"]
    dates = ok(member, "getProviderActivityOffers", {"resultId": tours[0]["id"]}, **trip)["offers"]
    ok(member, "saveProviderActivity", {"resultId": dates[0]["id"], "note": "Free evening"}, **trip)
    summary = ok(member, "getProviderSummary", {}, **trip)
    saved = {item["kind"]: item for item in summary["saved"]}
    assert set(saved) == {"property", "car", "activity"}
    assert saved["property"]["title"] == room["title"] and saved["property"]["note"] == "Breakfast included"
    assert saved["car"]["title"] == cars[0]["title"] and saved["activity"]["note"] == "Free evening"
    assert all(item["shared"] is False for item in summary["saved"])

    # The supplier review on the trip's first afternoon gets a video meeting written on the event.
    event = EventFactory(
        organizer=member,
        title="Lisbon supplier review",
        start=f"{_day(30)}T15:00",
        attendees=[{"email": "buyer@supplier.example", "name": "Bo"}],
    )
    meeting = ok(member, "createProviderMeeting", {"eventId": event.pk}, **trip)
    event.refresh_from_db()
    assert meeting["title"] == "Lisbon supplier review" and meeting["eventId"] == event.pk
    assert event.location == meeting["joinUrl"] and meeting["joinUrl"] in event.description
    assert {link["email"] for link in meeting["participants"]} == {member.email, "buyer@supplier.example"}

    # A colleague of another role: nothing of the member's listed, found or quoted.
    theirs = _started(colleague)
    overview = ok(colleague, "getTravelOverview", {}, **theirs)
    assert overview["bookmarks"] == [] and overview["bookings"] == []
    assert ok(colleague, "getProviderSummary", {}, **theirs)["saved"] == []
    attempts = [
        ("bookmarkFlightOffer", {"offerId": cheaper["id"]}),
        ("bookmarkStayOffer", {"offerId": rates[0]["id"]}),
        ("prepareFlightBooking", {"offerId": cheaper["id"], "passengers": [PASSENGER]}),
        ("updateTravelBooking", {"bookingId": held["id"], "action": "note", "note": "Mine now"}),
        ("getProviderPropertyDetails", {"resultId": properties[0]["id"]}),
        ("saveProviderProperty", {"resultId": room["id"]}),
        ("saveProviderCar", {"resultId": cars[0]["id"]}),
        ("getProviderActivityOffers", {"resultId": tours[0]["id"]}),
    ]
    asked = (len(flights.asked), len(search.asked))
    for name, arguments in attempts:
        message = refused(colleague, name, arguments, **theirs)
        assert "not found" in message, (name, message)
        for secret in ("Lima", "1985", "Morning flight", "Harbour", "Breakfast", "Lisbon"):
            assert secret not in message, (name, secret, message)
    assert (len(flights.asked), len(search.asked)) == asked  # nothing reached a provider
    assert Booking.objects.get(pk=held["id"]).note == "" and SavedItem.objects.count() == 3

    acme_client.force_login(colleague)
    assert acme_client.get(reverse("travel:pay", args=[held["id"]])).status_code == 404
    for page in ("travel:travel", "travelsearch:travelsearch"):
        shown = acme_client.get(reverse(page)).content.decode()
        assert "Lima" not in shown and "Breakfast included" not in shown and "Morning flight" not in shown
