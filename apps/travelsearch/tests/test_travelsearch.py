"""Provider Travel Search through call_tool, against the Booking.com Demand API and Duffel served
on loopback: a property searched, its details read, a room saved and listed in the summary; cars,
activities and flights searched and saved; expired and vanished options refused; bad input, a
hanging or failing provider, "not configured" without credentials; who sees what; the page."""

from datetime import timedelta
from typing import Any

import pytest
from django.test import override_settings
from django.urls import reverse
from django.utils import timezone

from apps.catalogue.dispatch import MemorySession, ToolNotFound
from apps.catalogue.testing import call, person_with, structured, text_of
from apps.travel.tests.servers import duffel
from apps.travelsearch.models import Offer, SavedItem
from apps.travelsearch.tests.factories import offer, saved
from apps.travelsearch.tests.servers import AFFILIATE, TOKEN, demand


def started(user: Any) -> MemorySession:
    session = MemorySession()
    structured(call(user, "getProviderSummary", {}, session=session))
    return session


def run(
    user: Any, name: str, arguments: dict[str, Any], session: MemorySession | None = None
) -> dict[str, Any]:
    return call(user, name, arguments, session=session or started(user))


def ok(user: Any, name: str, arguments: dict[str, Any], **kw: Any) -> dict[str, Any]:
    return structured(run(user, name, arguments, **kw))


def refused(user: Any, name: str, arguments: dict[str, Any], **kw: Any) -> str:
    result = run(user, name, arguments, **kw)
    assert result["isError"] is True, result
    return text_of(result)


def _day(days: int) -> str:
    return (timezone.localdate() + timedelta(days=days)).isoformat()


STAY = {
    "city": "Lisbon",
    "country": "Portugal",
    "checkInDate": _day(30),
    "checkOutDate": _day(32),
    "adults": 2,
}
CAR = {"pickupAirport": "lis", "pickupAt": f"{_day(30)}T10:00:00", "dropoffAt": f"{_day(33)}T09:00:00"}
TOUR = {"city": "Lisbon", "country": "PT", "startDate": _day(30), "endDate": _day(31)}


@pytest.fixture
def served():
    with demand() as running:
        yield running


@pytest.fixture
def other():
    return person_with({"travelsearch.view", "travelsearch.search"}, email="colleague@acme.example")


def test_a_property_searched_detailed_saved_and_listed_in_the_summary(people, served):
    member = people["member"]
    session = started(member)
    found = ok(member, "searchProviderProperties", {**STAY, "childrenAges": [7]}, session=session)
    assert [item["title"] for item in found["results"]] == ["Harbour View Hotel", "Alfama Flats"]
    first = found["results"][0]
    assert first["total"] == "246.30" and first["currency"] == "EUR"  # mandatory charges included
    assert first["details"]["priceBeforeCharges"] == "220.00" and first["expiresAt"]
    assert first["providerPage"].startswith("https://www.booking.com/hotel/pt/10004")
    asked = served.body("/accommodations/search")
    assert asked["city"] == -2167973 and asked["checkin"] == STAY["checkInDate"]
    assert asked["booker"] == {"country": "gb", "platform": "desktop"}
    assert asked["guests"] == {"number_of_adults": 2, "number_of_rooms": 1, "children": [7]}
    assert asked["rows"] == 10 and first["details"]["city"] == "Lisbon"  # rows: a multiple of 10
    assert served.body("/accommodations/details")["accommodations"] == [10004, 10005]
    headers = served.asked[-1][2]
    assert headers["Authorization"] == f"Bearer {TOKEN}" and headers["X-Affiliate-Id"] == AFFILIATE

    more = ok(
        member, "searchProviderProperties", {**STAY, "pageToken": found["nextPageToken"]}, session=session
    )
    asked = served.body("/accommodations/search")  # the next page: the criteria and its token
    assert asked["page"] == "page-2" and asked["checkin"] == STAY["checkInDate"] and "booker" in asked
    assert [item["title"] for item in more["results"]] == ["Tagus Lodge"] and more["nextPageToken"] == ""

    details = ok(member, "getProviderPropertyDetails", {"resultId": first["id"]}, session=session)
    assert details["details"]["facilities"] == ["Free WiFi", "Parking"] and details["details"]["stars"] == 4
    rooms = details["rooms"]
    assert [room["total"] for room in rooms] == ["246.30", "224.10"]
    assert rooms[1]["title"] == "Harbour View Hotel: Twin room"
    availability = served.body("/accommodations/availability")
    assert availability["guests"]["children"] == [7] and availability["accommodations"] == [10004]
    assert details["details"]["description"].startswith("Rooms over the river")
    assert details["details"]["url"] == "https://www.booking.com/hotel/pt/10004.html"

    kept = ok(
        member, "saveProviderProperty", {"resultId": rooms[1]["id"], "note": "Cheapest twin"}, session=session
    )
    assert kept["total"] == "224.10" and kept["shared"] is False and kept["resultId"] == rooms[1]["id"]
    again = ok(member, "saveProviderProperty", {"resultId": rooms[1]["id"], "note": "Still cheapest"})
    assert again["id"] == kept["id"] and SavedItem.objects.count() == 1  # saved twice: one item

    summary = ok(member, "getProviderSummary", {})
    assert summary["providers"]["properties"] == "booking.com"
    assert [(item["id"], item["note"]) for item in summary["saved"]] == [(kept["id"], "Still cheapest")]


