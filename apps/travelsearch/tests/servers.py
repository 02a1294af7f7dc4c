"""The Booking.com Demand API as the Provider Travel Search tests reach it: a real HTTP server on
loopback speaking its JSON as the 3.2 specification (and 3.2-Beta for attractions and
/cars/availability) documents it: POST for every endpoint; a Bearer token and the X-Affiliate-Id
header on each; required fields refused when missing; `rows` / `maximum_results` a multiple of 10;
answers as `{"request_id", "data", "metadata": {"next_page"}}`. Countries, cities, accommodation
search, details, constants and availability (prices as `{accommodation_currency,
booker_currency}`), car search (with its `search_token`), suppliers and availability, attraction
search and details. Flights are the loopback Duffel of apps/travel/tests/servers.py."""

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


def _bad(message: str, ident: str = "invalid_request") -> tuple[int, Any]:
    return 400, {"request_id": "r1", "errors": [{"id": ident, "message": message}]}


def _missing(body: dict[str, Any], *fields: str) -> tuple[int, Any] | None:
    """The Demand API's answer to a request without one of its required fields (None: all there)."""
    for name in fields:
        if name not in body:
            return _bad(f"Parameter '{name}' is missing.", "missing_parameter")
    return None


def _rows(body: dict[str, Any], name: str, most: int) -> tuple[int, Any] | None:
    """`rows` / `maximum_results`: a multiple of 10 from 10 to `most`, as the specification says."""
    rows = body.get(name)
    if rows is not None and (not isinstance(rows, int) or rows % 10 or not 10 <= rows <= most):
        return _bad(f"Parameter '{name}' is invalid.", "invalid_parameter")
    return None


