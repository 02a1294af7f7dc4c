"""Duffel as the Flights and Stays tests reach it: a real HTTP server on loopback speaking Duffel's
REST API (a Bearer token and the Duffel-Version header on every request; JSON bodies in "data"):
offer requests with their offers, an offer read again, orders on hold, balance payments, order
cancellations; stays search, all rates of a result, quotes, bookings and their cancellation."""

import contextlib
import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import urlsplit

from django.test import override_settings

from apps.core.testing import answer_json, loopback

TOKEN = "duffel_test_kestrel"


def _offer(
    number: int, total: str, *, origin: str, destination: str, day: str, adults: int
) -> dict[str, Any]:
    return {
        "id": f"off_{number:04d}",
        "total_amount": total,
        "total_currency": "GBP",
        "base_amount": str(round(float(total) * 0.8, 2)),
        "tax_amount": str(round(float(total) * 0.2, 2)),
        "expires_at": (datetime.now(UTC) + timedelta(minutes=30)).isoformat().replace("+00:00", "Z"),
        "owner": {"name": "Kestrel Air", "iata_code": "KX"},
        "passengers": [{"id": f"pas_{number:04d}_{index}", "type": "adult"} for index in range(adults)],
        "payment_requirements": {
            "requires_instant_payment": False,
            "payment_required_by": (datetime.now(UTC) + timedelta(days=2)).isoformat().replace("+00:00", "Z"),
            "price_guarantee_expires_at": (datetime.now(UTC) + timedelta(days=1))
            .isoformat()
            .replace("+00:00", "Z"),
        },
        "conditions": {
            "change_before_departure": {
                "allowed": True,
                "penalty_amount": "50.00",
                "penalty_currency": "GBP",
            },
            "refund_before_departure": {"allowed": False},
        },
        "slices": [
            {
                "origin": {"iata_code": origin},
                "destination": {"iata_code": destination},
                "duration": "PT2H25M",
                "fare_brand_name": "Basic",
                "segments": [
                    {
                        "marketing_carrier": {"iata_code": "KX"},
                        "marketing_carrier_flight_number": str(100 + number),
                        "origin": {"iata_code": origin},
                        "destination": {"iata_code": destination},
                        "departing_at": f"{day}T07:15:00",
                        "arriving_at": f"{day}T10:40:00",
                    }
                ],
            }
        ],
    }


class Duffel:
    """What the loopback Duffel holds and was asked; tests change `reprice` or `expire` to make an
    offer's second read differ from the first."""

    def __init__(self) -> None:
        self.offers: dict[str, dict[str, Any]] = {}
        self.orders: dict[str, dict[str, Any]] = {}
        self.asked: list[tuple[str, str, Any]] = []
        self.reprice: dict[str, str] = {}
        self.expire: set[str] = set()
        self.instant: set[str] = set()
        self.quote_total = ""
        # "METHOD /path": (status, body) answered instead, as a misbehaving provider would.
        self.answers: dict[str, tuple[int, Any]] = {}
        self.url = ""

    def paths(self) -> list[str]:
        return [f"{method} {path}" for method, path, _body in self.asked]