def test_cars_and_activities_searched_and_saved(people, served):
    member = people["member"]
    cars = ok(member, "searchProviderCars", {**CAR, "driverAge": 24})["results"]
    assert cars[0]["title"] == "Small car (Sixt)" and cars[0]["total"] == "180.00"
    assert cars[0]["details"]["mileage"] == "unlimited"
    assert cars[0]["providerPage"] == "https://cars.booking.com/offer/803765581"
    asked = served.body("/cars/search")
    assert asked["route"]["pickup"] == {"datetime": f"{_day(30)}T10:00:00", "location": {"airport": "LIS"}}
    assert asked["route"]["dropoff"]["location"] == {"airport": "LIS"} and asked["driver"] == {"age": 24}
    assert asked["booker"] == {"country": "gb"} and asked["maximum_results"] == 10
    assert served.body("/cars/suppliers") == {"suppliers": [7455]}
    car = ok(member, "saveProviderCar", {"resultId": cars[0]["id"], "shared": True})
    assert car["shared"] is True and car["kind"] == "car"
    # Re-checked through /cars/availability with the search's token: the price now.
    assert served.body("/cars/availability") == {
        "offer": 803765581,
        "search_token": "car_search_token",
        "currency": "EUR",
    }
    assert car["total"] == "185.50"

    tours = ok(member, "searchProviderActivities", TOUR)["results"]
    assert tours[0]["title"] == "Tram 28 walking tour" and tours[0]["total"] == "25.00"
    asked = served.body("/attractions/search")
    assert asked["cities"] == [-2167973] and asked["rows"] == 10 and "booker" not in asked
    assert asked["dates"] == {"start_date": _day(30), "end_date": _day(31)}
    offers = ok(member, "getProviderActivityOffers", {"resultId": tours[0]["id"]})["offers"]
    assert [(item["startsOn"], item["endsOn"]) for item in offers] == [(_day(30), _day(31))]
    assert served.body("/attractions/search")["attractions"] == ["PRcTx1"]
    assert offers[0]["details"]["freeCancellation"] is True
    tour = ok(member, "saveProviderActivity", {"resultId": offers[0]["id"], "note": "Saturday"})
    assert tour["startsOn"] == _day(30) and tour["total"] == "25.00"


def test_a_car_is_held_to_its_kept_expiry_where_the_account_cannot_re_check_it(people, served):
    """/cars/availability is open only to some accounts: where it is forbidden, a car is saved at
    the price its search found, as long as that has not expired."""
    member = people["member"]
    car = ok(member, "searchProviderCars", CAR)["results"][0]
    served.forbidden.add("/cars/availability")
    saved = ok(member, "saveProviderCar", {"resultId": car["id"]})
    assert saved["total"] == car["total"] == "180.00"
    assert "/cars/availability" in served.paths()


def test_a_car_or_activity_the_provider_no_longer_offers_is_not_saved(people, served):
    member = people["member"]
    car = ok(member, "searchProviderCars", CAR)["results"][0]
    served.sold_out.add("803765581")
    message = refused(member, "saveProviderCar", {"resultId": car["id"]})
    assert "no longer offers" in message and "Nothing was saved" in message

    tour = ok(member, "searchProviderActivities", TOUR)["results"][0]
    dated = ok(member, "getProviderActivityOffers", {"resultId": tour["id"], "endDate": _day(30)})["offers"]
    served.sold_out.add(f"PRcTx1@{_day(30)}")
    assert "no longer offers" in refused(member, "saveProviderActivity", {"resultId": dated[0]["id"]})
    assert not SavedItem.objects.exists()


