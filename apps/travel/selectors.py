"""Flights and Stays' reads: one's bookmarks and bookings, the overview, and each booking's
travellers as the reader may see them (identity data: the traveller's and the admins')."""

from typing import Any

from django.utils import timezone

from apps.core.records import RecordQuerySet
from apps.tenancy import links
from apps.travel import services
from apps.travel.models import Booking, Offer
from apps.travel.shapes import BookingOut, OfferOut, PassengerOut


def bookmarks(actor: Any, *, most: int = 10) -> RecordQuerySet[Offer]:
    return Offer.objects.restrict(actor).filter(bookmarked_at__isnull=False).order_by("-bookmarked_at")[:most]


def upcoming(actor: Any, *, most: int = 10) -> RecordQuerySet[Booking]:
    return (
        Booking.objects.restrict(actor)
        .filter(ends_on__gte=timezone.localdate())
        .exclude(status=Booking.Status.CANCELLED)
        .select_related("offer")
        .prefetch_related("passengers")
        .order_by("starts_on", "pk")[:most]
    )


def offer_out(offer: Offer) -> OfferOut:
    return OfferOut.of_record(offer, bookmarked=offer.bookmarked_at is not None, details=offer.snapshot)


def booking_out(actor: Any, booking: Booking) -> BookingOut:
    passengers = []
    for person in booking.passengers.all():
        sees = services.identity_visible(actor, booking, person)
        passengers.append(
            PassengerOut(
                given_name=person.given_name,
                family_name=person.family_name,
                born_on=person.born_on if sees else None,
                email=person.email if sees else "",
                phone=person.phone if sees else "",
                purged=person.purged_at is not None,
            )
        )
    return BookingOut.of_record(
        booking,
        payment_url=links.page("travel:pay", booking_id=booking.pk)
        if booking.status in (Booking.Status.HELD, Booking.Status.QUOTED)
        else "",
        passengers=passengers,
    )
