"""The inventory providers of Provider Travel Search, behind one small interface (`Inventory`),
with the adapter that speaks the Booking.com Demand API (v3: JSON, `POST` for every endpoint, a
Bearer token and the `X-Affiliate-Id` header, pages through a `page` token): properties
(`/accommodations/search`, `/accommodations/details`, `/accommodations/availability`), cars
(`/cars/search`), attractions (`/attractions/search`, `/attractions/details`,
`/attractions/availability`) and cities (`/common/locations/cities`). Flights are Flights and
Stays' provider (apps.travel.api). Answers are read into the area's own shapes; the provider's
words reach the caller only as the `reason` of ProviderRefused."""

import logging
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal, InvalidOperation
from typing import Any, Protocol

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


@dataclass
class Place:
    """Where: a Booking.com city id, an airport's IATA code, or coordinates with a radius."""

    city: int | None = None
    airport: str = ""
    latitude: float | None = None
    longitude: float | None = None
    radius_km: int = 5

    def demand(self) -> dict[str, Any]:
        if self.city is not None:
            return {"city": self.city}
        if self.airport:
            return {"airport": self.airport}
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


def _link(item: dict[str, Any]) -> str:
    link = str(item.get("url") or item.get("deep_link_url") or "")
    return link[:2000] if link.startswith(("https://", "http://")) else ""


