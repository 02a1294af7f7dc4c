"""Flights and Stays' writes: offers found kept as snapshots, bookmarks, flight orders held and
stay quotes prepared (each offer re-priced first), cancellations, a person's payment from the
page, and the purge of travellers' identity data after their trip.

Everything a call can refuse is checked before the provider is asked; what the provider says is
kept in one transaction after it answered, so nothing is half-written."""

import logging
import re
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

import airportsdata
from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.core import clean
from apps.core.actors import can, require
from apps.core.errors import invalid
from apps.travel import errors, names, providers
from apps.travel.models import Booking, Kind, Offer, Passenger
from apps.travel.permissions import TravelPerm

logger = logging.getLogger(__name__)

IATA = re.compile(r"^[A-Z]{3}$")
CABINS = ("economy", "premium_economy", "business", "first")
MAX_PASSENGERS = 9
# IATA's metropolitan codes (several airports of one city), which airportsdata does not list.
CITY_CODES = frozenset(
    [
        "BER",
        "BJS",
        "BUE",
        "CHI",
        "LON",
        "MIL",
        "MOW",
        "NYC",
        "OSA",
        "PAR",
        "RIO",
        "ROM",
        "SAO",
        "SEL",
        "SHA",
        "STO",
        "TYO",
        "WAS",
        "YMQ",
        "YTO",
    ]
)
_airports: dict[str, Any] = {}


def airports() -> dict[str, Any]:
    """Every IATA airport (airportsdata), read once."""
    if not _airports:
        _airports.update(airportsdata.load("IATA"))
    return _airports


def airport(value: str, *, field: str) -> str:
    """An IATA airport or city code (LHR, LON), upper-cased, or the field's problem."""
    code = (value or "").strip().upper()
    if not IATA.match(code):
        raise invalid(field, _("{value!r} is not a three-letter IATA airport code"), value=value)
    if code not in airports() and code not in CITY_CODES:
        raise invalid(field, _("{code} is no airport or city code known"), code=code)
    return code


def _future(day: date, *, field: str) -> None:
    if day < timezone.localdate():
        raise invalid(field, _("{day} is in the past"), day=day.isoformat())
    if day > timezone.localdate() + timedelta(days=361):
        raise invalid(
            field, _("{day} is more than a year ahead: offers are not sold yet"), day=day.isoformat()
        )


def _title(offer: providers.FlightOffer) -> str:
    legs = " / ".join(f"{part['origin']}→{part['destination']}" for part in offer.slices)
    return f"{offer.airline} {legs}".strip()[:300]


def flight_offers_find(
    *,
    actor: Any,
    origin: str,
    destination: str,
    departs_on: date,
    returns_on: date | None = None,
    adults: int = 1,
    cabin: str = "",
    most: int = 10,
) -> list[Offer]:
    """Offers for a one-way or return trip, cheapest first, each kept as a snapshot with its expiry."""
    require(actor, TravelPerm.BOOK)
    origin, destination = airport(origin, field="origin"), airport(destination, field="destination")
    if origin == destination:
        raise invalid("destination", _("is the same as the origin"))
    _future(departs_on, field="departureDate")
    if returns_on is not None and returns_on < departs_on:
        raise invalid("returnDate", _("must be on or after {start}"), start=departs_on.isoformat())
    if returns_on is not None:
        _future(returns_on, field="returnDate")
    if cabin and cabin not in CABINS:
        raise invalid("cabinClass", _("must be one of {cabins}"), cabins=", ".join(CABINS))
    slices = [{"origin": origin, "destination": destination, "departure_date": departs_on.isoformat()}]
    if returns_on is not None:
        slices.append(
            {"origin": destination, "destination": origin, "departure_date": returns_on.isoformat()}
        )
    provider = providers.provider("findFlightOffers")
    found = provider.flight_offers(slices=slices, adults=adults, cabin=cabin, most=most)
    with transaction.atomic():
        return [
            Offer.objects.create(
                kind=Kind.FLIGHT,
                provider=provider.name,
                provider_id=offer.id[:100],
                title=_title(offer),
                total=offer.total,
                currency=offer.currency,
                starts_on=departs_on,
                ends_on=returns_on or departs_on,
                expires_at=offer.expires_at,
                snapshot={
                    "airline": offer.airline,
                    "slices": offer.slices,
                    "conditions": offer.conditions,
                    "adults": adults,
                    "passenger_ids": offer.passenger_ids,
                    "requires_instant_payment": offer.requires_instant_payment,
                },
                created_by=actor,
            )
            for offer in found
        ]


