"""Provider Travel Search's writes: what each search found, kept as snapshots with their expiry,
and options saved to a person's shortlist (re-checked with the provider first).

Everything a call can refuse is checked before the provider is asked; what the provider says is
kept in one transaction after it answered, so nothing is half-written."""

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

import pycountry
from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.core import clean
from apps.core.errors import invalid
from apps.core.records import Visibility
from apps.travel import api as flights
from apps.travelsearch import errors, providers
from apps.travelsearch.models import Kind, Offer, SavedItem
from apps.travelsearch.providers import Found, Place

logger = logging.getLogger(__name__)

# The Demand API's search limits: guests and rooms per search, nights per stay, how far ahead.
MAX_ADULTS = 30
MAX_ROOMS = 30
MAX_CHILDREN = 10
MAX_NIGHTS = 30
MAX_RENTAL_DAYS = 90
MAX_ACTIVITY_DAYS = 31
MAX_DAYS_AHEAD = 500
FLIGHT_SETTINGS = "ATRIUM_TRAVEL_PROVIDER (duffel) and ATRIUM_TRAVEL_DUFFEL_TOKEN (a Duffel access token)"
# Which tool finds (and which saves) each kind, for the errors that name them.
FINDS: dict[str, str] = {
    Kind.FLIGHT: "searchProviderFlights",
    Kind.PROPERTY: "searchProviderProperties",
    Kind.CAR: "searchProviderCars",
    Kind.ACTIVITY: "searchProviderActivities",
}
SAVES: dict[str, str] = {
    Kind.FLIGHT: "saveProviderFlight",
    Kind.PROPERTY: "saveProviderProperty",
    Kind.CAR: "saveProviderCar",
    Kind.ACTIVITY: "saveProviderActivity",
}


@dataclass
class Results:
    offers: list[Offer]
    next_page: str = ""


# --- values -------------------------------------------------------------------------------------


def currency(value: str) -> str:
    """The currency to search in (the workspace's when none is given): one of money, as every
    area keeps them (XXX, gold and the test code are not prices)."""
    return clean.currency(value.strip() or settings.ATRIUM_TRAVELSEARCH_CURRENCY)


def country(value: str, *, field: str = "country") -> str:
    """A country's two-letter code (lower case, as the Demand API takes it), from its code or name."""
    try:
        found = pycountry.countries.lookup((value or "").strip())
    except LookupError:
        raise invalid(field, _("{value!r} is no country (PT or Portugal)"), value=value) from None
    return str(found.alpha_2).lower()


def _ahead(day: date, *, field: str) -> None:
    today = timezone.localdate()
    if day < today:
        raise invalid(field, _("{day} is in the past"), day=day.isoformat())
    if day > today + timedelta(days=MAX_DAYS_AHEAD):
        raise invalid(
            field, _("{day} is more than {most} days ahead"), day=day.isoformat(), most=MAX_DAYS_AHEAD
        )


def span(start: date, end: date, *, fields: tuple[str, str], most: int, same_day: bool = False) -> None:
    """Dates from today on, the end after the start (or the same day), at most `most` days apart."""
    _ahead(start, field=fields[0])
    if end < start or (end == start and not same_day):
        raise invalid(fields[1], _("must be after {start}"), start=start.isoformat())
    if (end - start).days > most:
        raise invalid(
            fields[1], _("is more than {most} days after {start}"), most=most, start=start.isoformat()
        )


def guests(*, adults: int, children: Sequence[int] = (), rooms: int = 1) -> None:
    if not 1 <= adults <= MAX_ADULTS:
        raise invalid("adults", _("must be 1 to {most}"), most=MAX_ADULTS)
    if not 1 <= rooms <= MAX_ROOMS:
        raise invalid("rooms", _("must be 1 to {most}"), most=MAX_ROOMS)
    if rooms > adults:
        raise invalid(
            "rooms", _("each room needs an adult: {rooms} rooms for {adults}"), rooms=rooms, adults=adults
        )
    if len(children) > MAX_CHILDREN or any(not 0 <= age <= 17 for age in children):
        raise invalid("childrenAges", _("at most {most} children, each aged 0 to 17"), most=MAX_CHILDREN)


