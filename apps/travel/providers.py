"""The travel provider of Flights and Stays, behind one small interface (`FlightsAndStays`), with
the adapter that speaks Duffel's REST API (JSON, a Bearer access token, the `Duffel-Version`
header): flights as offer requests → offers → orders on hold, paid later; stays as search →
rates → quotes → bookings. Answers are read into the area's own shapes; the provider's words
reach the caller only as a `reason` of TravelProviderRefused."""

import functools
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from typing import Any, Protocol, TypeVar

import httpx
from django.conf import settings

from apps.core import clean, outbound
from apps.core.errors import ValidationFailed
from apps.integrations.api import setting
from apps.travel import errors

logger = logging.getLogger(__name__)


@dataclass
class FlightOffer:
    id: str
    total: Decimal
    currency: str
    expires_at: datetime
    airline: str
    slices: list[dict[str, Any]]
    passenger_ids: list[str]
    conditions: dict[str, Any]
    requires_instant_payment: bool = False


@dataclass
class StayRate:
    id: str
    accommodation: str
    room: str
    total: Decimal
    currency: str
    due_at_property: Decimal | None
    due_at_property_currency: str
    check_in: date
    check_out: date
    cancellation: list[dict[str, Any]]
    board: str = ""


@dataclass
class Hold:
    id: str
    booking_reference: str
    total: Decimal
    currency: str
    payment_required_by: datetime | None
    price_guaranteed_until: datetime | None
    conditions: dict[str, Any] = field(default_factory=dict)


@dataclass
class Quote:
    id: str
    total: Decimal
    currency: str
    due_at_property: Decimal | None


@dataclass
class Cancellation:
    refund: Decimal | None
    currency: str


class FlightsAndStays(Protocol):
    name: str

    def flight_offers(
        self, *, slices: list[dict[str, str]], adults: int, cabin: str, most: int
    ) -> list[FlightOffer]: ...
    def flight_offer(self, offer_id: str) -> FlightOffer: ...
    def hold_flight(self, *, offer_id: str, passengers: list[dict[str, Any]]) -> Hold: ...
    def pay_flight(self, *, order_id: str, amount: Decimal, currency: str) -> None: ...
    def cancel_flight(self, order_id: str) -> Cancellation: ...
    def stay_rates(
        self,
        *,
        latitude: float,
        longitude: float,
        radius_km: int,
        check_in: date,
        check_out: date,
        adults: int,
        rooms: int,
        most: int,
    ) -> list[StayRate]: ...
    def quote_stay(self, rate_id: str) -> Quote: ...
    def book_stay(
        self, *, quote_id: str, guests: list[dict[str, str]], email: str, phone: str
    ) -> tuple[str, str]: ...
    def cancel_stay(self, booking_id: str) -> Cancellation: ...


MOST = Decimal(10) ** 10


def _money(value: Any) -> Decimal:
    try:
        amount = Decimal(str(value))
    except (InvalidOperation, ValueError):
        raise errors.TravelProviderNotJson(provider="duffel") from None
    # A price or a refund is never below nothing, nor beyond what a price column keeps.
    if not amount.is_finite() or not 0 <= amount < MOST:
        raise errors.TravelProviderNotJson(provider="duffel")
    return amount.quantize(Decimal("0.01"))


def _currency(value: Any) -> str:
    """The ISO 4217 code of a price the provider gave: a price in no known currency is no answer."""
    try:
        return clean.currency(value if isinstance(value, str) else "")
    except ValidationFailed:
        raise errors.TravelProviderNotJson(provider="duffel") from None


Read = TypeVar("Read", bound=Callable[..., Any])


def _read(method: Read) -> Read:
    """An answer of another shape than Duffel's (a list where an object is, an object where text
    is) read as what it is, an answer not of the expected JSON, rather than a failure of ours."""

    @functools.wraps(method)
    def reading(*args: Any, **kwargs: Any) -> Any:
        try:
            return method(*args, **kwargs)
        except (AttributeError, KeyError, TypeError, ValueError):
            raise errors.TravelProviderNotJson(provider="duffel") from None

    return reading  # type: ignore[return-value]