def stay_offers_find(
    *,
    actor: Any,
    latitude: float,
    longitude: float,
    radius_km: int,
    check_in: date,
    check_out: date,
    adults: int = 1,
    rooms: int = 1,
    most: int = 3,
) -> list[Offer]:
    """Each room rate of the nearest properties, kept as a snapshot: the total includes the
    provider's taxes and fees, and what is due at the property is said apart."""
    require(actor, TravelPerm.BOOK)
    _future(check_in, field="checkInDate")
    if check_out <= check_in:
        raise invalid("checkOutDate", _("must be after {start}"), start=check_in.isoformat())
    if (check_out - check_in).days > 30:
        raise invalid("checkOutDate", _("a stay is at most {most} nights"), most=30)
    if rooms > adults:
        raise invalid("rooms", _("at most one room per adult ({adults})"), adults=adults)
    provider = providers.provider("findStayOffers")
    rates = provider.stay_rates(
        latitude=latitude,
        longitude=longitude,
        radius_km=radius_km,
        check_in=check_in,
        check_out=check_out,
        adults=adults,
        rooms=rooms,
        most=most,
    )
    expires = timezone.now() + timedelta(minutes=settings.ATRIUM_TRAVEL_STAY_RATE_MINUTES)
    with transaction.atomic():
        return [
            Offer.objects.create(
                kind=Kind.STAY,
                provider=provider.name,
                provider_id=rate.id[:100],
                title=f"{rate.accommodation}: {rate.room}"[:300],
                total=rate.total,
                currency=rate.currency,
                due_at_property=rate.due_at_property,
                due_at_property_currency=rate.due_at_property_currency,
                starts_on=rate.check_in,
                ends_on=rate.check_out,
                expires_at=expires,
                snapshot={
                    "accommodation": rate.accommodation,
                    "room": rate.room,
                    "board": rate.board,
                    "cancellation": rate.cancellation,
                    "adults": adults,
                    "rooms": rooms,
                },
                created_by=actor,
            )
            for rate in rates
        ]


def offer_bookmark(*, actor: Any, offer_id: int, kind: str, note: str = "", keep: bool = True) -> Offer:
    """Bookmarks one's offer (its snapshot kept past its expiry, for comparing), or removes the mark."""
    offer = Offer.objects.fetch(actor, offer_id, "change")
    _kind(offer, kind)
    offer.note = clean.text(note, field="note", limit=500) or offer.note
    offer.bookmarked_at = (offer.bookmarked_at or timezone.now()) if keep else None
    offer.save(update_fields=["note", "bookmarked_at", "updated_at"])
    return offer


def _kind(offer: Offer, kind: str) -> None:
    if offer.kind != kind:
        tool = "prepareFlightBooking" if offer.kind == Kind.FLIGHT else "prepareStayBooking"
        raise errors.WrongKind(offer=offer.pk, kind=offer.kind, tool=tool)


def _traveller(actor: Any, email: str) -> Any:
    if not email:
        return actor
    person = clean.person_by_email(
        clean.email(email, field="travellerEmail", required=True), field="travellerEmail"
    )
    return person