def test_a_flight_compared_through_duffel_saved_and_an_expired_or_vanished_one_refused(people):
    member = people["member"]
    with duffel() as flights, override_settings(ATRIUM_TRAVELSEARCH_BOOKING_TOKEN=""):
        found = ok(
            member,
            "searchProviderFlights",
            {"origin": "lhr", "destination": "LIS", "departureDate": _day(30)},
        )
        cheapest, dearer = found["results"]
        assert (
            cheapest["total"] == "149.90"
            and cheapest["kind"] == "flight"
            and cheapest["provider"] == "duffel"
        )
        assert flights.asked[0][1] == "/air/offer_requests"
        kept = ok(member, "saveProviderFlight", {"resultId": cheapest["id"]})
        assert kept["total"] == "149.90" and flights.paths()[-1].startswith("GET /air/offers/")

        flights.expire.add(Offer.objects.get(pk=dearer["id"]).provider_id)
        assert "price held until" in refused(member, "saveProviderFlight", {"resultId": dearer["id"]})
        flights.offers.pop(Offer.objects.get(pk=dearer["id"]).provider_id)
        message = refused(member, "saveProviderFlight", {"resultId": dearer["id"]})
        assert "no longer offers" in message and "Nothing was saved" in message
    assert SavedItem.objects.count() == 1


def test_an_expired_or_vanished_option_is_refused_and_nothing_is_saved(people, served):
    member = people["member"]
    results = ok(member, "searchProviderProperties", STAY)["results"]
    kept = Offer.objects.get(pk=results[0]["id"])
    kept.expires_at = timezone.now() - timedelta(seconds=1)
    kept.save()
    before = len(served.asked)
    message = refused(member, "saveProviderProperty", {"resultId": kept.pk})
    assert "TRAVELSEARCH_OFFER_EXPIRED" in message or "search again" in message
    assert len(served.asked) == before  # refused before the provider was asked

    rooms = ok(member, "getProviderPropertyDetails", {"resultId": results[1]["id"]})["rooms"]
    served.sold_out.add(Offer.objects.get(pk=rooms[0]["id"]).provider_id)
    assert "no longer offers" in refused(member, "saveProviderProperty", {"resultId": rooms[0]["id"]})
    served.gone.add("10005")
    assert "no longer offers" in refused(member, "getProviderPropertyDetails", {"resultId": results[1]["id"]})
    assert not SavedItem.objects.exists()
    assert "saveProviderProperty" in refused(member, "saveProviderCar", {"resultId": rooms[1]["id"]})


@pytest.mark.parametrize(
    ("tool", "arguments", "says"),
    [
        ("searchProviderProperties", {**STAY, "checkInDate": _day(-1)}, "in the past"),
        ("searchProviderProperties", {**STAY, "checkOutDate": _day(29)}, "must be after"),
        ("searchProviderProperties", {**STAY, "checkOutDate": _day(75)}, "more than 30 days"),
        ("searchProviderProperties", {**STAY, "rooms": 3}, "each room needs an adult"),
        ("searchProviderProperties", {**STAY, "adults": 31}, "adults"),
        ("searchProviderProperties", {**STAY, "childrenAges": [19]}, "aged 0 to 17"),
        ("searchProviderProperties", {**STAY, "city": "Atlantis"}, "no city named 'Atlantis'"),
        ("searchProviderProperties", {**STAY, "country": "Narnia"}, "'Narnia' is no country"),
        ("searchProviderProperties", {**STAY, "currency": "ZZZ"}, "ISO 4217"),
        ("searchProviderProperties", {**STAY, "airport": "LIS"}, "give one of"),
        ("searchProviderCars", {**CAR, "pickupAirport": "QQQ"}, "QQQ is no airport"),
        ("searchProviderCars", {**CAR, "dropoffAt": CAR["pickupAt"]}, "after the pick-up"),
        ("searchProviderActivities", {**TOUR, "endDate": _day(29)}, "must be after"),
        ("searchProviderFlights", {"origin": "LHR", "destination": "LHR", "departureDate": _day(3)}, "same"),
    ],
)
def test_bad_input_is_a_clear_error_and_nothing_is_kept(people, served, tool, arguments, says):
    message = refused(people["member"], tool, arguments)
    assert says in message, message
    assert not Offer.objects.exists()