def place(
    provider: providers.Inventory | None,
    *,
    city: str = "",
    country_code: str = "",
    airport: str = "",
    latitude: float | None = None,
    longitude: float | None = None,
    radius_km: int = 5,
    prefix: str = "",
) -> Place:
    """Where a search looks: a city (with its country), an airport or coordinates; checked (an
    unknown IATA code or city refused) before anything is searched."""

    def name(field: str) -> str:
        return f"{prefix}{field[0].upper()}{field[1:]}" if prefix else field

    given = [bool(city), bool(airport), latitude is not None or longitude is not None]
    if sum(given) != 1:
        raise invalid(name("city"), _("give one of a city (with its country), an airport or coordinates"))
    if airport:
        return Place(airport=flights.airport(airport, field=name("airport")))
    if not city:
        if latitude is None or longitude is None:
            raise invalid(name("latitude"), _("latitude and longitude go together"))
        return Place(latitude=latitude, longitude=longitude, radius_km=radius_km)
    if not country_code:
        raise invalid("country", _("a city needs its country (two letters, PT)"))
    where = country(country_code)
    if city.strip().lstrip("-").isdigit():
        return Place(city=int(city.strip()))
    found = provider.city(name=city, country=where) if provider is not None else None
    if found is None:
        raise invalid(
            name("city"),
            _("no city named {city!r} in {country} at the provider"),
            city=city,
            country=where.upper(),
        )
    return Place(city=found)


def _inventory(tool: str) -> providers.Inventory:
    return providers.inventory(tool)


def _expiry() -> datetime:
    return timezone.now() + timedelta(minutes=settings.ATRIUM_TRAVELSEARCH_OFFER_MINUTES)


def _keep(
    actor: Any,
    kind: str,
    provider: str,
    found: list[Found],
    *,
    criteria: dict[str, Any],
    starts_on: date,
    ends_on: date | None,
    expires_at: datetime | None = None,
) -> list[Offer]:
    with transaction.atomic():
        return [
            Offer.objects.create(
                kind=kind,
                provider=provider,
                provider_id=item.id[:200],
                parent_id=item.parent_id[:200],
                title=item.title[:300],
                total=item.total,
                currency=item.currency,
                starts_on=item.starts_on or starts_on,
                ends_on=item.ends_on or ends_on,
                expires_at=expires_at or _expiry(),
                deep_link=item.deep_link,
                snapshot={"details": item.details, "criteria": criteria},
                created_by=actor,
            )
            for item in found
        ]


# --- searches -----------------------------------------------------------------------------------


def flights_search(
    *,
    actor: Any,
    origin: str,
    destination: str,
    departs_on: date,
    returns_on: date | None,
    adults: int,
    cabin: str,
    most: int,
) -> Results:
    """Flight prices through Flights and Stays' provider (Duffel), cheapest first, kept to compare."""
    origin = flights.airport(origin, field="origin")
    destination = flights.airport(destination, field="destination")
    if origin == destination:
        raise invalid("destination", _("is the same as the origin"))
    _ahead(departs_on, field="departureDate")
    if returns_on is not None and returns_on < departs_on:
        raise invalid("returnDate", _("must be on or after {start}"), start=departs_on.isoformat())
    if returns_on is not None:
        _ahead(returns_on, field="returnDate")
    if not 1 <= adults <= flights.MAX_PASSENGERS:
        raise invalid("adults", _("must be 1 to {most}"), most=flights.MAX_PASSENGERS)
    try:
        provider = flights.provider("searchProviderFlights")
    except flights.TravelNotConfigured:
        raise errors.NoFlightProvider(tool="searchProviderFlights", settings=FLIGHT_SETTINGS) from None
    slices = [{"origin": origin, "destination": destination, "departure_date": departs_on.isoformat()}]
    if returns_on is not None:
        slices.append(
            {"origin": destination, "destination": origin, "departure_date": returns_on.isoformat()}
        )
    found = provider.flight_offers(slices=slices, adults=adults, cabin=cabin, most=most)
    criteria = {"origin": origin, "destination": destination, "adults": adults, "cabin": cabin}
    with transaction.atomic():
        offers = []
        for offer in found:
            legs = " / ".join(f"{part['origin']}→{part['destination']}" for part in offer.slices)
            offers += _keep(
                actor,
                Kind.FLIGHT,
                provider.name,
                [
                    Found(
                        id=offer.id,
                        title=f"{offer.airline} {legs}".strip(),
                        total=offer.total,
                        currency=offer.currency,
                        details={
                            "airline": offer.airline,
                            "slices": offer.slices,
                            "conditions": offer.conditions,
                        },
                    )
                ],
                criteria=criteria,
                starts_on=departs_on,
                ends_on=returns_on or departs_on,
                expires_at=offer.expires_at,
            )
    return Results(offers)


