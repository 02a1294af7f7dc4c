"""The inventory providers of Provider Travel Search, behind one small interface (`Inventory`),
with the adapter that speaks the Booking.com Demand API (v3: JSON, `POST` for every endpoint, a
Bearer token and the `X-Affiliate-Id` header, pages through a `page` token): properties
(`/accommodations/search`, `/accommodations/details`, `/accommodations/availability`), cars
(`/cars/search`), attractions (`/attractions/search`, `/attractions/details`,
`/attractions/availability`) and cities (`/common/locations/cities`). Flights are Flights and
Stays' provider (apps.travel.api). Answers are read into the area's own shapes; the provider's
words reach the caller only as the `reason` of ProviderRefused."""

import functools
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal, InvalidOperation
from typing import Any, Protocol, TypeVar

import httpx
from django.conf import settings

from apps.core import outbound
from apps.integrations.api import setting
from apps.travelsearch import errors

logger = logging.getLogger(__name__)

BOOKING = "booking.com"
SETTINGS = (
    "ATRIUM_TRAVELSEARCH_PROVIDER (booking), ATRIUM_TRAVELSEARCH_BOOKING_TOKEN and "
    "ATRIUM_TRAVELSEARCH_BOOKING_AFFILIATE_ID (the Demand API's token and affiliate id)"
)


@dataclass
class Found:
    """One result: the provider's id, what a person compares, the total with mandatory fees."""

    id: str
    title: str
    total: Decimal
    currency: str
    deep_link: str = ""
    parent_id: str = ""
    starts_on: date | None = None
    ends_on: date | None = None
    details: dict[str, Any] = field(default_factory=dict)


@dataclass
class Page:
    items: list[Found]
    next_page: str = ""
    # The Demand API's `search_token` of a car search: what reads one of its offers again.
    token: str = ""


@dataclass
class Place:
    """Where: a Booking.com city id, an airport's IATA code, or coordinates with a radius."""

    city: int | None = None
    airport: str = ""
    latitude: float | None = None
    longitude: float | None = None
    radius_km: int = 5

    def demand(self) -> dict[str, Any]:
        """For /accommodations/search: `city`, `airport` or `coordinates` with a `radius` (km)."""
        if self.city is not None:
            return {"city": self.city}
        if self.airport:
            return {"airport": self.airport}
        return {
            "coordinates": {"latitude": self.latitude, "longitude": self.longitude, "radius": self.radius_km}
        }

    def car(self) -> dict[str, Any]:
        """A /cars/search route point's `location`: exactly one of `airport`, `city` or
        `coordinates` (latitude and longitude, no radius)."""
        if self.city is not None:
            return {"city": self.city}
        if self.airport:
            return {"airport": self.airport}
        return {"coordinates": {"latitude": self.latitude, "longitude": self.longitude}}

    def attractions(self, provider: str) -> dict[str, Any]:
        """For /attractions/search: `cities` (a list) or `coordinates` with a `radius` (km); the
        Demand API has no airport search for attractions."""
        if self.city is not None:
            return {"cities": [self.city]}
        if self.airport:
            raise errors.ProviderRefused(
                provider=provider, reason="attractions are searched by city or coordinates"
            )
        return {
            "coordinates": {"latitude": self.latitude, "longitude": self.longitude, "radius": self.radius_km}
        }


class Inventory(Protocol):
    name: str

    def city(self, *, name: str, country: str) -> int | None: ...
    def properties(
        self,
        *,
        place: Place,
        checkin: date,
        checkout: date,
        adults: int,
        children: list[int],
        rooms: int,
        currency: str,
        most: int,
        page: str,
    ) -> Page: ...
    def property_details(self, property_id: str) -> dict[str, Any] | None: ...
    def property_products(
        self,
        *,
        property_id: str,
        checkin: date,
        checkout: date,
        adults: int,
        children: list[int],
        rooms: int,
        currency: str,
    ) -> list[Found]: ...
    def cars(
        self,
        *,
        pickup: Place,
        dropoff: Place,
        pickup_at: str,
        dropoff_at: str,
        driver_age: int,
        currency: str,
        most: int,
        page: str,
    ) -> Page: ...
    def car_offer(self, *, offer_id: str, search_token: str, currency: str) -> Found | None: ...
    def activities(
        self, *, place: Place, start: date, end: date, currency: str, most: int, page: str
    ) -> Page: ...
    def activity_offers(
        self, *, activity_id: str, start: date, end: date, currency: str
    ) -> tuple[dict[str, Any] | None, list[Found]]: ...