def test_a_hanging_failing_or_refusing_provider_is_a_clear_error(people, served):
    member = people["member"]
    served.hang = 1.5
    assert "did not answer within 1 seconds" in refused(member, "searchProviderCars", CAR)
    served.hang, served.status = 0, 503
    assert "it answered HTTP 503" in refused(member, "searchProviderActivities", TOUR)
    served.status = 0
    assert "refused: Unknown city" in refused(member, "searchProviderProperties", {**STAY, "city": "-999"})
    with override_settings(ATRIUM_TRAVELSEARCH_BOOKING_TOKEN="wrong"):
        assert "refused the service's credentials" in refused(member, "searchProviderCars", CAR)
    assert not Offer.objects.exists()


def test_without_providers_the_summary_says_so_and_every_other_tool_is_not_configured(people):
    member = people["member"]
    mine = offer(member, "Kept hotel")
    with override_settings(ATRIUM_TRAVELSEARCH_BOOKING_TOKEN="", ATRIUM_TRAVEL_DUFFEL_TOKEN=""):
        summary = ok(member, "getProviderSummary", {})
        assert all("an administrator sets" in line for line in summary["providers"].values())
        calls = [
            ("searchProviderFlights", {"origin": "LHR", "destination": "LIS", "departureDate": _day(3)}),
            ("searchProviderProperties", STAY),
            ("getProviderPropertyDetails", {"resultId": mine.pk}),
            ("searchProviderCars", CAR),
            ("searchProviderActivities", TOUR),
            ("getProviderActivityOffers", {"resultId": offer(member, kind="activity").pk}),
            ("saveProviderFlight", {"resultId": offer(member, kind="flight").pk}),
            ("saveProviderProperty", {"resultId": mine.pk}),
            ("saveProviderCar", {"resultId": offer(member, kind="car").pk}),
            ("saveProviderActivity", {"resultId": offer(member, kind="activity").pk}),
        ]
        for name, arguments in calls:
            message = refused(member, name, arguments)
            assert "is not configured" in message and "an administrator sets" in message.lower(), (
                name,
                message,
            )
    assert not SavedItem.objects.exists()


def test_the_tools_are_refused_without_the_areas_permission(people, served):
    with pytest.raises(ToolNotFound):
        call(people["viewer"], "searchProviderProperties", STAY)
    reader = person_with({"travelsearch.view"}, email="reader@acme.example")
    with pytest.raises(ToolNotFound):
        call(reader, "saveProviderProperty", {"resultId": offer(people["member"]).pk})
    assert served.asked == [] and not SavedItem.objects.exists()


def test_another_persons_saved_option_is_never_listed_nor_found(people, served, other):
    member = people["member"]
    private = saved(member, "Member's secret merger hotel")
    shared = saved(member, "Team offsite hotel", shared=True)
    listed = [item["title"] for item in ok(other, "getProviderSummary", {})["saved"]]
    assert listed == ["Team offsite hotel"]
    for name in ("getProviderPropertyDetails", "saveProviderProperty"):
        message = refused(other, name, {"resultId": private.offer_id})
        assert "not found" in message and "merger" not in message
    assert served.asked == []
    mine = [item["id"] for item in ok(member, "getProviderSummary", {})["saved"]]
    assert set(mine) == {private.pk, shared.pk}
    everything = [item["title"] for item in ok(people["owner"], "getProviderSummary", {})["saved"]]
    assert "Member's secret merger hotel" in everything  # the area's admins see every one


def test_the_page_shows_saved_options_and_recent_calls(people, acme_client, other):
    saved(people["member"], "Member quay hotel")
    saved(other, "Colleague's private hotel")
    acme_client.force_login(people["member"])
    page = acme_client.get(reverse("travelsearch:travelsearch")).content.decode()
    assert "Member quay hotel" in page and "Colleague" not in page
    assert "an administrator sets ATRIUM_TRAVELSEARCH_BOOKING_TOKEN" in page and "Recent calls" in page
