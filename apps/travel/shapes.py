"""The answers Flights and Stays' tools share."""

from datetime import date, datetime
from decimal import Decimal
from typing import Any

from pydantic import Field

from apps.catalogue.shapes import Out


class OfferOut(Out):
    id: int
    kind: str
    title: str
    total: Decimal = Field(description="Taxes and the provider's mandatory fees included")
    currency: str
    due_at_property: Decimal | None = Field(description="Local fees paid at the property, on top")
    due_at_property_currency: str
    starts_on: date
    ends_on: date | None
    expires_at: datetime = Field(description="Re-priced when prepared; past it, search again")
    bookmarked: bool
    note: str
    details: dict[str, Any]


class PassengerOut(Out):
    given_name: str
    family_name: str
    born_on: date | None = None
    email: str = ""
    phone: str = ""
    purged: bool = False


class BookingOut(Out):
    id: int
    kind: str
    offer_id: int | None
    title: str
    status: str
    booking_reference: str
    total: Decimal = Field(description="The exact total to pay, fees included")
    currency: str
    payment_required_by: datetime | None = Field(description="Unpaid by then, the hold lapses")
    price_guaranteed_until: datetime | None
    starts_on: date
    ends_on: date
    conditions: dict[str, Any] = Field(description="Change, refund and cancellation terms")
    refund: Decimal | None
    refund_currency: str = Field(description="Of the refund, which may differ from the price's")
    note: str
    payment_url: str = Field(description="Where a person pays; agents never pay")
    passengers: list[PassengerOut] = Field(description="Identity data for the traveller and admins only")