def money(value: Any, provider: str) -> Decimal:
    try:
        amount = Decimal(str(value))
    except (InvalidOperation, ValueError):
        raise errors.ProviderNotJson(provider=provider) from None
    if not amount.is_finite() or amount < 0:
        raise errors.ProviderNotJson(provider=provider)
    return amount.quantize(Decimal("0.01"))


Read = TypeVar("Read", bound=Callable[..., Any])


def _read(method: Read) -> Read:
    """An answer of another shape than the Demand API's (a list where an object is, text where a
    map is) read as what it is, an answer not of the expected JSON, rather than a failure of ours."""

    @functools.wraps(method)
    def reading(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except (AttributeError, KeyError, TypeError, ValueError):
            raise errors.ProviderNotJson(provider=self.name) from None

    return reading  # type: ignore[return-value]


def _text(value: Any, most: int = 300) -> str:
    """A provider's text, which may be a translation map ({"en-gb": "..."})."""
    if isinstance(value, dict):
        value = value.get("en-gb") or value.get("en-us") or next(iter(value.values()), "")
    return str(value or "")[:most]


def _guests(adults: int, children: list[int], rooms: int) -> dict[str, Any]:
    guests: dict[str, Any] = {"number_of_adults": adults, "number_of_rooms": rooms}
    if children:
        guests["children"] = children
    return guests


def _link(value: Any) -> str:
    """A web address the Demand API gives: a string (`url` of a search result), a `{web, app}`
    object (`url` of details and cars) or `{web: {detail}}` (`urls` of attractions)."""
    if isinstance(value, dict):
        value = value.get("web") or ""
        if isinstance(value, dict):
            value = value.get("detail") or ""
    link = str(value or "")
    return link[:2000] if link.startswith(("https://", "http://")) else ""


def _rows(most: int, cap: int) -> int:
    """`rows` / `maximum_results`: the Demand API takes a multiple of 10, from 10 to `cap`."""
    return min(cap, max(10, -(-most // 10) * 10))


def _id(value: str) -> int | str:
    return int(value) if value.lstrip("-").isdigit() else value


class Demand:
    """The Booking.com Demand API 3.2 (properties, cars) and 3.2-Beta (attractions, car
    availability)."""

    name = BOOKING

    def __init__(
        self, *, token: str, affiliate_id: str, url: str, timeout: int, booker_country: str, language: str
    ) -> None:
        self.token, self.affiliate_id, self.url = token, affiliate_id, url.rstrip("/")
        self.timeout, self.booker_country, self.language = timeout, booker_country, language

    def _booker(self) -> dict[str, str]:
        return {"country": self.booker_country, "platform": "desktop"}

    def _call(self, path: str, body: dict[str, Any]) -> Any:
        outbound.reached("travel search provider")
        try:
            answer = httpx.post(
                f"{self.url}{path}",
                json=body,
                headers={
                    "Authorization": f"Bearer {self.token}",
                    "X-Affiliate-Id": self.affiliate_id,
                    "Accept": "application/json",
                },
                timeout=self.timeout,
                trust_env=False,
            )
        except httpx.TimeoutException:
            logger.warning("demand api timed out on %s", path)
            raise errors.ProviderTimedOut(provider=self.name, seconds=self.timeout) from None
        except httpx.HTTPError as error:
            logger.warning("demand api unreachable (%s)", type(error).__name__)
            raise errors.ProviderUnreachable(provider=self.name, kind=type(error).__name__) from None
        if answer.status_code in (401, 403):
            raise errors.ProviderKeyRefused(provider=self.name, status=answer.status_code)
        try:
            data = answer.json()
        except ValueError:
            data = None
        if answer.status_code in (400, 404, 422) and isinstance(data, dict) and data.get("errors"):
            first = data["errors"][0] if isinstance(data["errors"], list) and data["errors"] else {}
            reason = str(first.get("message") or first.get("id") or first.get("code") or "")[:300]
            raise errors.ProviderRefused(provider=self.name, reason=reason or str(answer.status_code))
        if answer.status_code != 200:
            logger.warning("demand api answered %s on %s", answer.status_code, path)
            raise errors.ProviderHttpError(provider=self.name, status=answer.status_code)
        if not isinstance(data, dict) or "data" not in data:
            raise errors.ProviderNotJson(provider=self.name)
        return data

    def _paged(
        self, body: dict[str, Any], most: int, page: str, *, key: str = "rows", cap: int = 100
    ) -> dict[str, Any]:
        # A next page is asked with the same criteria and the `page` token of `metadata.next_page`
        # (the criteria the specification marks required stay required).
        body[key] = _rows(most, cap)
        if page:
            body["page"] = page
        return body

    def _list(self, data: dict[str, Any]) -> list[dict[str, Any]]:
        items = data.get("data")
        if not isinstance(items, list) or not all(isinstance(item, dict) for item in items):
            raise errors.ProviderNotJson(provider=self.name)
        return items

    @staticmethod
    def _next(data: dict[str, Any]) -> str:
        metadata = data.get("metadata")
        return str((metadata.get("next_page") if isinstance(metadata, dict) else "") or "")

    @_read
    def city(self, *, name: str, country: str) -> int | None:
        data = self._call("/common/locations/cities", {"country": country, "languages": [self.language]})
        wanted = name.strip().casefold()
        for item in self._list(data):
            if _text(item.get("name")).casefold() == wanted and item.get("id") is not None:
                try:
                    return int(item["id"])
                except (TypeError, ValueError):
                    raise errors.ProviderNotJson(provider=self.name) from None
        return None

    def _city_names(self, ids: set[Any]) -> dict[Any, str]:
        """The names of Booking.com city ids (details give a city as its id), one call per city:
        `/common/locations/cities` takes one `city`."""
        names: dict[Any, str] = {}
        for city in sorted(i for i in ids if isinstance(i, int)):
            data = self._call("/common/locations/cities", {"city": city, "languages": [self.language]})
            for item in self._list(data):
                names[item.get("id")] = _text(item.get("name"), 100)
        return names

    def _accommodations(self, ids: list[str], extras: list[str]) -> dict[str, dict[str, Any]]:
        if not ids:
            return {}
        data = self._call(
            "/accommodations/details",
            {"accommodations": [_id(i) for i in ids], "extras": extras, "languages": [self.language]},
        )
        return {str(item.get("id")): item for item in self._list(data)}

    def _amount(self, price: Any, part: str) -> tuple[Decimal, bool] | None:
        """An accommodation price part (`total`, `base`): {accommodation_currency, booker_currency};
        the booker's when there (the currency asked), else the property's. None: not given."""
        amounts = price.get(part) if isinstance(price, dict) else None
        if not isinstance(amounts, dict):
            return None
        booker = amounts.get("booker_currency")
        value = booker if booker is not None else amounts.get("accommodation_currency")
        if value is None:
            return None
        return money(value, self.name), booker is not None

    def _stay_price(self, item: dict[str, Any], currencies: Any, asked: str) -> tuple[Decimal, str, str]:
        """What a stay costs in all (`price.total`: taxes and mandatory charges included; `base`
        leaves them out), its currency, and the base as text."""
        total = self._amount(item.get("price"), "total")
        if total is None:
            raise errors.ProviderNotJson(provider=self.name)
        amount, in_booker = total
        currencies = currencies if isinstance(currencies, dict) else {}
        paid_in = str(currencies.get("booker" if in_booker else "accommodation") or asked)[:3]
        base = self._amount(item.get("price"), "base")
        return amount, paid_in, str(base[0]) if base else ""

    @_read
    def properties(
        self,
        *,
        place: Place,
        checkin: date,
        checkout: date,
        adults: int,
        children: list[int],
        rooms: int,
        currency: str,
        most: int,
        page: str,
    ) -> Page:
        body = {
            "booker": self._booker(),
            "checkin": checkin.isoformat(),
            "checkout": checkout.isoformat(),
            "guests": _guests(adults, children, rooms),
            "currency": currency,
            "extras": ["extra_charges"],
            **place.demand(),
        }
        data = self._call("/accommodations/search", self._paged(body, most, page))
        items = self._list(data)[:most]
        named = self._accommodations([str(i.get("id")) for i in items], [])
        cities = self._city_names({(about.get("location") or {}).get("city") for about in named.values()})
        found = []
        for item in items:
            total, paid_in, base = self._stay_price(item, item.get("currency"), currency)
            about = named.get(str(item.get("id")), {})
            found.append(
                Found(
                    id=str(item.get("id")),
                    title=_text(about.get("name")) or f"Property {item.get('id')}",
                    total=total,
                    currency=paid_in,
                    deep_link=_link(item.get("url")) or _link(about.get("url")),
                    details={
                        "city": cities.get((about.get("location") or {}).get("city"), ""),
                        "stars": (about.get("rating") or {}).get("stars"),
                        "reviewScore": (about.get("rating") or {}).get("review_score"),
                        "priceBeforeCharges": base,
                    },
                )
            )
        return Page(found, self._next(data))

    def _facility_names(self) -> dict[Any, str]:
        data = self._call(
            "/accommodations/constants",
            {"constants": ["accommodation_facilities"], "languages": [self.language]},
        )
        constants = data.get("data")
        facilities = constants.get("accommodation_facilities") if isinstance(constants, dict) else None
        if not isinstance(facilities, list):
            raise errors.ProviderNotJson(provider=self.name)
        return {f.get("id"): _text(f.get("name"), 80) for f in facilities if isinstance(f, dict)}

    @_read
    def property_details(self, property_id: str) -> dict[str, Any] | None:
        about = self._accommodations([property_id], ["description", "facilities", "photos", "policies"]).get(
            property_id
        )
        if about is None:
            return None
        location = about.get("location") or {}
        facilities = [f for f in about.get("facilities") or [] if isinstance(f, dict)]
        names = self._facility_names() if facilities else {}
        description = about.get("description")
        description = description if isinstance(description, dict) else {}
        return {
            "name": _text(about.get("name")),
            "description": _text(description.get("text"), 2000),
            "address": _text(location.get("address"), 300),
            "city": self._city_names({location.get("city")}).get(location.get("city"), ""),
            "coordinates": location.get("coordinates") or {},
            "stars": (about.get("rating") or {}).get("stars"),
            "reviewScore": (about.get("rating") or {}).get("review_score"),
            "facilities": [names.get(f.get("id")) or str(f.get("id")) for f in facilities][:30],
            "photos": [
                str((photo.get("url") or {}).get("large") or "")
                for photo in about.get("photos") or []
                if isinstance(photo, dict)
            ][:10],
            "policies": about.get("policies") or {},
            "url": _link(about.get("url")),
        }

    @_read
    def property_products(
        self,
        *,
        property_id: str,
        checkin: date,
        checkout: date,
        adults: int,
        children: list[int],
        rooms: int,
        currency: str,
    ) -> list[Found]:
        data = self._call(
            "/accommodations/availability",
            {
                "accommodations": [_id(property_id)],
                "booker": self._booker(),
                "checkin": checkin.isoformat(),
                "checkout": checkout.isoformat(),
                "guests": _guests(adults, children, rooms),
                "currency": currency,
                "extras": ["extra_charges"],
            },
        )
        place = next((item for item in self._list(data) if str(item.get("id")) == property_id), None)
        if place is None:  # no product left for the stay
            return []
        products = place.get("products") or []
        if not isinstance(products, list) or not all(isinstance(p, dict) and p.get("id") for p in products):
            raise errors.ProviderNotJson(provider=self.name)
        # A product names its room by id; the room's name is in the property's details.
        about = self._accommodations([property_id], ["rooms"]).get(property_id, {}) if products else {}
        room_names = {
            str(r.get("id")): _text(r.get("name"), 150)
            for r in about.get("rooms") or []
            if isinstance(r, dict)
        }
        found = []
        for product in products:
            total, paid_in, base = self._stay_price(product, place.get("currency"), currency)
            policies = product.get("policies") or {}
            found.append(
                Found(
                    id=str(product["id"]),
                    title=room_names.get(str(product.get("room"))) or "Room",
                    total=total,
                    currency=paid_in,
                    deep_link=_link(place.get("url")),
                    parent_id=property_id,
                    starts_on=checkin,
                    ends_on=checkout,
                    details={
                        "cancellation": (policies.get("cancellation") or {}).get("type", ""),
                        "meals": (policies.get("meal_plan") or {}).get("meals", []),
                        "priceBeforeCharges": base,
                    },
                )
            )
        return found

    def _car_price(self, price: Any, currency: str) -> tuple[Decimal, str]:
        """A car's `price.total` (a number: taxes and the mandatory charges included) and its
        `price.currency` (search) or the answer's `currency` (availability)."""
        if not isinstance(price, dict) or price.get("total") is None:
            raise errors.ProviderNotJson(provider=self.name)
        return money(price["total"], self.name), str(price.get("currency") or currency)[:3]

    def _supplier_names(self, ids: set[Any]) -> dict[Any, str]:
        wanted = sorted(i for i in ids if isinstance(i, int))
        if not wanted:
            return {}
        data = self._call("/cars/suppliers", {"suppliers": wanted})
        return {item.get("id"): _text(item.get("name"), 100) for item in self._list(data)}

    @_read
    def cars(
        self,
        *,
        pickup: Place,
        dropoff: Place,
        pickup_at: str,
        dropoff_at: str,
        driver_age: int,
        currency: str,
        most: int,
        page: str,
    ) -> Page:
        body = {
            "booker": {"country": self.booker_country},
            "currency": currency,
            "driver": {"age": driver_age},
            "route": {
                "pickup": {"datetime": pickup_at, "location": pickup.car()},
                "dropoff": {"datetime": dropoff_at, "location": dropoff.car()},
            },
        }
        data = self._call("/cars/search", self._paged(body, most, page, key="maximum_results", cap=500))
        items = self._list(data)[:most]
        suppliers = self._supplier_names({item.get("supplier") for item in items})
        found = []
        for item in items:
            if not item.get("offer"):
                raise errors.ProviderNotJson(provider=self.name)
            total, paid_in = self._car_price(item.get("price"), currency)
            supplier = suppliers.get(item.get("supplier"), "")
            # A search names no car model (that is /cars/details' catalogue, kept by `car` id):
            # a result is said by its category and supplier.
            category = next(iter(item.get("categories") or []), "")
            kind = str(category).replace("_", " ").capitalize() or "Rental"
            mileage = (item.get("policies") or {}).get("mileage") or {}
            found.append(
                Found(
                    id=str(item["offer"]),
                    title=f"{kind} car ({supplier})" if supplier else f"{kind} car",
                    total=total,
                    currency=paid_in,
                    deep_link=_link(item.get("url")),
                    details={
                        "supplier": supplier,
                        "category": _text(category, 50),
                        "mileage": _text(mileage.get("type") if isinstance(mileage, dict) else "", 50),
                        "cancellation": _text(
                            ((item.get("policies") or {}).get("cancellation") or {}).get("type"), 50
                        ),
                    },
                )
            )
        return Page(found, self._next(data), str(data.get("search_token") or ""))

    @_read
    def car_offer(self, *, offer_id: str, search_token: str, currency: str) -> Found | None:
        """One car offer as `/cars/availability` gives it now (its `offer` and the search's
        `search_token`); None when the API refuses it (an offer or token it no longer knows)."""
        try:
            data = self._call(
                "/cars/availability",
                {"offer": _id(offer_id), "search_token": search_token, "currency": currency},
            )
        except errors.ProviderRefused:
            return None
        offer = data.get("data")
        if not isinstance(offer, dict):
            raise errors.ProviderNotJson(provider=self.name)
        total, paid_in = self._car_price(offer.get("price"), str(offer.get("currency") or currency))
        return Found(id=str(offer.get("offer") or offer_id), title="", total=total, currency=paid_in)

    def _attractions(self, ids: list[str]) -> dict[str, dict[str, Any]]:
        if not ids:
            return {}
        data = self._call("/attractions/details", {"attractions": ids, "languages": [self.language]})
        return {str(item.get("id")): item for item in self._list(data)}

    def _attraction_price(self, item: dict[str, Any], currency: str) -> tuple[Decimal, str]:
        price = item.get("price")
        if not isinstance(price, dict) or price.get("total") is None:
            raise errors.ProviderNotJson(provider=self.name)
        return money(price["total"], self.name), str(price.get("currency") or currency)[:3]

    @_read
    def activities(
        self, *, place: Place, start: date, end: date, currency: str, most: int, page: str
    ) -> Page:
        body = {
            "currency": currency,
            "dates": {"start_date": start.isoformat(), "end_date": end.isoformat()},
            **place.attractions(self.name),
        }
        data = self._call("/attractions/search", self._paged(body, most, page))
        items = self._list(data)[:most]
        if not all(item.get("id") for item in items):
            raise errors.ProviderNotJson(provider=self.name)
        named = self._attractions([str(item["id"]) for item in items])
        found = []
        for item in items:
            total, paid_in = self._attraction_price(item, currency)
            about = named.get(str(item["id"]), {})
            found.append(
                Found(
                    id=str(item["id"]),
                    title=_text(about.get("name")) or f"Activity {item['id']}",
                    total=total,
                    currency=paid_in,
                    deep_link=_link(item.get("urls")) or _link(about.get("urls")),
                    details={
                        "priceFrom": True,
                        "freeCancellation": bool(item.get("free_cancellation")),
                        "duration": _text(about.get("duration"), 50),
                        "reviewScore": (about.get("ratings") or {}).get("score"),
                    },
                )
            )
        return Page(found, self._next(data))

    @_read
    def activity_offers(
        self, *, activity_id: str, start: date, end: date, currency: str
    ) -> tuple[dict[str, Any] | None, list[Found]]:
        """The attraction's details and its offer for the dates: `/attractions/search` for that
        attraction alone, whose price is the cheapest adult ticket on those dates (the Demand API
        has no per-day availability or time slots for attractions)."""
        about = self._attractions([activity_id]).get(activity_id)
        if about is None:
            return None, []
        data = self._call(
            "/attractions/search",
            {
                "attractions": [activity_id],
                "currency": currency,
                "dates": {"start_date": start.isoformat(), "end_date": end.isoformat()},
            },
        )
        offers = []
        for item in self._list(data):
            if str(item.get("id")) != activity_id:
                continue
            total, paid_in = self._attraction_price(item, currency)
            offers.append(
                Found(
                    id=f"{activity_id}:{start.isoformat()}:{end.isoformat()}",
                    title=f"{_text(about.get('name'), 200)}: {start.isoformat()}"
                    + (f" to {end.isoformat()}" if end != start else ""),
                    total=total,
                    currency=paid_in,
                    deep_link=_link(item.get("urls")) or _link(about.get("urls")),
                    parent_id=activity_id,
                    starts_on=start,
                    ends_on=end,
                    details={"priceFrom": True, "freeCancellation": bool(item.get("free_cancellation"))},
                )
            )
        summary = {
            "name": _text(about.get("name")),
            "description": _text(about.get("long_description"), 2000),
            "duration": _text(about.get("duration"), 50),
            "url": _link(about.get("urls")),
        }
        return summary, offers


PROVIDERS = ("booking",)


def inventory(tool: str) -> Inventory:
    """The provider the settings pick (the workspace's own on Settings → Integrations, else the
    server's), or NotConfigured naming the tool asked for."""
    chosen = settings.ATRIUM_TRAVELSEARCH_PROVIDER
    if chosen != "booking":
        raise errors.UnknownProvider(tool=tool, chosen=repr(chosen), settings=SETTINGS)
    token = setting("ATRIUM_TRAVELSEARCH_BOOKING_TOKEN")
    affiliate_id = setting("ATRIUM_TRAVELSEARCH_BOOKING_AFFILIATE_ID")
    if not token or not affiliate_id:
        raise errors.NoCredentials(tool=tool, settings=SETTINGS)
    return Demand(
        token=token,
        affiliate_id=affiliate_id,
        url=setting("ATRIUM_TRAVELSEARCH_BOOKING_URL"),
        timeout=settings.ATRIUM_TRAVELSEARCH_TIMEOUT_SECONDS,
        booker_country=settings.ATRIUM_TRAVELSEARCH_BOOKER_COUNTRY,
        language=settings.ATRIUM_TRAVELSEARCH_LANGUAGE,
    )


def configured() -> str:
    """The inventory provider's name when it is set up, else ""."""
    try:
        return inventory("getProviderSummary").name
    except errors.TravelSearchNotConfigured:
        return ""