def _when(value: Any) -> datetime | None:
    if not value:
        return None
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        raise errors.TravelProviderNotJson(provider="duffel") from None


def _day(value: Any) -> date:
    try:
        return date.fromisoformat(str(value))
    except ValueError:
        raise errors.TravelProviderNotJson(provider="duffel") from None


class Duffel:
    name = "duffel"

    def __init__(self, *, token: str, url: str, version: str, timeout: int) -> None:
        self.token, self.url, self.version, self.timeout = token, url.rstrip("/"), version, timeout

    def _call(self, method: str, path: str, *, body: dict[str, Any] | None = None, **params: Any) -> Any:
        if method != "GET":
            outbound.reached("travel provider")
        try:
            answer = httpx.request(
                method,
                f"{self.url}{path}",
                params=params or None,
                json={"data": body} if body is not None else None,
                headers={
                    "Authorization": f"Bearer {self.token}",
                    "Duffel-Version": self.version,
                    "Accept": "application/json",
                },
                timeout=self.timeout,
                trust_env=False,
            )
        except httpx.HTTPError as error:
            logger.warning("duffel unreachable (%s)", type(error).__name__)
            raise errors.TravelProviderUnreachable(provider=self.name, kind=type(error).__name__) from None
        if answer.status_code in (401, 403):
            raise errors.TravelProviderKeyRefused(provider=self.name, status=answer.status_code)
        try:
            data = answer.json()
        except ValueError:
            data = None
        if answer.status_code in (400, 404, 422) and isinstance(data, dict) and data.get("errors"):
            first = data["errors"][0] if isinstance(data["errors"], list) else {}
            reason = str(first.get("message") or first.get("title") or first.get("code") or "")[:300]
            raise errors.TravelProviderRefused(provider=self.name, reason=reason or str(answer.status_code))
        if answer.status_code not in (200, 201):
            logger.warning("duffel answered %s", answer.status_code)
            raise errors.TravelProviderHttpError(provider=self.name, status=answer.status_code)
        if not isinstance(data, dict) or "data" not in data:
            raise errors.TravelProviderNotJson(provider=self.name)
        return data["data"]

    # --- flights ---------------------------------------------------------------------------

    def _flight(self, data: Any) -> FlightOffer:
        if not isinstance(data, dict) or not data.get("id"):
            raise errors.TravelProviderNotJson(provider=self.name)
        expires = _when(data.get("expires_at"))
        if expires is None:
            raise errors.TravelProviderNotJson(provider=self.name)
        slices = []
        for part in data.get("slices") or []:
            segments = part.get("segments") or []
            slices.append(
                {
                    "origin": (part.get("origin") or {}).get("iata_code", ""),
                    "destination": (part.get("destination") or {}).get("iata_code", ""),
                    "duration": part.get("duration", ""),
                    "fare_brand": part.get("fare_brand_name") or "",
                    "segments": [
                        {
                            "flight": f"{(seg.get('marketing_carrier') or {}).get('iata_code', '')}"
                            f"{seg.get('marketing_carrier_flight_number', '')}",
                            "from": (seg.get("origin") or {}).get("iata_code", ""),
                            "to": (seg.get("destination") or {}).get("iata_code", ""),
                            # Local times at each airport, as the provider gives them.
                            "departs": seg.get("departing_at", ""),
                            "arrives": seg.get("arriving_at", ""),
                        }
                        for seg in segments
                    ],
                }
            )
        conditions = data.get("conditions") or {}
        payment = data.get("payment_requirements") or {}
        return FlightOffer(
            id=str(data["id"]),
            total=_money(data.get("total_amount")),
            currency=_currency(data.get("total_currency")),
            expires_at=expires,
            airline=str((data.get("owner") or {}).get("name", ""))[:100],
            slices=slices,
            passenger_ids=[str(p.get("id")) for p in data.get("passengers") or [] if p.get("id")],
            conditions={
                "change_before_departure": conditions.get("change_before_departure"),
                "refund_before_departure": conditions.get("refund_before_departure"),
            },
            requires_instant_payment=bool(payment.get("requires_instant_payment")),
        )

    @_read
    def flight_offers(
        self, *, slices: list[dict[str, str]], adults: int, cabin: str, most: int
    ) -> list[FlightOffer]:
        body: dict[str, Any] = {"slices": slices, "passengers": [{"type": "adult"}] * adults}
        if cabin:
            body["cabin_class"] = cabin
        data = self._call("POST", "/air/offer_requests", body=body, return_offers="true")
        offers = data.get("offers") if isinstance(data, dict) else None
        if not isinstance(offers, list):
            raise errors.TravelProviderNotJson(provider=self.name)
        found = [self._flight(offer) for offer in offers]
        return sorted(found, key=lambda offer: offer.total)[:most]

    @_read
    def flight_offer(self, offer_id: str) -> FlightOffer:
        return self._flight(self._call("GET", f"/air/offers/{offer_id}"))

    @_read
    def hold_flight(self, *, offer_id: str, passengers: list[dict[str, Any]]) -> Hold:
        data = self._call(
            "POST",
            "/air/orders",
            body={"type": "hold", "selected_offers": [offer_id], "passengers": passengers},
        )
        if not isinstance(data, dict) or not data.get("id"):
            raise errors.TravelProviderNotJson(provider=self.name)
        status = data.get("payment_status") or {}
        return Hold(
            id=str(data["id"]),
            booking_reference=str(data.get("booking_reference") or "")[:50],
            total=_money(data.get("total_amount")),
            currency=_currency(data.get("total_currency")),
            payment_required_by=_when(status.get("payment_required_by")),
            price_guaranteed_until=_when(status.get("price_guarantee_expires_at")),
            conditions=data.get("conditions") or {},
        )

    def pay_flight(self, *, order_id: str, amount: Decimal, currency: str) -> None:
        # From the workspace's Duffel balance: no card number reaches the service.
        self._call(
            "POST",
            "/air/payments",
            body={
                "order_id": order_id,
                "payment": {"type": "balance", "amount": str(amount), "currency": currency},
            },
        )

    @_read
    def cancel_flight(self, order_id: str) -> Cancellation:
        quote = self._call("POST", "/air/order_cancellations", body={"order_id": order_id})
        if not isinstance(quote, dict) or not quote.get("id"):
            raise errors.TravelProviderNotJson(provider=self.name)
        done = self._call("POST", f"/air/order_cancellations/{quote['id']}/actions/confirm")
        refund = done.get("refund_amount") if isinstance(done, dict) else None
        if refund is None:
            return Cancellation(refund=None, currency="")
        return Cancellation(refund=_money(refund), currency=_currency(done.get("refund_currency")))

    # --- stays -----------------------------------------------------------------------------

    @_read
    def stay_rates(
        self,
        *,
        latitude: float,
        longitude: float,
        radius_km: int,
        check_in: date,
        check_out: date,
        adults: int,
        rooms: int,
        most: int,
    ) -> list[StayRate]:
        found = self._call(
            "POST",
            "/stays/search",
            body={
                "location": {
                    "radius": radius_km,
                    "geographic_coordinates": {"latitude": latitude, "longitude": longitude},
                },
                "check_in_date": check_in.isoformat(),
                "check_out_date": check_out.isoformat(),
                "rooms": rooms,
                "guests": [{"type": "adult"}] * adults,
            },
        )
        results = found.get("results") if isinstance(found, dict) else None
        if not isinstance(results, list):
            raise errors.TravelProviderNotJson(provider=self.name)
        rates: list[StayRate] = []
        for result in results[:most]:
            if not isinstance(result, dict) or not result.get("id"):
                raise errors.TravelProviderNotJson(provider=self.name)
            detail = self._call("POST", f"/stays/search_results/{result['id']}/actions/fetch_all_rates")
            place = (detail or {}).get("accommodation") or {}
            for room in place.get("rooms") or []:
                for rate in room.get("rates") or []:
                    due = rate.get("due_at_accommodation_amount")
                    rates.append(
                        StayRate(
                            id=str(rate.get("id", "")),
                            accommodation=str(place.get("name", ""))[:150],
                            room=str(room.get("name", ""))[:100],
                            total=_money(rate.get("total_amount")),
                            currency=_currency(rate.get("total_currency")),
                            due_at_property=_money(due) if due not in (None, "") else None,
                            due_at_property_currency=str(rate.get("due_at_accommodation_currency") or "")[:3],
                            check_in=_day(detail.get("check_in_date") or check_in.isoformat()),
                            check_out=_day(detail.get("check_out_date") or check_out.isoformat()),
                            cancellation=list(rate.get("cancellation_timeline") or []),
                            board=str(rate.get("board_type") or ""),
                        )
                    )
        return rates

    @_read
    def quote_stay(self, rate_id: str) -> Quote:
        data = self._call("POST", "/stays/quotes", body={"rate_id": rate_id})
        if not isinstance(data, dict) or not data.get("id"):
            raise errors.TravelProviderNotJson(provider=self.name)
        due = data.get("due_at_accommodation_amount")
        return Quote(
            id=str(data["id"]),
            total=_money(data.get("total_amount")),
            currency=_currency(data.get("total_currency")),
            due_at_property=_money(due) if due not in (None, "") else None,
        )

    @_read
    def book_stay(
        self, *, quote_id: str, guests: list[dict[str, str]], email: str, phone: str
    ) -> tuple[str, str]:
        """The booking's id (what a cancellation names) and its reference (what the hotel knows)."""
        data = self._call(
            "POST",
            "/stays/bookings",
            body={"quote_id": quote_id, "guests": guests, "email": email, "phone_number": phone},
        )
        if not isinstance(data, dict) or not data.get("id"):
            raise errors.TravelProviderNotJson(provider=self.name)
        return str(data["id"]), str(data.get("reference") or data["id"])[:50]

    def cancel_stay(self, booking_id: str) -> Cancellation:
        self._call("POST", f"/stays/bookings/{booking_id}/actions/cancel")
        return Cancellation(refund=None, currency="")


PROVIDERS = ("duffel",)


def provider(tool: str) -> FlightsAndStays:
    """The provider the settings pick, or TravelNotConfigured naming the tool asked for."""
    chosen = setting("ATRIUM_TRAVEL_PROVIDER")
    if chosen == "duffel":
        if not setting("ATRIUM_TRAVEL_DUFFEL_TOKEN"):
            raise errors.TravelNotConfigured(tool=tool, provider=chosen, setting="ATRIUM_TRAVEL_DUFFEL_TOKEN")
        return Duffel(
            token=setting("ATRIUM_TRAVEL_DUFFEL_TOKEN"),
            url=setting("ATRIUM_TRAVEL_DUFFEL_URL"),
            version=settings.ATRIUM_TRAVEL_DUFFEL_VERSION,
            timeout=settings.ATRIUM_TRAVEL_TIMEOUT_SECONDS,
        )
    raise errors.TravelNotConfigured(
        tool=tool, provider=chosen, setting="ATRIUM_TRAVEL_PROVIDER to be duffel"
    )


def configured() -> str:
    """The provider's name when it is set up, else ""."""
    try:
        return provider("getTravelOverview").name
    except errors.TravelNotConfigured:
        return ""
