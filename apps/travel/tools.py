"""Flights and Stays' tools (SPEC 4.7): getTravelOverview is the area's MANDATORY FIRST CALL; the
prepare tools and updateTravelBooking are HIGH RISK, their arguments checked before the person
is asked to confirm. Thin doors onto services and selectors."""

from datetime import date
from decimal import Decimal
from typing import Annotated, Any, Literal

from django.utils.translation import gettext as _
from pydantic import Field, WithJsonSchema

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import Marker, tool
from apps.catalogue.shapes import In, Out, id_field
from apps.travel import providers, selectors, services
from apps.travel.permissions import TravelPerm
from apps.travel.shapes import BookingOut, OfferOut

OfferId = Annotated[int, id_field("findFlightOffers")]
StayOfferId = Annotated[int, id_field("findStayOffers")]
Money = Annotated[
    Annotated[Decimal, WithJsonSchema({"type": ["string", "number"], "pattern": r"^\d+(\.\d{1,2})?$"})]
    | None,
    Field(ge=0, max_digits=12, decimal_places=2, description="The new total, after a price change"),
]
Traveller = Annotated[str, Field(max_length=254, description="A workspace person's e-mail; default you")]
Airport = Annotated[str, Field(min_length=3, max_length=3, description="IATA code, e.g. LHR")]


class OverviewOut(Out):
    providers: dict[str, str] = Field(description="Each provider setting: its provider, or what to set")
    bookmarks: list[OfferOut]
    bookings: list[BookingOut] = Field(description="Upcoming, with payment deadlines")
    rules: list[str]


def _provider_line() -> dict[str, str]:
    name = providers.configured()
    return {
        "flightsAndStays": name
        or _("not configured: an administrator sets ATRIUM_TRAVEL_DUFFEL_TOKEN in the environment"),
    }


@tool(
    "getTravelOverview",
    permission=TravelPerm.VIEW,
    title="Travel overview",
    markers=Marker.MANDATORY_FIRST_CALL,
    read_only=True,
)
def get_travel_overview(ctx: ToolContext) -> OverviewOut:
    """Call first: travel providers set, your bookmarked offers, upcoming bookings with pay-by dates.
    Also the booking rules."""
    return OverviewOut(
        providers=_provider_line(),
        bookmarks=[selectors.offer_out(offer) for offer in selectors.bookmarks(ctx.actor)],
        bookings=[selectors.booking_out(ctx.actor, booking) for booking in selectors.upcoming(ctx.actor)],
        rules=[
            _("Offers expire: they are re-priced before preparing; a changed price needs expectedTotal."),
            _("Names exactly as on the passport, in Latin letters."),
            _("Agents never pay: a person pays at the booking's paymentUrl before paymentRequiredBy."),
        ],
    )


class OffersOut(Out):
    offers: list[OfferOut]


@tool("findFlightOffers", permission=TravelPerm.BOOK, title="Find flight offers", open_world=True)
def find_flight_offers(
    ctx: ToolContext,
    *,
    origin: Airport,
    destination: Airport,
    departure_date: Annotated[date, Field(description="Local date of departure")],
    return_date: Annotated[date | None, Field(description="Omit for one way")] = None,
    adults: Annotated[int, Field(ge=1, le=services.MAX_PASSENGERS, description="Passengers, 18 or over")] = 1,
    cabin_class: Annotated[
        Literal["", "economy", "premium_economy", "business", "first"], Field(description="Default: any")
    ] = "",
    max_offers: Annotated[int, Field(ge=1, le=20, description="Cheapest first")] = 10,
) -> OffersOut:
    """Search airline flight offers (cheapest first), kept with their expiry; stays: findStayOffers."""
    found = services.flight_offers_find(
        actor=ctx.actor,
        origin=origin,
        destination=destination,
        departs_on=departure_date,
        returns_on=return_date,
        adults=adults,
        cabin=cabin_class,
        most=max_offers,
    )
    return OffersOut(offers=[selectors.offer_out(offer) for offer in found])


@tool("findStayOffers", permission=TravelPerm.BOOK, title="Find hotel stay offers", open_world=True)
def find_stay_offers(
    ctx: ToolContext,
    *,
    latitude: Annotated[float, Field(ge=-90, le=90, description="Where to stay near, in degrees")],
    longitude: Annotated[float, Field(ge=-180, le=180, description="In degrees, east positive")],
    check_in_date: Annotated[date, Field(description="First night")],
    check_out_date: Annotated[date, Field(description="Day of leaving")],
    radius_km: Annotated[int, Field(ge=1, le=50, description="Search radius in km")] = 5,
    adults: Annotated[int, Field(ge=1, le=services.MAX_PASSENGERS, description="Guests in all")] = 1,
    rooms: Annotated[int, Field(ge=1, le=5, description="Rooms wanted")] = 1,
    max_properties: Annotated[int, Field(ge=1, le=5, description="Nearest hotels whose rates are read")] = 3,
) -> OffersOut:
    """Search hotel room rates near a place, fees included; flights: findFlightOffers."""
    found = services.stay_offers_find(
        actor=ctx.actor,
        latitude=latitude,
        longitude=longitude,
        radius_km=radius_km,
        check_in=check_in_date,
        check_out=check_out_date,
        adults=adults,
        rooms=rooms,
        most=max_properties,
    )
    return OffersOut(offers=[selectors.offer_out(offer) for offer in found])


Note = Annotated[str, Field(max_length=500, description="Why it is kept, for people")]
Keep = Annotated[bool, Field(description="false removes the bookmark")]