def checked_passengers(passengers: list[dict[str, Any]], *, adults: int) -> list[dict[str, Any]]:
    """The passengers' names as airlines take them and their details, or the first problem."""
    if len(passengers) != adults:
        raise invalid("passengers", _("the offer is for {adults} adults: name each once"), adults=adults)
    checked = []
    for index, person in enumerate(passengers):
        where = f"passengers[{index}]"
        born = person.get("born_on")
        if not isinstance(born, date) or born >= timezone.localdate():
            raise invalid(f"{where}.bornOn", _("must be a date in the past"))
        if (timezone.localdate() - born).days < 18 * 365:
            raise invalid(f"{where}.bornOn", _("an adult passenger is 18 or over"))
        checked.append(
            {
                "given_name": names.checked(str(person.get("given_name") or ""), field=f"{where}.givenName"),
                "family_name": names.checked(
                    str(person.get("family_name") or ""), field=f"{where}.familyName"
                ),
                "title": str(person.get("title") or ""),
                "gender": str(person.get("gender") or ""),
                "born_on": born,
                "email": clean.email(person.get("email"), field=f"{where}.email", required=True),
                "phone": _phone(person.get("phone"), field=f"{where}.phone"),
            }
        )
    return checked


def _phone(value: Any, *, field: str) -> str:
    phone = re.sub(r"[\s().-]", "", str(value or ""))
    if not re.fullmatch(r"\+[1-9]\d{6,14}", phone):
        raise invalid(field, _("write it in international form, +44 20 7946 0000"))
    return phone


def flight_checked(
    *, actor: Any, offer_id: int, passengers: list[dict[str, Any]], traveller_email: str = ""
) -> tuple[Offer, list[dict[str, Any]], Any]:
    """Everything prepareFlightBooking can refuse before the provider is asked (and before the
    person is asked to confirm)."""
    require(actor, TravelPerm.BOOK)
    offer = Offer.objects.fetch(actor, offer_id, "change")
    _kind(offer, Kind.FLIGHT)
    if offer.expires_at <= timezone.now():
        raise errors.OfferExpired(offer=offer.pk, expired=offer.expires_at.isoformat())
    if offer.snapshot.get("requires_instant_payment"):
        raise errors.CannotHold(offer=offer.pk)
    checked = checked_passengers(passengers, adults=int(offer.snapshot.get("adults") or 1))
    return offer, checked, _traveller(actor, traveller_email)


def _repriced(offer: Offer, total: Decimal, currency: str, expected: Decimal | None) -> None:
    """A price other than the one found (or than `expected`, the figure the person agreed to
    after a change) is refused with the new figure."""
    agreed = expected if expected is not None else offer.total
    if total != agreed or currency != offer.currency:
        raise errors.PriceChanged(offer=offer.pk, was=str(agreed), now=str(total), currency=currency)


def flight_prepare(
    *,
    actor: Any,
    offer_id: int,
    passengers: list[dict[str, Any]],
    expected_total: Decimal | None = None,
    traveller_email: str = "",
) -> Booking:
    """The offer re-priced at the provider, then held as an order, paid later by a person."""
    offer, checked, traveller = flight_checked(
        actor=actor, offer_id=offer_id, passengers=passengers, traveller_email=traveller_email
    )
    provider = providers.provider("prepareFlightBooking")
    fresh = provider.flight_offer(offer.provider_id)
    if fresh.expires_at <= timezone.now():
        raise errors.OfferExpired(offer=offer.pk, expired=fresh.expires_at.isoformat())
    if fresh.requires_instant_payment:
        raise errors.CannotHold(offer=offer.pk)
    _repriced(offer, fresh.total, fresh.currency, expected_total)
    ids = fresh.passenger_ids or offer.snapshot.get("passenger_ids") or []
    if len(ids) != len(checked):
        raise errors.TravelProviderNotJson(provider=provider.name)
    held = provider.hold_flight(
        offer_id=offer.provider_id,
        passengers=[
            {
                "id": passenger_id,
                "type": "adult",
                "given_name": person["given_name"],
                "family_name": person["family_name"],
                "title": person["title"],
                "gender": person["gender"],
                "born_on": person["born_on"].isoformat(),
                "email": person["email"],
                "phone_number": person["phone"],
            }
            for passenger_id, person in zip(ids, checked, strict=True)
        ],
    )
    with transaction.atomic():
        booking = Booking.objects.create(
            kind=Kind.FLIGHT,
            offer=offer,
            title=offer.title,
            traveller=traveller,
            provider=provider.name,
            provider_id=held.id[:100],
            booking_reference=held.booking_reference,
            status=Booking.Status.HELD,
            total=held.total,
            currency=held.currency,
            payment_required_by=held.payment_required_by,
            price_guaranteed_until=held.price_guaranteed_until,
            starts_on=offer.starts_on,
            ends_on=offer.ends_on or offer.starts_on,
            conditions=offer.snapshot.get("conditions") or {},
            created_by=actor,
        )
        _passengers(booking, checked)
    logger.info("travel booking %s held at %s", booking.pk, provider.name)
    return booking


