"""Flights and Stays through call_tool, against a Duffel served on loopback: the scenario (a
flight offer found, bookmarked, re-priced, held, its payment deadline shown, paid by a person on
the page), an expired offer and a changed price refused, names airlines refuse, stays quoted and
booked, cancellations confirmed first, "not configured" without a provider, who sees what (the
traveller's identity data: theirs and the admins' alone), and the purge after the trip."""

from datetime import date, timedelta
from typing import Any

import pytest
from django.test import override_settings
from django.urls import reverse
from django.utils import timezone

from apps.catalogue.dispatch import MemorySession, ToolNotFound
from apps.catalogue.testing import call, confirmed, person_with, structured, text_of
from apps.travel import services
from apps.travel.errors import NameRefused
from apps.travel.models import Booking, Offer, Passenger
from apps.travel.names import checked
from apps.travel.tests.factories import booking, offer
from apps.travel.tests.samples import PASSENGER
from apps.travel.tests.servers import duffel


def started(user: Any) -> MemorySession:
    session = MemorySession()
    structured(call(user, "getTravelOverview", {}, session=session))
    return session


def travel(
    user: Any, name: str, arguments: dict[str, Any], *, session: MemorySession | None = None
) -> dict[str, Any]:
    """A call after the area's first call, the person accepting any confirmation."""
    return call(
        user,
        name,
        arguments,
        session=session or started(user),
        capabilities={"elicitation": {}},
        elicit=confirmed,
    )


def ok(user: Any, name: str, arguments: dict[str, Any], **kw: Any) -> dict[str, Any]:
    return structured(travel(user, name, arguments, **kw))


def refused(user: Any, name: str, arguments: dict[str, Any], **kw: Any) -> str:
    result = travel(user, name, arguments, **kw)
    assert result["isError"] is True, result
    return text_of(result)


def _day(days: int) -> str:
    return (timezone.localdate() + timedelta(days=days)).isoformat()


def _flights(user: Any) -> list[dict[str, Any]]:
    return ok(user, "findFlightOffers", {"origin": "lhr", "destination": "MAD", "departureDate": _day(30)})[
        "offers"
    ]


@pytest.fixture
def served():
    with duffel() as running:
        yield running


def test_a_flight_offer_found_bookmarked_repriced_held_and_its_deadline_shown(people, served, acme_client):
    member = people["member"]
    session = started(member)
    offers = ok(
        member,
        "findFlightOffers",
        {"origin": "lhr", "destination": "MAD", "departureDate": _day(30)},
        session=session,
    )["offers"]
    assert [item["total"] for item in offers] == ["149.90", "182.40"]  # cheapest first, taxes included
    cheapest = offers[0]
    assert cheapest["details"]["slices"][0]["segments"][0]["from"] == "LHR" and cheapest["expiresAt"]
    sent = served.asked[0]
    assert sent[1] == "/air/offer_requests" and sent[2]["data"]["slices"][0]["origin"] == "LHR"

    marked = ok(
        member, "bookmarkFlightOffer", {"offerId": cheapest["id"], "note": "Morning flight"}, session=session
    )
    assert marked["bookmarked"] is True and marked["note"] == "Morning flight"

    held = ok(
        member,
        "prepareFlightBooking",
        {"offerId": cheapest["id"], "passengers": [PASSENGER]},
        session=session,
    )
    assert served.paths()[-2:] == [
        f"GET /air/offers/{Offer.objects.get(pk=cheapest['id']).provider_id}",
        "POST /air/orders",
    ]
    order = served.asked[-1][2]["data"]
    assert order["type"] == "hold" and order["passengers"][0]["given_name"] == "Ana"
    assert order["passengers"][0]["phone_number"] == "+442079460000"
    assert held["status"] == "held" and held["bookingReference"] == "KX0001" and held["total"] == "149.90"
    assert held["paymentRequiredBy"] and "/settings/travel/bookings/" in held["paymentUrl"]
    assert held["passengers"][0]["bornOn"] == "1985-04-02"  # the traveller's own

    overview = ok(member, "getTravelOverview", {})
    assert overview["providers"]["flightsAndStays"] == "duffel"
    assert [item["id"] for item in overview["bookmarks"]] == [cheapest["id"]]
    assert overview["bookings"][0]["paymentRequiredBy"] == held["paymentRequiredBy"]

    acme_client.force_login(member)
    page = acme_client.get(reverse("travel:pay", args=[held["id"]])).content.decode()
    assert "149.90 GBP" in page and "Pay by" in page
    assert acme_client.post(reverse("travel:pay", args=[held["id"]])).status_code == 302
    assert served.paths()[-1] == "POST /air/payments"
    assert served.asked[-1][2]["data"]["payment"] == {
        "type": "balance",
        "amount": "149.90",
        "currency": "GBP",
    }
    paid = Booking.objects.get(pk=held["id"])
    assert paid.status == "confirmed" and paid.paid_by == member


