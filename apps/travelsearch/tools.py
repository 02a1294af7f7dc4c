"""Provider Travel Search's tools (SPEC 4.7): getProviderSummary is the area's MANDATORY FIRST
CALL. Searches compare prices at the providers and keep each result as a snapshot with its expiry;
the save tools put one on the caller's shortlist. Nothing is booked here (holding a flight or
quoting a hotel is Flights and Stays'). Thin doors onto services and selectors."""

from datetime import date, datetime
from typing import Annotated, Any, Literal

from django.utils.translation import gettext as _
from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import Marker, tool
from apps.catalogue.shapes import Out, id_field
from apps.travel import api as flights
from apps.travelsearch import providers, selectors, services
from apps.travelsearch.permissions import TravelSearchPerm
from apps.travelsearch.shapes import ResultOut, ResultsOut, SavedOut

City = Annotated[str, Field(max_length=100, description="City name, with country")]
Country = Annotated[str, Field(max_length=60, description="The city's, e.g. PT or Portugal")]
Airport = Annotated[str, Field(max_length=3, description="IATA code, e.g. LIS")]
Lat = Annotated[float | None, Field(ge=-90, le=90, description="Degrees, with longitude")]
Lon = Annotated[float | None, Field(ge=-180, le=180, description="Degrees, east positive")]
Currency = Annotated[str, Field(max_length=3, description="ISO code; default the workspace's")]
PageToken = Annotated[str, Field(max_length=500, description="nextPageToken of the previous call")]
Most = Annotated[int, Field(ge=1, le=20, description="Results per page")]
Note = Annotated[str, Field(max_length=500, description="Why it is kept, for people")]
Shared = Annotated[
    bool | None, Field(description="true: the workspace sees it; false: only you; omitted: unchanged")
]


class SummaryOut(Out):
    providers: dict[str, str] = Field(description="Each kind's provider, or what an administrator sets")
    saved: list[SavedOut] = Field(description="Your shortlist and what others shared")
    rules: list[str]


def _not_set(settings_named: str) -> str:
    return _("not configured: an administrator sets {settings} in the environment").format(
        settings=settings_named
    )


@tool(
    "getProviderSummary",
    permission=TravelSearchPerm.VIEW,
    title="Travel search summary",
    markers=Marker.MANDATORY_FIRST_CALL,
    read_only=True,
)
def get_provider_summary(ctx: ToolContext) -> SummaryOut:
    """Call first: which travel search providers are set, and the saved travel shortlist."""
    inventory = providers.configured() or _not_set(providers.SETTINGS)
    return SummaryOut(
        providers={
            "flights": flights.configured() or _not_set(services.FLIGHT_SETTINGS),
            "properties": inventory,
            "cars": inventory,
            "activities": inventory,
        },
        saved=[selectors.saved_out(item) for item in selectors.saved(ctx.actor)],
        rules=[
            _("Prices include taxes and mandatory fees; each is held only until its expiresAt."),
            _("Nothing is booked here: a person books on the providerPage."),
        ],
    )


def _results(found: services.Results) -> ResultsOut:
    return ResultsOut(
        results=[selectors.result_out(offer) for offer in found.offers], next_page_token=found.next_page
    )


@tool(
    "searchProviderFlights",
    permission=TravelSearchPerm.SEARCH,
    title="Compare flight prices",
    open_world=True,
)
def search_provider_flights(
    ctx: ToolContext,
    *,
    origin: Airport,
    destination: Airport,
    departure_date: Annotated[date, Field(description="Local date of departure")],
    return_date: Annotated[date | None, Field(description="Omit for one way")] = None,
    adults: Annotated[int, Field(ge=1, le=flights.MAX_PASSENGERS, description="Passengers, 18 or over")] = 1,
    cabin_class: Annotated[
        Literal["", "economy", "premium_economy", "business", "first"], Field(description="Default: any")
    ] = "",
    max_results: Most = 10,
) -> ResultsOut:
    """Compare flight prices for a trip shortlist, no booking; to hold a fare, findFlightOffers."""
    return _results(
        services.flights_search(
            actor=ctx.actor,
            origin=origin,
            destination=destination,
            departs_on=departure_date,
            returns_on=return_date,
            adults=adults,
            cabin=cabin_class,
            most=max_results,
        )
    )


