"""The Booking.com Demand API as the Provider Travel Search tests reach it: a real HTTP server on
loopback speaking its v3 JSON (POST for every endpoint; a Bearer token and the X-Affiliate-Id
header on each; results paged by a `page` token): countries, cities, accommodation search, details and
availability, car search, attraction search, details and availability. Flights are the loopback
Duffel of apps/travel/tests/servers.py."""

import contextlib
import json
import time
from collections.abc import Iterator
from datetime import date, timedelta
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import urlsplit

from django.test import override_settings

from apps.core.testing import answer_json, loopback

TOKEN = "demand_test_heron"
AFFILIATE = "4242"
CITIES = {"pt": [(-2167973, "Lisbon")], "nl": [(-2140479, "Amsterdam")]}
PROPERTIES = {
    "10004": {"name": "Harbour View Hotel", "total": "246.30", "book": "220.00"},
    "10005": {"name": "Alfama Flats", "total": "198.00", "book": "180.00"},
    "10006": {"name": "Tagus Lodge", "total": "310.00", "book": "290.00"},
}


def _bad(message: str) -> tuple[int, Any]:
    return 400, {"request_id": "r1", "errors": [{"id": "invalid_request", "message": message}]}


class Demand:
    """What the loopback Demand API holds and was asked; tests set `gone` (properties and
    attractions it no longer has), `sold_out` (products), `hang` (seconds it waits before
    answering) or `status` (an HTTP error it answers) to make it misbehave."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, Any, dict[str, str]]] = []
        self.gone: set[str] = set()
        self.sold_out: set[str] = set()
        self.hang = 0.0
        self.status = 0
        self.url = ""

    def paths(self) -> list[str]:
        return [path for path, _body, _headers in self.asked]

    def body(self, path: str) -> Any:
        return next(body for asked, body, _headers in reversed(self.asked) if asked == path)


def _property(key: str) -> dict[str, Any]:
    return {
        "id": int(key),
        "currency": "EUR",
        "price": {"book": PROPERTIES[key]["book"], "total": PROPERTIES[key]["total"]},
        "url": f"https://www.booking.com/hotel/pt/{key}.html?aid={AFFILIATE}",
        "deep_link_url": f"booking://hotel/{key}?affiliate_id={AFFILIATE}",
    }


def _answer(served: Demand, path: str, body: dict[str, Any]) -> tuple[int, Any]:
    if path == "/common/locations/countries":
        return 200, {"request_id": "r0", "data": [{"id": code, "name": {"en-gb": code}} for code in CITIES]}
    if path == "/common/locations/cities":
        cities = CITIES.get(body.get("country", ""), [])
        return 200, {"data": [{"id": i, "name": {"en-gb": n}, "country": body["country"]} for i, n in cities]}
    if path == "/accommodations/search":
        if body.get("page") == "page-2":
            return 200, {"request_id": "r2", "data": [_property("10006")], "next_page": None}
        known = {i for cities in CITIES.values() for i, _n in cities}
        if "city" in body and body["city"] not in known:
            return _bad("Unknown city")
        for field in ("booker", "checkin", "checkout", "guests"):
            if field not in body:
                return _bad(f"{field} is required")
        keys = [key for key in ("10004", "10005") if key not in served.gone][: body.get("rows", 10)]
        return 200, {"request_id": "r1", "data": [_property(key) for key in keys], "next_page": "page-2"}
    if path in ("/accommodations/details", "/attractions/details"):
        ids = [str(i) for i in body.get("accommodations") or body.get("attractions") or []]
        found = []
        for key in ids:
            if key in served.gone:
                continue
            if key in PROPERTIES:
                found.append(
                    {
                        "id": int(key),
                        "name": {"en-gb": PROPERTIES[key]["name"]},
                        "description": {"en-gb": "Rooms over the river, ten minutes from the old town."},
                        "location": {
                            "address": {"en-gb": "Rua do Cais 4"},
                            "city": -2167973,
                            "coordinates": {"latitude": 38.71, "longitude": -9.14},
                        },
                        "rating": {"stars": 4, "review_score": 8.7},
                        "facilities": [{"id": 107, "name": "Free WiFi"}, {"id": 2, "name": "Parking"}],
                        "photos": [{"url": {"large": f"https://cf.bstatic.com/{key}/1.jpg"}}],
                        "policies": {"pets": "not allowed"},
                        "url": f"https://www.booking.com/hotel/pt/{key}.html",
                    }
                )
            elif key.startswith("PRC"):
                found.append(
                    {
                        "id": key,
                        "name": {"en-gb": "Tram 28 walking tour"},
                        "description": {"en-gb": "Two hours through Alfama with a local guide."},
                        "url": f"https://www.booking.com/attractions/pt/{key}.html",
                    }
                )
        return 200, {"request_id": "r3", "data": found}
    if path == "/accommodations/availability":
        key = str(body["accommodation"])
        if key in served.gone:
            return _bad("Accommodation not available")
        products = [
            {
                "id": f"{key}_1",
                "room_name": "Double room",
                "price": {"book": "220.00", "total": "246.30"},
                "policies": {
                    "cancellation": {"type": "free_cancellation"},
                    "meal_plan": {"meals": ["breakfast"]},
                },
            },
            {
                "id": f"{key}_2",
                "room_name": "Twin room",
                "price": {"book": "200.00", "total": "224.10"},
                "policies": {"cancellation": {"type": "non_refundable"}, "meal_plan": {"meals": []}},
            },
        ]
        return 200, {
            "request_id": "r4",
            "data": {
                "id": int(key),
                "currency": body.get("currency", "EUR"),
                "url": f"https://www.booking.com/hotel/pt/{key}.html",
                "products": [item for item in products if item["id"] not in served.sold_out],
            },
        }
    if path == "/cars/search":
        route = body.get("route") or {}
        if "pickup" not in route or "driver" not in body:
            return _bad("route and driver are required")
        return 200, {
            "request_id": "r5",
            "data": [
                {
                    "offer": "car_0001",
                    "price": {"total": "180.00", "currency": "EUR"},
                    "supplier": {"name": "Sixt"},
                    "vehicle": {
                        "name": "VW Golf",
                        "category": "compact",
                        "transmission": "manual",
                        "seats": 5,
                    },
                    "policies": {"mileage": "unlimited"},
                    "url": "https://www.booking.com/cars/car_0001",
                }
            ],
            "next_page": None,
        }
    if path == "/attractions/search":
        return 200, {
            "request_id": "r6",
            "data": [
                {
                    "id": "PRCcTx1",
                    "name": {"en-gb": "Tram 28 walking tour"},
                    "price": {"total": "25.00"},
                    "currency": "EUR",
                    "url": "https://www.booking.com/attractions/pt/PRCcTx1.html",
                }
            ],
            "next_page": None,
        }
    if path == "/attractions/availability":
        start, end = date.fromisoformat(body["start"]), date.fromisoformat(body["end"])
        days = [start + timedelta(days=n) for n in range((end - start).days + 1)]
        offers = [
            {
                "id": f"{body['attraction']}_{day.isoformat()}",
                "date": day.isoformat(),
                "title": "Morning group",
                "times": ["09:00", "14:00"],
                "price": {"total": "25.00"},
                "currency": "EUR",
            }
            for day in days
        ]
        return 200, {
            "request_id": "r7",
            "data": [item for item in offers if item["id"] not in served.sold_out],
        }
    return 404, {"errors": [{"id": "not_found", "message": "No such endpoint"}]}


@contextlib.contextmanager
def serving(served: Demand) -> Iterator[Demand]:
    """The loopback Demand API, without the settings that point at it."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length)) if length else {}
            path = urlsplit(self.path).path
            served.asked.append((path, body, dict(self.headers)))
            if served.hang:
                time.sleep(served.hang)
            if (
                self.headers.get("Authorization") != f"Bearer {TOKEN}"
                or self.headers.get("X-Affiliate-Id") != AFFILIATE
            ):
                answer_json(self, 401, {"errors": [{"id": "unauthorized", "message": "Bad credentials"}]})
                return
            if served.status:
                answer_json(self, served.status, {"errors": [{"id": "internal", "message": "Oops"}]})
                return
            status, answer = _answer(served, path, body)
            answer_json(self, status, answer)

    with loopback(Handler) as url:
        served.url = url
        yield served


def configured(served: Demand) -> Any:
    """The settings that point Provider Travel Search at `served`."""
    return override_settings(
        ATRIUM_TRAVELSEARCH_PROVIDER="booking",
        ATRIUM_TRAVELSEARCH_BOOKING_TOKEN=TOKEN,
        ATRIUM_TRAVELSEARCH_BOOKING_AFFILIATE_ID=AFFILIATE,
        ATRIUM_TRAVELSEARCH_BOOKING_URL=served.url,
        ATRIUM_TRAVELSEARCH_TIMEOUT_SECONDS=1,
    )


@contextlib.contextmanager
def demand(served: Demand | None = None) -> Iterator[Demand]:
    """A loopback Demand API for the block, and the settings pointing at it."""
    with serving(served or Demand()) as running, configured(running):
        yield running