def _answer(served: Duffel, method: str, path: str, body: Any) -> tuple[int, Any]:
    data = (body or {}).get("data") if isinstance(body, dict) else None
    if method == "GET" and path == "/air/airlines":
        return 200, {"data": [{"id": "arl_0001", "name": "British Airways", "iata_code": "BA"}], "meta": {}}
    if method == "POST" and path == "/air/offer_requests":
        first = data["slices"][0]
        adults = len(data["passengers"])
        offers = [
            _offer(
                len(served.offers) + 1 + index,
                total,
                origin=first["origin"],
                destination=first["destination"],
                day=first["departure_date"],
                adults=adults,
            )
            for index, total in enumerate(("182.40", "149.90"))
        ]
        for offer in offers:
            served.offers[offer["id"]] = offer
        return 201, {"data": {"id": "orq_0001", "slices": data["slices"], "offers": offers}}
    if method == "GET" and path.startswith("/air/offers/"):
        offer = served.offers.get(path.rsplit("/", 1)[1])
        if offer is None:
            return 404, {
                "errors": [{"code": "not_found", "title": "Not found", "message": "Offer not found"}]
            }
        offer = dict(offer)
        if offer["id"] in served.reprice:
            offer["total_amount"] = served.reprice[offer["id"]]
        if offer["id"] in served.expire:
            offer["expires_at"] = (datetime.now(UTC) - timedelta(minutes=1)).isoformat()
        if offer["id"] in served.instant:
            offer["payment_requirements"] = {
                **offer["payment_requirements"],
                "requires_instant_payment": True,
            }
        return 200, {"data": offer}
    if method == "POST" and path == "/air/orders":
        offer = served.offers[data["selected_offers"][0]]
        if data.get("type") != "hold":
            return 422, {"errors": [{"code": "invalid", "message": "Only holds here"}]}
        for person in data["passengers"]:
            if not person["given_name"].replace(" ", "").replace("-", "").isalpha():
                return 422, {"errors": [{"code": "validation_error", "message": "Invalid name"}]}
        number = len(served.orders) + 1
        order = {
            "id": f"ord_{number:04d}",
            "type": "hold",
            "booking_reference": f"KX{number:04d}",
            "total_amount": served.reprice.get(offer["id"], offer["total_amount"]),
            "total_currency": "GBP",
            "passengers": data["passengers"],
            "payment_status": {
                "awaiting_payment": True,
                "payment_required_by": offer["payment_requirements"]["payment_required_by"],
                "price_guarantee_expires_at": offer["payment_requirements"]["price_guarantee_expires_at"],
            },
        }
        served.orders[order["id"]] = order
        return 201, {"data": order}
    if method == "POST" and path == "/air/payments":
        order = served.orders[data["order_id"]]
        if data["payment"]["amount"] != order["total_amount"]:
            return 422, {"errors": [{"code": "price_changed", "message": "Amount does not match"}]}
        order["payment_status"]["awaiting_payment"] = False
        return 201, {"data": {"id": "pay_0001", "type": "balance", **data["payment"]}}
    if method == "POST" and path == "/air/order_cancellations":
        return 201, {
            "data": {
                "id": "ore_0001",
                "order_id": data["order_id"],
                "refund_amount": "0.00",
                "refund_currency": "GBP",
                "confirmed_at": None,
            }
        }
    if method == "POST" and path == "/air/order_cancellations/ore_0001/actions/confirm":
        return 200, {
            "data": {
                "id": "ore_0001",
                "refund_amount": "0.00",
                "refund_currency": "GBP",
                "confirmed_at": datetime.now(UTC).isoformat(),
            }
        }
    if method == "POST" and path == "/stays/search":
        return 200, {
            "data": {
                "results": [
                    {
                        "id": "srr_0001",
                        "check_in_date": data["check_in_date"],
                        "check_out_date": data["check_out_date"],
                        "accommodation": {"id": "acc_0001", "name": "Harbour Inn"},
                    }
                ]
            }
        }
    if method == "POST" and path == "/stays/search_results/srr_0001/actions/fetch_all_rates":
        return 200, {
            "data": {
                "id": "srr_0001",
                "accommodation": {
                    "id": "acc_0001",
                    "name": "Harbour Inn",
                    "rooms": [
                        {
                            "name": "Double room",
                            "rates": [
                                {
                                    "id": "rat_0001",
                                    "total_amount": "312.00",
                                    "total_currency": "EUR",
                                    "due_at_accommodation_amount": "8.40",
                                    "due_at_accommodation_currency": "EUR",
                                    "board_type": "breakfast",
                                    "cancellation_timeline": [
                                        {"refund_amount": "312.00", "before": "2030-01-01T00:00:00Z"}
                                    ],
                                },
                            ],
                        }
                    ],
                },
            }
        }
    if method == "POST" and path == "/stays/quotes":
        return 201, {
            "data": {
                "id": "quo_0001",
                "total_amount": served.quote_total or "312.00",
                "total_currency": "EUR",
                "due_at_accommodation_amount": "8.40",
            }
        }
    if method == "POST" and path == "/stays/bookings":
        return 201, {"data": {"id": "bok_0001", "reference": "HI-778", "status": "confirmed"}}
    if method == "POST" and path == "/stays/bookings/bok_0001/actions/cancel":
        return 200, {"data": {"id": "bok_0001", "status": "cancelled"}}
    return 404, {"errors": [{"code": "not_found", "message": "No such resource"}]}


@contextlib.contextmanager
def serving(served: Duffel) -> Iterator[Duffel]:
    """The loopback Duffel, without the settings that point at it."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def _handle(self, method: str) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length)) if length else None
            path = urlsplit(self.path).path
            served.asked.append((method, path, body))
            if self.headers.get("Authorization") != f"Bearer {TOKEN}":
                answer_json(self, 401, {"errors": [{"code": "unauthorized", "message": "Bad token"}]})
                return
            if self.headers.get("Duffel-Version") != "v2":
                answer_json(self, 400, {"errors": [{"code": "unsupported_version", "message": "Version"}]})
                return
            status, answer = served.answers.get(f"{method} {path}") or _answer(served, method, path, body)
            answer_json(self, status, answer)

        def do_GET(self) -> None:
            self._handle("GET")

        def do_POST(self) -> None:
            self._handle("POST")

    with loopback(Handler) as url:
        served.url = url
        yield served


def configured(served: Duffel) -> Any:
    """The settings that point Flights and Stays at `served`."""
    return override_settings(
        ATRIUM_TRAVEL_PROVIDER="duffel", ATRIUM_TRAVEL_DUFFEL_TOKEN=TOKEN, ATRIUM_TRAVEL_DUFFEL_URL=served.url
    )


@contextlib.contextmanager
def duffel(served: Duffel | None = None) -> Iterator[Duffel]:
    """A loopback Duffel for the block, and the settings pointing at it."""
    with serving(served or Duffel()) as running, configured(running):
        yield running