def _passengers(booking: Booking, checked: list[dict[str, Any]]) -> None:
    Passenger.objects.bulk_create(
        Passenger(
            booking=booking,
            given_name=person["given_name"],
            family_name=person["family_name"],
            title=person.get("title", ""),
            gender=person.get("gender", ""),
            born_on=person.get("born_on"),
            email=person.get("email", ""),
            phone=person.get("phone", ""),
        )
        for person in checked
    )


def stay_checked(
    *,
    actor: Any,
    offer_id: int,
    guests: list[dict[str, Any]],
    email: str,
    phone: str,
    traveller_email: str = "",
) -> tuple[Offer, list[dict[str, Any]], Any]:
    """Everything prepareStayBooking can refuse before the provider is asked."""
    require(actor, TravelPerm.BOOK)
    offer = Offer.objects.fetch(actor, offer_id, "change")
    _kind(offer, Kind.STAY)
    if offer.expires_at <= timezone.now():
        raise errors.OfferExpired(offer=offer.pk, expired=offer.expires_at.isoformat())
    if not guests:
        raise invalid("guests", _("name at least the lead guest"))
    checked = [
        {
            "given_name": names.checked(
                str(guest.get("given_name") or ""), field=f"guests[{index}].givenName"
            ),
            "family_name": names.checked(
                str(guest.get("family_name") or ""), field=f"guests[{index}].familyName"
            ),
        }
        for index, guest in enumerate(guests)
    ]
    checked[0]["email"] = clean.email(email, field="email", required=True)
    checked[0]["phone"] = _phone(phone, field="phone")
    return offer, checked, _traveller(actor, traveller_email)


def stay_prepare(
    *,
    actor: Any,
    offer_id: int,
    guests: list[dict[str, Any]],
    email: str,
    phone: str,
    expected_total: Decimal | None = None,
    traveller_email: str = "",
) -> Booking:
    """The rate quoted at the provider (its price checked), kept for a person to pay and book."""
    offer, checked, traveller = stay_checked(
        actor=actor,
        offer_id=offer_id,
        guests=guests,
        email=email,
        phone=phone,
        traveller_email=traveller_email,
    )
    provider = providers.provider("prepareStayBooking")
    quote = provider.quote_stay(offer.provider_id)
    _repriced(offer, quote.total, quote.currency, expected_total)
    with transaction.atomic():
        booking = Booking.objects.create(
            kind=Kind.STAY,
            offer=offer,
            title=offer.title,
            traveller=traveller,
            provider=provider.name,
            provider_id=quote.id[:100],
            status=Booking.Status.QUOTED,
            total=quote.total,
            currency=quote.currency,
            starts_on=offer.starts_on,
            ends_on=offer.ends_on or offer.starts_on,
            conditions={"cancellation": offer.snapshot.get("cancellation") or []},
            created_by=actor,
        )
        _passengers(booking, checked)
    return booking


CANCELLABLE = (Booking.Status.HELD, Booking.Status.QUOTED, Booking.Status.CONFIRMED)


def booking_for_update(*, actor: Any, booking_id: int, action: str, lock: bool = False) -> Booking:
    """The booking updateTravelBooking may act on, checked before any confirmation is asked, and
    again, locked (`lock`), as it acts: a payment made meanwhile is seen, not raced."""
    require(actor, TravelPerm.BOOK)
    booking = Booking.objects.fetch(actor, booking_id, "change", lock=lock)
    if action == "cancel" and booking.status not in CANCELLABLE:
        raise errors.NotCancellable(booking=booking.pk, status=booking.get_status_display())
    return booking