def test_an_expired_offer_is_refused_and_nothing_is_held(people, served):
    member = people["member"]
    cheapest = _flights(member)[0]
    served.expire.add(Offer.objects.get(pk=cheapest["id"]).provider_id)
    message = refused(member, "prepareFlightBooking", {"offerId": cheapest["id"], "passengers": [PASSENGER]})
    assert "expired" in message and "Nothing was booked" in message
    assert "POST /air/orders" not in served.paths() and not Booking.objects.exists()

    kept = Offer.objects.get(pk=cheapest["id"])
    kept.expires_at = timezone.now() - timedelta(seconds=1)
    kept.save()
    before = len(served.asked)
    assert "expired" in refused(
        member, "prepareFlightBooking", {"offerId": kept.pk, "passengers": [PASSENGER]}
    )
    assert len(served.asked) == before  # refused before the provider (and the person) is asked


def test_a_changed_price_is_refused_with_the_new_figure_then_held_at_it(people, served):
    member = people["member"]
    cheapest = _flights(member)[0]
    served.reprice[Offer.objects.get(pk=cheapest["id"]).provider_id] = "171.20"
    message = refused(member, "prepareFlightBooking", {"offerId": cheapest["id"], "passengers": [PASSENGER]})
    assert "149.90 GBP to 171.20 GBP" in message and not Booking.objects.exists()
    held = ok(
        member,
        "prepareFlightBooking",
        {"offerId": cheapest["id"], "passengers": [PASSENGER], "expectedTotal": "171.20"},
    )
    assert held["total"] == "171.20"


def test_a_fare_that_must_be_paid_at_once_is_not_held(people, served):
    cheapest = _flights(people["member"])[0]
    served.instant.add(Offer.objects.get(pk=cheapest["id"]).provider_id)
    assert "cannot be held" in refused(
        people["member"], "prepareFlightBooking", {"offerId": cheapest["id"], "passengers": [PASSENGER]}
    )


@pytest.mark.parametrize(
    ("name", "character"),
    [("Ana2", "2"), ("\u0410\u043d\u043d\u0430", "\u0410"), ("Ana.", "."), ("Ana 🙂", "🙂")],
)
def test_names_with_characters_airlines_refuse_are_refused_before_anything_is_asked(
    people, served, name, character
):
    cheapest = _flights(people["member"])[0]
    before = len(served.asked)
    message = refused(
        people["member"],
        "prepareFlightBooking",
        {"offerId": cheapest["id"], "passengers": [{**PASSENGER, "givenName": name}]},
    )
    assert f"{character!r}" in message and "passengers[0].givenName" in message
    assert len(served.asked) == before and not Passenger.objects.exists()


def test_names_are_written_in_latin_letters():
    assert checked("  Søren   Müller-Straße ", field="x") == "Soren Muller-Strasse"
    assert checked("O'Brien", field="x") == "O'Brien"
    with pytest.raises(NameRefused):
        checked("-Ana", field="x")


def test_bad_searches_are_clear_errors_and_nothing_is_asked(people, served):
    member = people["member"]
    assert "IATA" in refused(
        member, "findFlightOffers", {"origin": "L1R", "destination": "MAD", "departureDate": _day(3)}
    )
    assert "no airport" in refused(
        member, "findFlightOffers", {"origin": "QQQ", "destination": "MAD", "departureDate": _day(3)}
    )
    assert "in the past" in refused(
        member, "findFlightOffers", {"origin": "LHR", "destination": "MAD", "departureDate": _day(-1)}
    )
    assert "must be after" in refused(
        member,
        "findStayOffers",
        {"latitude": 38.7, "longitude": -9.1, "checkInDate": _day(5), "checkOutDate": _day(5)},
    )
    assert served.asked == [] and not Offer.objects.exists()