def properties_search(
    *,
    actor: Any,
    where: dict[str, Any],
    checkin: date,
    checkout: date,
    adults: int,
    children: list[int],
    rooms: int,
    money_in: str,
    most: int,
    page: str = "",
) -> Results:
    span(checkin, checkout, fields=("checkInDate", "checkOutDate"), most=MAX_NIGHTS)
    guests(adults=adults, children=children, rooms=rooms)
    paid_in = currency(money_in)
    provider = _inventory("searchProviderProperties")
    located = place(provider, **where)
    found = provider.properties(
        place=located,
        checkin=checkin,
        checkout=checkout,
        adults=adults,
        children=children,
        rooms=rooms,
        currency=paid_in,
        most=most,
        page=page,
    )
    criteria = {"adults": adults, "children": children, "rooms": rooms, "currency": paid_in}
    offers = _keep(
        actor,
        Kind.PROPERTY,
        provider.name,
        found.items,
        criteria=criteria,
        starts_on=checkin,
        ends_on=checkout,
    )
    return Results(offers, found.next_page)


# The tool that reads a found result further, for each kind that has one.
READS: dict[str, str] = {
    Kind.PROPERTY: "getProviderPropertyDetails",
    Kind.ACTIVITY: "getProviderActivityOffers",
}


def _result(actor: Any, result_id: int, kind: str, tools: Mapping[str, str]) -> Offer:
    """The actor's result `result_id`, of `kind`; of another kind, WrongKind naming the tool of
    its own kind in `tools`."""
    offer = Offer.objects.fetch(actor, result_id)
    if offer.kind != kind:
        tool = tools.get(offer.kind) or SAVES[Kind(offer.kind)]
        raise errors.WrongKind(offer=offer.pk, kind=offer.get_kind_display(), tool=tool)
    return offer


def property_details(*, actor: Any, result_id: int) -> tuple[Offer, dict[str, Any], list[Offer]]:
    """A property found by a search: its details and its rooms' prices for the same stay, each
    room kept as a result of its own (to save)."""
    found = _result(actor, result_id, Kind.PROPERTY, READS)
    property_id = found.parent_id or found.provider_id
    criteria = found.snapshot.get("criteria") or {}
    if found.starts_on < timezone.localdate():
        raise errors.OfferExpired(
            offer=found.pk,
            found=found.created_at.isoformat(),
            expired=found.starts_on.isoformat(),
            tool=FINDS[Kind.PROPERTY],
        )
    provider = _inventory("getProviderPropertyDetails")
    about = provider.property_details(property_id)
    if about is None:
        raise errors.OfferGone(offer=found.pk, title=found.title, tool=FINDS[Kind.PROPERTY])
    products = provider.property_products(
        property_id=property_id,
        checkin=found.starts_on,
        checkout=found.ends_on or found.starts_on + timedelta(days=1),
        adults=int(criteria.get("adults") or 1),
        children=list(criteria.get("children") or []),
        rooms=int(criteria.get("rooms") or 1),
        currency=str(criteria.get("currency") or found.currency),
    )
    for product in products:
        product.title = f"{about.get('name') or found.title}: {product.title}"
    rooms = _keep(
        actor,
        Kind.PROPERTY,
        provider.name,
        products,
        criteria=criteria,
        starts_on=found.starts_on,
        ends_on=found.ends_on,
    )
    return found, about, rooms