@tool(
    "searchProviderProperties", permission=TravelSearchPerm.SEARCH, title="Search properties", open_world=True
)
def search_provider_properties(
    ctx: ToolContext,
    *,
    check_in_date: Annotated[date, Field(description="First night")],
    check_out_date: Annotated[date, Field(description="Day of leaving")],
    city: City = "",
    country: Country = "",
    airport: Airport = "",
    latitude: Lat = None,
    longitude: Lon = None,
    radius_km: Annotated[int, Field(ge=1, le=50, description="Around the point, in km")] = 5,
    adults: Annotated[int, Field(ge=1, le=services.MAX_ADULTS, description="Guests 18 or over")] = 1,
    children_ages: Annotated[
        list[int], Field(max_length=services.MAX_CHILDREN, description="Each child's age")
    ] = [],  # noqa: B006
    rooms: Annotated[int, Field(ge=1, le=services.MAX_ROOMS, description="Rooms wanted")] = 1,
    currency: Currency = "",
    max_results: Most = 10,
    page_token: PageToken = "",
) -> ResultsOut:
    """Search Booking.com hotels, apartments and properties in a city, near an airport or a point."""
    return _results(
        services.properties_search(
            actor=ctx.actor,
            where={
                "city": city,
                "country_code": country,
                "airport": airport,
                "latitude": latitude,
                "longitude": longitude,
                "radius_km": radius_km,
            },
            checkin=check_in_date,
            checkout=check_out_date,
            adults=adults,
            children=children_ages,
            rooms=rooms,
            money_in=currency,
            most=max_results,
            page=page_token,
        )
    )


class PropertyOut(Out):
    property: ResultOut
    details: dict[str, Any] = Field(description="Description, address, facilities, photos, policies")
    rooms: list[ResultOut] = Field(description="Each room's price for the stay searched")


@tool(
    "getProviderPropertyDetails",
    permission=TravelSearchPerm.SEARCH,
    title="Property details and rooms",
    open_world=True,
)
def get_provider_property_details(
    ctx: ToolContext, *, result_id: Annotated[int, id_field("searchProviderProperties")]
) -> PropertyOut:
    """A found property's details, facilities, policies and room prices for the stay searched."""
    found, about, rooms = services.property_details(actor=ctx.actor, result_id=result_id)
    return PropertyOut(
        property=selectors.result_out(found),
        details=about,
        rooms=[selectors.result_out(room) for room in rooms],
    )


@tool("searchProviderCars", permission=TravelSearchPerm.SEARCH, title="Search rental cars", open_world=True)
def search_provider_cars(
    ctx: ToolContext,
    *,
    pickup_at: Annotated[datetime, Field(description="Local time at the pick-up")],
    dropoff_at: Annotated[datetime, Field(description="Local time at the drop-off")],
    pickup_airport: Airport = "",
    pickup_city: City = "",
    country: Country = "",
    dropoff_airport: Annotated[str, Field(max_length=3, description="Default: the pick-up")] = "",
    driver_age: Annotated[int, Field(ge=18, le=99, description="Youngest driver's age")] = 30,
    currency: Currency = "",
    max_results: Most = 10,
    page_token: PageToken = "",
) -> ResultsOut:
    """Search car rental offers: pick-up and drop-off place and time, driver's age."""
    return _results(
        services.cars_search(
            actor=ctx.actor,
            pickup={"airport": pickup_airport, "city": pickup_city, "country_code": country},
            dropoff={"airport": dropoff_airport} if dropoff_airport else None,
            pickup_at=pickup_at,
            dropoff_at=dropoff_at,
            driver_age=driver_age,
            money_in=currency,
            most=max_results,
            page=page_token,
        )
    )