def test_a_stay_found_quoted_with_its_fees_booked_by_a_person_and_cancelled(people, served, acme_client):
    member = people["member"]
    rates = ok(
        member,
        "findStayOffers",
        {"latitude": 38.71, "longitude": -9.14, "checkInDate": _day(30), "checkOutDate": _day(32)},
    )["offers"]
    rate = rates[0]
    assert (rate["total"], rate["currency"], rate["dueAtProperty"]) == ("312.00", "EUR", "8.40")
    assert rate["title"] == "Harbour Inn: Double room" and rate["details"]["board"] == "breakfast"
    assert ok(member, "bookmarkStayOffer", {"offerId": rate["id"]})["bookmarked"] is True
    assert "prepareStayBooking" in refused(member, "bookmarkFlightOffer", {"offerId": rate["id"]})

    arguments = {
        "offerId": rate["id"],
        "guests": [{"givenName": "Ana", "familyName": "Lima"}],
        "email": "ana@kestrel.example",
        "phone": "+44 20 7946 0000",
    }
    served.quote_total = "330.00"
    assert "312.00 EUR to 330.00 EUR" in refused(member, "prepareStayBooking", arguments)
    served.quote_total = ""
    quoted = ok(member, "prepareStayBooking", arguments)
    assert quoted["status"] == "quoted" and quoted["total"] == "312.00"
    acme_client.force_login(member)
    assert "8.40 EUR" in acme_client.get(reverse("travel:pay", args=[quoted["id"]])).content.decode()
    acme_client.post(reverse("travel:pay", args=[quoted["id"]]))
    assert served.paths()[-1] == "POST /stays/bookings"
    assert served.asked[-1][2]["data"]["quote_id"] == "quo_0001"
    assert Booking.objects.get(pk=quoted["id"]).booking_reference == "HI-778"

    cancelled = ok(member, "updateTravelBooking", {"bookingId": quoted["id"], "action": "cancel"})
    assert (
        cancelled["status"] == "cancelled"
        and served.paths()[-1] == "POST /stays/bookings/bok_0001/actions/cancel"
    )
    assert "cannot be cancelled" in refused(
        member, "updateTravelBooking", {"bookingId": quoted["id"], "action": "cancel"}
    )


def test_a_cancellation_is_confirmed_first_and_answers_the_refund(people, served):
    member = people["member"]
    cheapest = _flights(member)[0]
    held = ok(member, "prepareFlightBooking", {"offerId": cheapest["id"], "passengers": [PASSENGER]})
    unconfirmed = call(
        member, "updateTravelBooking", {"bookingId": held["id"], "action": "cancel"}, session=started(member)
    )
    assert "confirmationToken" in text_of(unconfirmed) and Booking.objects.get(pk=held["id"]).status == "held"
    noted = ok(
        member, "updateTravelBooking", {"bookingId": held["id"], "action": "note", "note": "Aisle seat"}
    )
    assert noted["note"] == "Aisle seat"
    # The provider refunds in another currency than the price's: the refund says which.
    refunded = {"id": "ore_0001", "refund_amount": "41.50", "refund_currency": "EUR", "confirmed_at": None}
    served.answers["POST /air/order_cancellations/ore_0001/actions/confirm"] = (200, {"data": refunded})
    cancelled = ok(member, "updateTravelBooking", {"bookingId": held["id"], "action": "cancel"})
    assert cancelled["status"] == "cancelled" and cancelled["refund"] == "41.50"
    assert (cancelled["currency"], cancelled["refundCurrency"]) == ("GBP", "EUR")
    assert served.paths()[-2:] == [
        "POST /air/order_cancellations",
        "POST /air/order_cancellations/ore_0001/actions/confirm",
    ]