def cars_search(
    *,
    actor: Any,
    pickup: dict[str, Any],
    dropoff: dict[str, Any] | None,
    pickup_at: datetime,
    dropoff_at: datetime,
    driver_age: int,
    money_in: str,
    most: int,
    page: str = "",
) -> Results:
    # The provider takes local times at the pick-up and the drop-off, without an offset: the
    # times are checked as they are sent (an offset given is not a zone of the place).
    pickup_at, dropoff_at = pickup_at.replace(tzinfo=None), dropoff_at.replace(tzinfo=None)
    _ahead(pickup_at.date(), field="pickupAt")
    if dropoff_at <= pickup_at:
        raise invalid("dropoffAt", _("must be after the pick-up"))
    if (dropoff_at - pickup_at).days > MAX_RENTAL_DAYS:
        raise invalid("dropoffAt", _("is more than {most} days after the pick-up"), most=MAX_RENTAL_DAYS)
    if not 18 <= driver_age <= 99:
        raise invalid("driverAge", _("must be 18 to 99"))
    paid_in = currency(money_in)
    provider = _inventory("searchProviderCars")
    start = place(provider, prefix="pickup", **pickup)
    end = place(provider, prefix="dropoff", **dropoff) if dropoff else start
    found = provider.cars(
        pickup=start,
        dropoff=end,
        pickup_at=pickup_at.isoformat(timespec="seconds"),
        dropoff_at=dropoff_at.isoformat(timespec="seconds"),
        driver_age=driver_age,
        currency=paid_in,
        most=most,
        page=page,
    )
    criteria = {
        "pickupAt": pickup_at.isoformat(),
        "dropoffAt": dropoff_at.isoformat(),
        "driverAge": driver_age,
        "currency": paid_in,
    }
    if found.token:  # what reads one of its offers again (/cars/availability)
        criteria["searchToken"] = found.token
    offers = _keep(
        actor,
        Kind.CAR,
        provider.name,
        found.items,
        criteria=criteria,
        starts_on=pickup_at.date(),
        ends_on=dropoff_at.date(),
    )
    return Results(offers, found.next_page)


def activities_search(
    *, actor: Any, where: dict[str, Any], start: date, end: date, money_in: str, most: int, page: str = ""
) -> Results:
    span(start, end, fields=("startDate", "endDate"), most=MAX_ACTIVITY_DAYS, same_day=True)
    paid_in = currency(money_in)
    provider = _inventory("searchProviderActivities")
    located = place(provider, **where)
    found = provider.activities(place=located, start=start, end=end, currency=paid_in, most=most, page=page)
    criteria = {"currency": paid_in, "endDate": end.isoformat()}
    offers = _keep(
        actor, Kind.ACTIVITY, provider.name, found.items, criteria=criteria, starts_on=start, ends_on=end
    )
    return Results(offers, found.next_page)


def activity_offers(
    *, actor: Any, result_id: int, start: date | None, end: date | None
) -> tuple[Offer, dict[str, Any], list[Offer]]:
    """An activity found by a search: its details and its offer (price from) for two days and
    those between."""
    found = _result(actor, result_id, Kind.ACTIVITY, READS)
    criteria = found.snapshot.get("criteria") or {}
    start = start or max(found.starts_on, timezone.localdate())
    end = end or (found.ends_on if found.ends_on and found.ends_on >= start else start)
    span(start, end, fields=("startDate", "endDate"), most=MAX_ACTIVITY_DAYS, same_day=True)
    provider = _inventory("getProviderActivityOffers")
    about, dated = provider.activity_offers(
        activity_id=found.parent_id or found.provider_id,
        start=start,
        end=end,
        currency=str(criteria.get("currency") or found.currency),
    )
    if about is None:
        raise errors.OfferGone(offer=found.pk, title=found.title, tool=FINDS[Kind.ACTIVITY])
    kept = _keep(actor, Kind.ACTIVITY, provider.name, dated, criteria=criteria, starts_on=start, ends_on=end)
    return found, about, kept


# --- saving -------------------------------------------------------------------------------------


def saved_checked(*, actor: Any, offer_id: int, kind: str) -> Offer:
    """The result to save, as kept: the caller's, of the kind, not past its expiry."""
    offer = _result(actor, offer_id, kind, SAVES)
    if offer.expires_at <= timezone.now():
        raise errors.OfferExpired(
            offer=offer.pk,
            found=offer.created_at.isoformat(timespec="minutes"),
            expired=offer.expires_at.isoformat(timespec="minutes"),
            tool=FINDS[Kind(kind)],
        )
    return offer