class Demand:
    """The Booking.com Demand API (properties, cars, attractions)."""

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

    def _paged(self, body: dict[str, Any], most: int, page: str) -> dict[str, Any]:
        body["rows"] = most
        if page:
            # A next page is asked with its token alone (the criteria are the token's).
            return {"page": page}
        return body

    def _list(self, data: dict[str, Any]) -> list[dict[str, Any]]:
        items = data.get("data")
        if not isinstance(items, list) or not all(isinstance(item, dict) for item in items):
            raise errors.ProviderNotJson(provider=self.name)
        return items

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

    def _details(self, path: str, key: str, ids: list[str]) -> dict[str, dict[str, Any]]:
        if not ids:
            return {}
        data = self._call(
            path,
            {
                key: [int(i) if i.isdigit() else i for i in ids],
                "extras": ["description", "facilities", "photos", "policies"],
                "languages": [self.language],
            },
        )
        return {str(item.get("id")): item for item in self._list(data)}

    def _price(self, item: dict[str, Any], currency: str) -> tuple[Decimal, str]:
        price = item.get("price")
        if not isinstance(price, dict):
            raise errors.ProviderNotJson(provider=self.name)
        # `total` is what the traveller pays in all: taxes and mandatory charges included
        # (`book` leaves out what is paid at the property).
        total = price.get("total", price.get("book"))
        return money(total, self.name), str(item.get("currency") or price.get("currency") or currency)[:3]

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
        named = self._details("/accommodations/details", "accommodations", [str(i.get("id")) for i in items])
        found = []
        for item in items:
            total, paid_in = self._price(item, currency)
            about = named.get(str(item.get("id")), {})
            found.append(
                Found(
                    id=str(item.get("id")),
                    title=_text(about.get("name")) or f"Property {item.get('id')}",
                    total=total,
                    currency=paid_in,
                    deep_link=_link(item) or _link(about),
                    details={
                        "city": _text((about.get("location") or {}).get("city"), 100),
                        "stars": (about.get("rating") or {}).get("stars"),
                        "reviewScore": (about.get("rating") or {}).get("review_score"),
                        "priceBeforeCharges": str((item.get("price") or {}).get("book", "")),
                    },
                )
            )
        return Page(found, str(data.get("next_page") or ""))

    def property_details(self, property_id: str) -> dict[str, Any] | None:
        about = self._details("/accommodations/details", "accommodations", [property_id]).get(property_id)
        if about is None:
            return None
        location = about.get("location") or {}
        return {
            "name": _text(about.get("name")),
            "description": _text(about.get("description"), 2000),
            "address": _text(location.get("address"), 300),
            "city": _text(location.get("city"), 100),
            "coordinates": location.get("coordinates") or {},
            "stars": (about.get("rating") or {}).get("stars"),
            "reviewScore": (about.get("rating") or {}).get("review_score"),
            "facilities": [_text(f.get("name") or f.get("id"), 80) for f in about.get("facilities") or []][
                :30
            ],
            "photos": [
                str((photo.get("url") or {}).get("large") or "")
                for photo in about.get("photos") or []
                if isinstance(photo, dict)
            ][:10],
            "policies": about.get("policies") or {},
            "url": _link(about),
        }

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
                "accommodation": int(property_id) if property_id.isdigit() else property_id,
                "booker": self._booker(),
                "checkin": checkin.isoformat(),
                "checkout": checkout.isoformat(),
                "guests": _guests(adults, children, rooms),
                "currency": currency,
                "extras": ["extra_charges"],
            },
        )
        place = data.get("data")
        if not isinstance(place, dict):
            raise errors.ProviderNotJson(provider=self.name)
        found = []
        for product in place.get("products") or []:
            if not isinstance(product, dict) or not product.get("id"):
                raise errors.ProviderNotJson(provider=self.name)
            total, paid_in = self._price(product, str(place.get("currency") or currency))
            policies = product.get("policies") or {}
            found.append(
                Found(
                    id=str(product["id"]),
                    title=_text(product.get("room_name") or product.get("room"), 150) or "Room",
                    total=total,
                    currency=paid_in,
                    deep_link=_link(place),
                    parent_id=property_id,
                    starts_on=checkin,
                    ends_on=checkout,
                    details={
                        "cancellation": (policies.get("cancellation") or {}).get("type", ""),
                        "meals": (policies.get("meal_plan") or {}).get("meals", []),
                        "priceBeforeCharges": str((product.get("price") or {}).get("book", "")),
                    },
                )
            )
        return found

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
            "booker": self._booker(),
            "currency": currency,
            "driver": {"age": driver_age},
            "route": {
                "pickup": {"datetime": pickup_at, "location": pickup.demand()},
                "dropoff": {"datetime": dropoff_at, "location": dropoff.demand()},
            },
        }
        data = self._call("/cars/search", self._paged(body, most, page))
        found = []
        for item in self._list(data)[:most]:
            offer_id = item.get("offer") or item.get("id")
            if not offer_id:
                raise errors.ProviderNotJson(provider=self.name)
            total, paid_in = self._price(item, currency)
            vehicle, supplier = item.get("vehicle") or {}, item.get("supplier") or {}
            found.append(
                Found(
                    id=str(offer_id),
                    title=f"{_text(vehicle.get('name'), 100)} ({_text(supplier.get('name'), 100)})",
                    total=total,
                    currency=paid_in,
                    deep_link=_link(item),
                    details={
                        "supplier": _text(supplier.get("name"), 100),
                        "category": _text(vehicle.get("category"), 50),
                        "transmission": _text(vehicle.get("transmission"), 20),
                        "seats": vehicle.get("seats"),
                        "mileage": _text((item.get("policies") or {}).get("mileage"), 50),
                    },
                )
            )
        return Page(found, str(data.get("next_page") or ""))

    def activities(
        self, *, place: Place, start: date, end: date, currency: str, most: int, page: str
    ) -> Page:
        body = {
            "booker": self._booker(),
            "currency": currency,
            "start": start.isoformat(),
            "end": end.isoformat(),
            **place.demand(),
        }
        data = self._call("/attractions/search", self._paged(body, most, page))
        found = []
        for item in self._list(data)[:most]:
            if not item.get("id"):
                raise errors.ProviderNotJson(provider=self.name)
            total, paid_in = self._price(item, currency)
            found.append(
                Found(
                    id=str(item["id"]),
                    title=_text(item.get("name")) or f"Activity {item['id']}",
                    total=total,
                    currency=paid_in,
                    deep_link=_link(item),
                    details={
                        "priceFrom": True,
                        "duration": _text(item.get("duration"), 50),
                        "reviewScore": (item.get("rating") or {}).get("review_score"),
                    },
                )
            )
        return Page(found, str(data.get("next_page") or ""))

    def activity_offers(
        self, *, activity_id: str, start: date, end: date, currency: str
    ) -> tuple[dict[str, Any] | None, list[Found]]:
        about = self._details("/attractions/details", "attractions", [activity_id]).get(activity_id)
        if about is None:
            return None, []
        data = self._call(
            "/attractions/availability",
            {
                "attraction": activity_id,
                "start": start.isoformat(),
                "end": end.isoformat(),
                "currency": currency,
            },
        )
        offers = []
        for item in self._list(data):
            if not item.get("id") or not item.get("date"):
                raise errors.ProviderNotJson(provider=self.name)
            try:
                day = date.fromisoformat(str(item["date"]))
            except ValueError:
                raise errors.ProviderNotJson(provider=self.name) from None
            total, paid_in = self._price(item, currency)
            offers.append(
                Found(
                    id=str(item["id"]),
                    title=f"{_text(about.get('name'), 200)}: {_text(item.get('title'), 90)}",
                    total=total,
                    currency=paid_in,
                    deep_link=_link(item) or _link(about),
                    parent_id=activity_id,
                    starts_on=day,
                    ends_on=day,
                    details={
                        "times": [str(t)[:5] for t in item.get("times") or []][:24],
                        "cancellation": _text(item.get("cancellation"), 100),
                    },
                )
            )
        summary = {
            "name": _text(about.get("name")),
            "description": _text(about.get("description"), 2000),
            "url": _link(about),
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