def test_without_a_provider_the_overview_says_so_and_the_rest_is_not_configured(people):
    member = people["member"]
    with override_settings(ATRIUM_TRAVEL_DUFFEL_TOKEN=""):
        overview = ok(member, "getTravelOverview", {})
        assert "ATRIUM_TRAVEL_DUFFEL_TOKEN" in overview["providers"]["flightsAndStays"]
        message = refused(
            member, "findFlightOffers", {"origin": "LHR", "destination": "MAD", "departureDate": _day(3)}
        )
        assert "findFlightOffers is not configured" in message and "An administrator sets" in message
        found = offer(member)
        message = refused(member, "prepareFlightBooking", {"offerId": found.pk, "passengers": [PASSENGER]})
        assert "prepareFlightBooking is not configured" in message
    assert not Booking.objects.exists()


def test_a_wrong_token_is_a_clear_error(people, served):
    with override_settings(ATRIUM_TRAVEL_DUFFEL_TOKEN="duffel_test_wrong"):
        message = refused(
            people["member"],
            "findFlightOffers",
            {"origin": "LHR", "destination": "MAD", "departureDate": _day(3)},
        )
    assert "refused the service's access token" in message and not Offer.objects.exists()


def test_the_tools_are_refused_without_travel_book(people, served):
    arguments = {"origin": "LHR", "destination": "MAD", "departureDate": _day(3)}
    with pytest.raises(ToolNotFound):
        call(people["viewer"], "findFlightOffers", arguments)
    reader = person_with({"travel.view"}, email="reader@acme.example")
    with pytest.raises(ToolNotFound):
        call(reader, "prepareFlightBooking", {"offerId": 1, "passengers": [PASSENGER]})
    assert served.asked == []


def test_another_persons_offer_and_booking_are_never_found_nor_quoted(people, served):
    theirs = offer(people["owner"], "Owner's secret merger trip")
    made = booking(people["owner"], "Owner's merger flight")
    member = people["member"]
    for name, arguments in (
        ("bookmarkFlightOffer", {"offerId": theirs.pk}),
        ("prepareFlightBooking", {"offerId": theirs.pk, "passengers": [PASSENGER]}),
        ("updateTravelBooking", {"bookingId": made.pk, "action": "cancel"}),
    ):
        message = refused(member, name, arguments)
        assert "was not found" in message and "merger" not in message
    overview = ok(member, "getTravelOverview", {})
    assert overview["bookings"] == [] and served.asked == []


def test_identity_data_is_the_travellers_and_the_admins_alone(people, acme_client):
    booker, traveller = people["member"], people["admin"]
    made = booking(booker, "Team offsite flight", traveller=traveller)
    seen = {row["id"]: row for row in ok(booker, "getTravelOverview", {})["bookings"]}
    assert seen[made.pk]["passengers"][0] == {
        "givenName": "Ana",
        "familyName": "Lima",
        "bornOn": None,
        "email": "",
        "phone": "",
        "purged": False,
    }
    assert ok(traveller, "getTravelOverview", {})["bookings"][0]["passengers"][0]["bornOn"] == "1985-04-02"
    acme_client.force_login(booker)
    page = acme_client.get(reverse("travel:pay", args=[made.pk])).content.decode()
    assert "Ana Lima" in page and "1985" not in page


def test_identity_data_is_purged_after_the_trip(people):
    over = booking(people["member"], "Past trip", ends_on=timezone.localdate() - timedelta(days=3))
    # Its overnight flight home, which left yesterday, may land today.
    landing = booking(people["member"], "Red-eye home", ends_on=timezone.localdate() - timedelta(days=1))
    ahead = booking(people["member"], "Next trip")
    assert services.purge_identities() == 1
    assert landing.passengers.get().born_on == date(1985, 4, 2)
    gone = over.passengers.get()
    assert (gone.born_on, gone.email, gone.phone, gone.purged_at is not None) == (None, "", "", True)
    assert ahead.passengers.get().born_on == date(1985, 4, 2)


def test_the_page_shows_a_person_their_own_and_the_admin_every_booking(people, acme_client):
    booking(people["member"], "Member quay trip")
    booking(people["owner"], "Owner merger trip")
    acme_client.force_login(people["member"])
    shown = acme_client.get(reverse("travel:travel")).content.decode()
    assert "Member quay trip" in shown and "Owner merger trip" not in shown
    acme_client.force_login(people["owner"])
    shown = acme_client.get(reverse("travel:travel")).content.decode()
    assert "Member quay trip" in shown and "Owner merger trip" in shown