def _recheck(offer: Offer) -> Found | None:
    """The result as the provider offers it now (None: the provider no longer has it). A car
    offer is read again with its search's `search_token`; one kept without it (found before the
    token was kept) is held to its kept expiry alone."""
    if offer.kind == Kind.FLIGHT:
        try:
            now = flights.provider(SAVES[Kind.FLIGHT]).flight_offer(offer.provider_id)
        except flights.TravelProviderRefused:
            return None
        except flights.TravelNotConfigured:
            raise errors.NoFlightProvider(tool=SAVES[Kind.FLIGHT], settings=FLIGHT_SETTINGS) from None
        if now.expires_at <= timezone.now():
            raise errors.OfferExpired(
                offer=offer.pk,
                found=offer.created_at.isoformat(timespec="minutes"),
                expired=now.expires_at.isoformat(timespec="minutes"),
                tool=FINDS[Kind.FLIGHT],
            )
        return Found(id=now.id, title=offer.title, total=now.total, currency=now.currency)
    criteria = offer.snapshot.get("criteria") or {}
    if offer.kind == Kind.PROPERTY:
        products = _inventory(SAVES[Kind.PROPERTY]).property_products(
            property_id=offer.parent_id or offer.provider_id,
            checkin=offer.starts_on,
            checkout=offer.ends_on or offer.starts_on + timedelta(days=1),
            adults=int(criteria.get("adults") or 1),
            children=list(criteria.get("children") or []),
            rooms=int(criteria.get("rooms") or 1),
            currency=offer.currency,
        )
        if not offer.parent_id:  # a property as searched: its cheapest room now
            return min(products, key=lambda item: item.total, default=None)
        return next((item for item in products if item.id == offer.provider_id), None)
    if offer.kind == Kind.ACTIVITY and offer.parent_id:
        about, dated = _inventory(SAVES[Kind.ACTIVITY]).activity_offers(
            activity_id=offer.parent_id,
            start=offer.starts_on,
            end=offer.ends_on or offer.starts_on,
            currency=offer.currency,
        )
        return next((item for item in dated if item.id == offer.provider_id), None) if about else None
    provider = _inventory(SAVES[Kind(offer.kind)])
    if offer.kind == Kind.CAR and criteria.get("searchToken"):
        try:
            return provider.car_offer(
                offer_id=offer.provider_id, search_token=str(criteria["searchToken"]), currency=offer.currency
            )
        except (errors.ProviderKeyRefused, errors.ProviderHttpError) as closed:
            # /cars/availability is open only to some accounts (3.2's car pilot): where it is
            # forbidden or absent, the offer is held to its kept expiry, as before it existed.
            if closed.data.get("status") not in (403, 404):
                raise
            logger.info("car offers cannot be re-checked on this account (%s)", closed.data["status"])
    return Found(id=offer.provider_id, title=offer.title, total=offer.total, currency=offer.currency)


def save(*, actor: Any, offer_id: int, kind: str, note: str = "", shared: bool | None = None) -> SavedItem:
    """The result saved to the actor's shortlist (theirs alone unless `shared`), its price as the
    provider gives it now; saved again, its price is updated, and its note and sharing when they
    are given (saved again without them, those kept stay)."""
    offer = saved_checked(actor=actor, offer_id=offer_id, kind=kind)
    note = clean.text(note, field="note", limit=500)
    kept = SavedItem.objects.filter(owner=actor, offer=offer).first()
    note = note or (kept.note if kept else "")
    if shared is None:
        visibility = kept.visibility if kept else Visibility.PRIVATE
    else:
        visibility = Visibility.WORKSPACE if shared else Visibility.PRIVATE
    now = _recheck(offer)
    if now is None:
        raise errors.OfferGone(offer=offer.pk, title=offer.title, tool=FINDS[Kind(kind)])
    snapshot = {**offer.snapshot, "priceWhenFound": str(offer.total)}
    values = {
        "kind": offer.kind,
        "provider": offer.provider,
        "provider_id": offer.provider_id,
        "title": offer.title,
        "total": now.total,
        "currency": now.currency or offer.currency,
        "starts_on": offer.starts_on,
        "ends_on": offer.ends_on,
        "expires_at": offer.expires_at,
        "deep_link": offer.deep_link,
        "snapshot": snapshot,
        "note": note,
        "visibility": visibility,
    }
    with transaction.atomic():
        item, _made = SavedItem.objects.update_or_create(
            owner=actor, offer=offer, defaults=values, create_defaults={**values, "created_by": actor}
        )
    return item