class Demand:
    """What the loopback Demand API holds and was asked; tests set `gone` (properties and
    attractions it no longer has), `sold_out` (room products, and attraction-days as
    "<attraction>@<date>"), `hang` (seconds it waits before answering) or `status` (an HTTP error it
    answers) to make it misbehave."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, Any, dict[str, str]]] = []
        self.gone: set[str] = set()
        self.sold_out: set[str] = set()
        self.hang = 0.0
        self.status = 0
        # Paths this account may not call (a Beta endpoint outside its pilot): 403.
        self.forbidden: set[str] = set()
        # A path's (status, body) answered instead, as a misbehaving provider would.
        self.answers: dict[str, tuple[int, Any]] = {}
        self.url = ""

    def paths(self) -> list[str]:
        return [path for path, _body, _headers in self.asked]

    def body(self, path: str) -> Any:
        return next(body for asked, body, _headers in reversed(self.asked) if asked == path)


def _amount(value: str) -> dict[str, float]:
    """A Demand API 3.2 accommodation price: the amount in the property's and the booker's currency."""
    return {"accommodation_currency": float(value), "booker_currency": float(value)}


def _property(key: str) -> dict[str, Any]:
    return {
        "id": int(key),
        "currency": {"accommodation": "EUR", "booker": "EUR"},
        "price": {
            "base": _amount(PROPERTIES[key]["book"]),
            "display": _amount(PROPERTIES[key]["total"]),
            "total": _amount(PROPERTIES[key]["total"]),
        },
        "url": f"https://www.booking.com/hotel/pt/{key}.html?aid={AFFILIATE}",
        "deep_link_url": f"booking://hotel/{key}?affiliate_id={AFFILIATE}",
    }


ROOMS = {"1": "Double room", "2": "Twin room"}
FACILITIES = [
    {"id": 107, "facility_type": 1, "name": {"en-gb": "Free WiFi"}},
    {"id": 2, "facility_type": 1, "name": {"en-gb": "Parking"}},
]
ATTRACTION = "PRcTx1"
CARS = {
    "car_search_token": [
        {
            "car": 122655,
            "offer": 803765581,
            "categories": ["small"],
            "policies": {
                "cancellation": {"type": "free_cancellation", "details": None},
                "mileage": {"type": "unlimited", "distance_unit": "kilometers", "distance_limit": None},
                "payment": {"timing": "pay_online_now"},
            },
            "price": {"total": 180.0, "currency": "EUR", "credit_card_required": False, "extra_charges": []},
            "route": {
                "pickup": {"depot": 112314, "depot_location_type": "in_terminal"},
                "dropoff": {"depot": 112314, "depot_location_type": "in_terminal"},
            },
            "supplier": 7455,
            "url": {"app": "booking://cars/803765581", "web": "https://cars.booking.com/offer/803765581"},
        }
    ]
}
SUPPLIERS = {7455: "Sixt"}


def _accommodation(key: str, extras: list[str]) -> dict[str, Any]:
    about: dict[str, Any] = {
        "id": int(key),
        "name": {"en-gb": PROPERTIES[key]["name"]},
        "location": {
            "address": {"en-gb": "Rua do Cais 4"},
            "city": -2167973,
            "coordinates": {"latitude": 38.71, "longitude": -9.14},
            "country": "pt",
        },
        "rating": {"stars": 4, "review_score": 8.7, "number_of_reviews": 930},
        "url": {
            "web": f"https://www.booking.com/hotel/pt/{key}.html",
            "app": f"booking://hotel/{key}",
        },
    }
    if "description" in extras:
        about["description"] = {
            "text": {"en-gb": "Rooms over the river, ten minutes from the old town."},
            "important_information": {"en-gb": "Parking is limited."},
        }
    if "facilities" in extras:
        about["facilities"] = [{"id": 107, "attributes": []}, {"id": 2, "attributes": ["paid"]}]
    if "photos" in extras:
        about["photos"] = [{"main_photo": True, "url": {"large": f"https://cf.bstatic.com/{key}/1.jpg"}}]
    if "policies" in extras:
        about["policies"] = {"pets": {"allowed": "no", "charge_mode": None}, "minimum_checkin_age": 18}
    if "rooms" in extras:
        about["rooms"] = [{"id": f"{key}0{n}", "name": {"en-gb": name}} for n, name in ROOMS.items()]
    return about


def _attraction(key: str) -> dict[str, Any]:
    return {
        "id": key,
        "duration": "PT2H",
        "long_description": {"en-gb": "Two hours through Alfama with a local guide."},
        "name": {"en-gb": "Tram 28 walking tour"},
        "ratings": {"number_of_reviews": 120, "score": 4.6},
        "urls": {
            "web": {"detail": f"https://www.booking.com/attractions/pt/{key.lower()}-tram-28.html"},
            "app": {"detail": f"booking://attractions/product?slug={key.lower()}"},
        },
    }


def _answer(served: Demand, path: str, body: dict[str, Any]) -> tuple[int, Any]:
    if path == "/common/locations/countries":
        return 200, {
            "request_id": "r0",
            "data": [{"id": code, "name": {"en-gb": code}} for code in CITIES],
            "metadata": {"next_page": None},
        }
    if path == "/common/locations/cities":
        if "city" in body:
            cities = [(i, n) for found in CITIES.values() for i, n in found if i == body["city"]]
        else:
            cities = CITIES.get(body.get("country", ""), [])
        return 200, {
            "request_id": "r0",
            "data": [
                {"id": i, "name": {"en-gb": n}, "coordinates": {"latitude": 38.7, "longitude": -9.1}}
                for i, n in cities
            ],
            "metadata": {"next_page": None},
        }
    if path == "/accommodations/search":
        if failed := _missing(body, "booker", "checkin", "checkout", "guests") or _rows(body, "rows", 100):
            return failed
        known = {i for cities in CITIES.values() for i, _n in cities}
        if "city" in body and body["city"] not in known:
            return _bad("Unknown city")
        if body.get("page") == "page-2":
            return 200, {"request_id": "r2", "data": [_property("10006")], "metadata": {"next_page": None}}
        keys = [key for key in ("10004", "10005") if key not in served.gone][: body.get("rows", 100)]
        return 200, {
            "request_id": "r1",
            "data": [_property(key) for key in keys],
            "metadata": {"next_page": "page-2"},
        }
    if path == "/accommodations/details":
        if failed := _missing(body, "accommodations"):
            return failed
        keys = [str(i) for i in body["accommodations"] if str(i) in PROPERTIES and str(i) not in served.gone]
        found = [_accommodation(key, body.get("extras") or []) for key in keys]
        return 200, {"request_id": "r3", "data": found, "metadata": {"next_page": None}}
    if path == "/accommodations/constants":
        return 200, {"request_id": "r3", "data": {"accommodation_facilities": FACILITIES}}
    if path == "/accommodations/availability":
        if failed := _missing(body, "accommodations", "booker", "checkin", "checkout", "guests"):
            return failed
        data = []
        for key in (str(i) for i in body["accommodations"]):
            if key not in PROPERTIES or key in served.gone:
                continue
            products = [
                {
                    "id": f"{key}_1",
                    "room": f"{key}01",
                    "policies": {
                        "cancellation": {"type": "free_cancellation", "free_cancellation_until": None},
                        "meal_plan": {"meals": ["breakfast"], "plan": "breakfast_included"},
                    },
                    "price": {"base": _amount("220.00"), "total": _amount("246.30")},
                },
                {
                    "id": f"{key}_2",
                    "room": f"{key}02",
                    "policies": {
                        "cancellation": {"type": "non_refundable", "free_cancellation_until": None},
                        "meal_plan": {"meals": [], "plan": "no_plan"},
                    },
                    "price": {"base": _amount("200.00"), "total": _amount("224.10")},
                },
            ]
            data.append(
                {
                    "id": int(key),
                    "currency": {"accommodation": "EUR", "booker": body.get("currency") or "EUR"},
                    "url": f"https://www.booking.com/hotel/pt/{key}.html",
                    "deep_link_url": f"booking://hotel/{key}",
                    "products": [item for item in products if item["id"] not in served.sold_out],
                }
            )
        return 200, {"request_id": "r4", "data": data}
    if path == "/cars/search":
        if failed := _missing(body, "booker", "currency", "driver", "route") or _rows(
            body, "maximum_results", 500
        ):
            return failed
        route = body["route"]
        for point in ("pickup", "dropoff"):
            where = (route.get(point) or {}).get("location") or {}
            if len(where) != 1 or not set(where) <= {"airport", "city", "coordinates"}:
                return _bad(f"Parameter 'route.{point}.location' is invalid.", "invalid_parameter")
        return 200, {
            "request_id": "r5",
            "data": CARS["car_search_token"],
            "metadata": {"next_page": None, "total_results": 1},
            "search_token": "car_search_token",
        }
    if path == "/cars/suppliers":
        wanted = body.get("suppliers") or list(SUPPLIERS)
        return 200, {
            "request_id": "r5",
            "data": [{"id": i, "name": SUPPLIERS[i]} for i in wanted if i in SUPPLIERS],
            "metadata": {"next_page": None},
        }
    if path == "/cars/availability":
        if failed := _missing(body, "offer", "search_token", "currency"):
            return failed
        if body["search_token"] not in CARS:
            return _bad("Token 'search_token' is invalid.", "invalid_token")
        offer = next((o for o in CARS[body["search_token"]] if o["offer"] == body["offer"]), None)
        if offer is None or str(body["offer"]) in served.sold_out:
            return _bad(f"Offer {body['offer']} is invalid")
        price = {**offer["price"], "base": 150.0, "total": 185.5}
        price.pop("currency")
        return 200, {
            "request_id": "r5",
            "data": {
                "offer": offer["offer"],
                "currency": body["currency"],
                "policies": offer["policies"],
                "price": price,
                "products": [],
                "supplier": offer["supplier"],
                "route": offer["route"],
            },
        }
    if path == "/attractions/search":
        if failed := _missing(body, "currency", "dates") or _rows(body, "rows", 100):
            return failed
        asked = [key for key in ("attractions", "cities", "countries", "coordinates") if key in body]
        if len(asked) != 1:
            return _bad("Search by exactly one of attractions, cities, countries or coordinates.")
        start = date.fromisoformat(body["dates"]["start_date"])
        end = date.fromisoformat(body["dates"]["end_date"])
        days = {(start + timedelta(days=n)).isoformat() for n in range((end - start).days + 1)}
        keys = body.get("attractions") or [ATTRACTION]
        found = [
            {
                "id": key,
                "free_cancellation": True,
                "price": {"currency": body["currency"], "total": 25.0},
                "urls": _attraction(key)["urls"],
            }
            for key in keys
            if key not in served.gone and any(f"{key}@{day}" not in served.sold_out for day in days)
        ]
        return 200, {"request_id": "r6", "data": found, "metadata": {"next_page": None, "total_results": 1}}
    if path == "/attractions/details":
        if failed := _missing(body, "attractions"):
            return failed
        if len(body.get("languages") or []) > 1:
            return _bad("Parameter 'languages' is invalid.", "invalid_parameter")
        found = [_attraction(key) for key in body["attractions"] if key not in served.gone]
        return 200, {"request_id": "r7", "data": found, "metadata": {"next_page": None}}
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
            if path in served.forbidden:
                answer_json(self, 403, {"errors": [{"id": "forbidden", "message": "Not allowed"}]})
                return
            status, answer = served.answers.get(path) or _answer(served, path, body)
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