@tool(
    "searchProviderActivities",
    permission=TravelSearchPerm.SEARCH,
    title="Search activities",
    open_world=True,
)
def search_provider_activities(
    ctx: ToolContext,
    *,
    start_date: Annotated[date, Field(description="First day")],
    end_date: Annotated[date, Field(description="Last day, at most 31 after")],
    city: City = "",
    country: Country = "",
    latitude: Lat = None,
    longitude: Lon = None,
    currency: Currency = "",
    max_results: Most = 10,
    page_token: PageToken = "",
) -> ResultsOut:
    """Search attractions, tours and things to do in a city between two dates, prices from."""
    return _results(
        services.activities_search(
            actor=ctx.actor,
            where={"city": city, "country_code": country, "latitude": latitude, "longitude": longitude},
            start=start_date,
            end=end_date,
            money_in=currency,
            most=max_results,
            page=page_token,
        )
    )


class ActivityOut(Out):
    activity: ResultOut
    details: dict[str, Any]
    offers: list[ResultOut] = Field(description="The offer for the dates: the price from")


@tool(
    "getProviderActivityOffers",
    permission=TravelSearchPerm.SEARCH,
    title="Activity dates and prices",
    open_world=True,
)
def get_provider_activity_offers(
    ctx: ToolContext,
    *,
    result_id: Annotated[int, id_field("searchProviderActivities")],
    start_date: Annotated[date | None, Field(description="Default: the search's")] = None,
    end_date: Annotated[date | None, Field(description="Last day")] = None,
) -> ActivityOut:
    """A found activity's details and its offer for chosen days: dates and ticket price from, to save."""
    found, about, offers = services.activity_offers(
        actor=ctx.actor, result_id=result_id, start=start_date, end=end_date
    )
    return ActivityOut(
        activity=selectors.result_out(found), details=about, offers=[selectors.result_out(o) for o in offers]
    )


def _save(ctx: ToolContext, kind: str, result_id: int, note: str, shared: bool | None) -> SavedOut:
    return selectors.saved_out(
        services.save(actor=ctx.actor, offer_id=result_id, kind=kind, note=note, shared=shared)
    )


@tool(
    "saveProviderFlight",
    permission=TravelSearchPerm.SEARCH,
    title="Save a flight to the shortlist",
    idempotent=True,
    open_world=True,
)
def save_provider_flight(
    ctx: ToolContext,
    *,
    result_id: Annotated[int, id_field("searchProviderFlights")],
    note: Note = "",
    shared: Shared = None,
) -> SavedOut:
    """Save a compared flight price to the travel shortlist, re-checked first."""
    return _save(ctx, "flight", result_id, note, shared)


@tool(
    "saveProviderProperty",
    permission=TravelSearchPerm.SEARCH,
    title="Save a property to the shortlist",
    idempotent=True,
    open_world=True,
)
def save_provider_property(
    ctx: ToolContext,
    *,
    result_id: Annotated[int, id_field("searchProviderProperties")],
    note: Note = "",
    shared: Shared = None,
) -> SavedOut:
    """Save a found property or one of its rooms to the travel shortlist, re-checked first."""
    return _save(ctx, "property", result_id, note, shared)


@tool(
    "saveProviderCar",
    permission=TravelSearchPerm.SEARCH,
    title="Save a rental car to the shortlist",
    idempotent=True,
)
def save_provider_car(
    ctx: ToolContext,
    *,
    result_id: Annotated[int, id_field("searchProviderCars")],
    note: Note = "",
    shared: Shared = None,
) -> SavedOut:
    """Save a found car rental offer to the travel shortlist while its price holds."""
    return _save(ctx, "car", result_id, note, shared)


@tool(
    "saveProviderActivity",
    permission=TravelSearchPerm.SEARCH,
    title="Save an activity to the shortlist",
    idempotent=True,
    open_world=True,
)
def save_provider_activity(
    ctx: ToolContext,
    *,
    result_id: Annotated[int, id_field("getProviderActivityOffers")],
    note: Note = "",
    shared: Shared = None,
) -> SavedOut:
    """Save an activity or one of its dated offers to the travel shortlist, re-checked first."""
    return _save(ctx, "activity", result_id, note, shared)