@tool("bookmarkFlightOffer", permission=TravelPerm.BOOK, title="Bookmark a flight offer", idempotent=True)
def bookmark_flight_offer(
    ctx: ToolContext, *, offer_id: OfferId, note: Note = "", bookmarked: Keep = True
) -> OfferOut:
    """Save a found flight offer to compare later, with a note; hotel rates: bookmarkStayOffer."""
    offer = services.offer_bookmark(
        actor=ctx.actor, offer_id=offer_id, kind="flight", note=note, keep=bookmarked
    )
    return selectors.offer_out(offer)


@tool("bookmarkStayOffer", permission=TravelPerm.BOOK, title="Bookmark a stay offer", idempotent=True)
def bookmark_stay_offer(
    ctx: ToolContext, *, offer_id: StayOfferId, note: Note = "", bookmarked: Keep = True
) -> OfferOut:
    """Save a found hotel rate to compare later, with a note; flights: bookmarkFlightOffer."""
    offer = services.offer_bookmark(
        actor=ctx.actor, offer_id=offer_id, kind="stay", note=note, keep=bookmarked
    )
    return selectors.offer_out(offer)


class PassengerIn(In):
    given_name: Annotated[str, Field(min_length=1, max_length=60, description="As on the passport")]
    family_name: Annotated[str, Field(min_length=1, max_length=60)]
    born_on: date
    title: Literal["mr", "ms", "mrs", "miss", "dr"]
    gender: Literal["m", "f"]
    email: Annotated[str, Field(max_length=254)]
    phone: Annotated[str, Field(max_length=30, description="International, +44...")]


def _flight_checks(
    ctx: ToolContext, *, offer_id: int, passengers: list[PassengerIn], traveller_email: str = "", **_rest: Any
) -> bool:
    services.flight_checked(
        actor=ctx.actor,
        offer_id=offer_id,
        passengers=[person.model_dump() for person in passengers],
        traveller_email=traveller_email,
    )
    return True


@tool(
    "prepareFlightBooking",
    permission=TravelPerm.BOOK,
    title="Hold a flight offer",
    markers=Marker.HIGH_RISK,
    confirm_if=_flight_checks,
    open_world=True,
)
def prepare_flight_booking(
    ctx: ToolContext,
    *,
    offer_id: OfferId,
    passengers: Annotated[
        list[PassengerIn],
        Field(min_length=1, max_length=services.MAX_PASSENGERS, description="Each adult, as on the passport"),
    ],
    expected_total: Money = None,
    traveller_email: Traveller = "",
) -> BookingOut:
    """Re-price a flight offer and hold it as an order; a person pays before its deadline, never agents."""
    booking = services.flight_prepare(
        actor=ctx.actor,
        offer_id=offer_id,
        passengers=[person.model_dump() for person in passengers],
        expected_total=expected_total,
        traveller_email=traveller_email,
    )
    return selectors.booking_out(ctx.actor, booking)


class GuestIn(In):
    given_name: Annotated[str, Field(min_length=1, max_length=60)]
    family_name: Annotated[str, Field(min_length=1, max_length=60)]


def _stay_checks(
    ctx: ToolContext,
    *,
    offer_id: int,
    guests: list[GuestIn],
    email: str,
    phone: str,
    traveller_email: str = "",
    **_rest: Any,
) -> bool:
    services.stay_checked(
        actor=ctx.actor,
        offer_id=offer_id,
        guests=[guest.model_dump() for guest in guests],
        email=email,
        phone=phone,
        traveller_email=traveller_email,
    )
    return True


@tool(
    "prepareStayBooking",
    permission=TravelPerm.BOOK,
    title="Quote a stay offer",
    markers=Marker.HIGH_RISK,
    confirm_if=_stay_checks,
    open_world=True,
)
def prepare_stay_booking(
    ctx: ToolContext,
    *,
    offer_id: StayOfferId,
    guests: Annotated[
        list[GuestIn],
        Field(min_length=1, max_length=services.MAX_PASSENGERS, description="The lead guest first"),
    ],
    email: Annotated[str, Field(max_length=254, description="The lead guest's")],
    phone: Annotated[str, Field(max_length=30, description="The lead guest's, +44...")],
    expected_total: Money = None,
    traveller_email: Traveller = "",
) -> BookingOut:
    """Re-price a hotel rate as a quote, kept for a person to pay and book; flights: prepareFlightBooking."""
    booking = services.stay_prepare(
        actor=ctx.actor,
        offer_id=offer_id,
        guests=[guest.model_dump() for guest in guests],
        email=email,
        phone=phone,
        expected_total=expected_total,
        traveller_email=traveller_email,
    )
    return selectors.booking_out(ctx.actor, booking)


def _update_checks(ctx: ToolContext, *, booking_id: int, action: str, **_rest: Any) -> bool:
    services.booking_for_update(actor=ctx.actor, booking_id=booking_id, action=action)
    return action == "cancel"


@tool(
    "updateTravelBooking",
    permission=TravelPerm.BOOK,
    title="Update or cancel a travel booking",
    markers=Marker.HIGH_RISK,
    confirm_if=_update_checks,
    open_world=True,
)
def update_travel_booking(
    ctx: ToolContext,
    *,
    booking_id: Annotated[int, id_field("getTravelOverview")],
    action: Annotated[Literal["note", "cancel"], Field(description="cancel asks the person first")],
    note: Annotated[str, Field(max_length=500, description="Written on the booking")] = "",
) -> BookingOut:
    """Note on or cancel a held, quoted or paid booking; a cancellation answers the provider's refund."""
    booking = services.booking_update(actor=ctx.actor, booking_id=booking_id, action=action, note=note)
    return selectors.booking_out(ctx.actor, booking)