@transaction.atomic
def booking_update(*, actor: Any, booking_id: int, action: str, note: str = "") -> Booking:
    """A note written on the booking, or the booking cancelled at the provider (its refund as the
    provider quotes it; a stay quote not yet booked is only dropped)."""
    booking = booking_for_update(actor=actor, booking_id=booking_id, action=action, lock=True)
    if action == "note":
        booking.note = clean.text(note, field="note", limit=500, required=True)
        booking.save(update_fields=["note", "updated_at"])
        return booking
    cancelled = None
    if booking.kind == Kind.FLIGHT:
        cancelled = providers.provider("updateTravelBooking").cancel_flight(booking.provider_id)
    elif booking.status == Booking.Status.CONFIRMED:
        cancelled = providers.provider("updateTravelBooking").cancel_stay(booking.provider_id)
    booking.status = Booking.Status.CANCELLED
    booking.cancelled_at = timezone.now()
    booking.refund = cancelled.refund if cancelled else None
    booking.refund_currency = cancelled.currency if cancelled else ""
    if note:
        booking.note = clean.text(note, field="note", limit=500)
    booking.save(update_fields=["status", "cancelled_at", "refund", "refund_currency", "note", "updated_at"])
    return booking


@transaction.atomic
def booking_pay(*, actor: Any, booking_id: int) -> Booking:
    """A person pays a held order or books a quoted stay, on the workspace's page, from the
    workspace's balance at the provider: no card number passes through the service or an agent."""
    require(actor, TravelPerm.BOOK)
    booking = Booking.objects.fetch(actor, booking_id, "change", lock=True)
    if booking.status not in (Booking.Status.HELD, Booking.Status.QUOTED):
        raise errors.NotPayable(booking=booking.pk, status=booking.get_status_display())
    if booking.payment_required_by and booking.payment_required_by <= timezone.now():
        raise errors.HoldLapsed(booking=booking.pk, expired=booking.payment_required_by.isoformat())
    provider = providers.provider("travel payment")
    if booking.kind == Kind.FLIGHT:
        provider.pay_flight(order_id=booking.provider_id, amount=booking.total, currency=booking.currency)
    else:
        lead = booking.passengers.order_by("pk").first()
        if lead is None:
            raise invalid("guests", _("name at least the lead guest"))
        booked, reference = provider.book_stay(
            quote_id=booking.provider_id,
            guests=[
                {"given_name": p.given_name, "family_name": p.family_name}
                for p in booking.passengers.order_by("pk")
            ],
            email=lead.email,
            phone=lead.phone,
        )
        # From now on the stay is the booking, not its quote: a cancellation names the booking.
        booking.provider_id, booking.booking_reference = booked, reference
    booking.status = Booking.Status.CONFIRMED
    booking.paid_by, booking.paid_at = actor, timezone.now()
    booking.save(
        update_fields=["status", "paid_by", "paid_at", "provider_id", "booking_reference", "updated_at"]
    )
    return booking


def identity_visible(actor: Any, booking: Booking, passenger: Passenger) -> bool:
    """A passenger's identity data (birth date, contact): the area's admins', the person's own (the
    passenger's e-mail theirs), and the traveller's on a booking for them alone. A team booking's
    traveller reads their colleagues' names, never their birth dates or contacts."""
    if not actor:
        return False
    if can(actor, TravelPerm.ADMIN):
        return True
    email = str(getattr(actor, "email", "") or "").lower()
    if email and passenger.email.lower() == email:
        return True
    return booking.traveller_id == getattr(actor, "pk", None) and len(booking.passengers.all()) == 1


# A trip's last day is the day it leaves for home (or its one way): an overnight flight, or one
# over the date line, lands a day or two later, its passengers' details still those of a trip.
PURGE_AFTER = timedelta(days=2)


def purge_identities() -> int:
    """Birth dates, genders and contacts of the passengers of every trip over (`PURGE_AFTER`)."""
    over = timezone.localdate() - PURGE_AFTER
    return Passenger.objects.filter(purged_at__isnull=True, booking__ends_on__lt=over).update(
        born_on=None, gender="", title="", email="", phone="", purged_at=timezone.now()
    )
