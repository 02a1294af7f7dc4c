"""Flights and Stays' records: offers found at the travel provider, kept as snapshots with their
expiry (Offer), the bookings prepared from them (Booking: a flight order on hold, a stay quote),
and the travellers named on each (Passenger: identity data, purged after the trip)."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from apps.core.records import Access, Record, RecordQuerySet
from apps.travel.permissions import TravelPerm


class Kind(models.TextChoices):
    FLIGHT = "flight", _("flight")
    STAY = "stay", _("stay")


class Offer(Record):
    """An offer as the provider gave it when found: never bookable as kept, re-priced first."""

    # Its finder's (what someone looks for says where they go); the area's admins see every one.
    access = Access(
        TravelPerm,
        visibility="owner",
        owner="created_by",
        manage=TravelPerm.BOOK,
        label=_("Travel offer"),
        find_with="findFlightOffers",
    )

    kind = models.CharField(_("kind"), max_length=10, choices=Kind.choices)
    provider = models.CharField(_("provider"), max_length=20)
    # The provider's id: a Duffel offer (off_...) or a stay rate (rat_...).
    provider_id = models.CharField(_("provider's id"), max_length=100)
    title = models.CharField(_("title"), max_length=300)
    # Totals include taxes and the provider's mandatory fees; a stay's fees paid at the property
    # are kept apart (`due_at_property`), in the property's currency.
    total = models.DecimalField(_("total"), max_digits=12, decimal_places=2)
    currency = models.CharField(_("currency"), max_length=3)
    due_at_property = models.DecimalField(max_digits=12, decimal_places=2, null=True, blank=True)
    due_at_property_currency = models.CharField(max_length=3, blank=True)
    starts_on = models.DateField(_("departs or checks in"))
    ends_on = models.DateField(_("returns or checks out"), null=True, blank=True)
    expires_at = models.DateTimeField(_("expires"))
    # What the provider said, trimmed to what a person compares (slices, conditions, room, policy).
    snapshot = models.JSONField(default=dict)
    bookmarked_at = models.DateTimeField(_("bookmarked"), null=True, blank=True)
    note = models.CharField(_("note"), max_length=500, blank=True)

    class Meta:
        indexes = [models.Index(fields=["created_by", "-created_at"], name="travel_offer_by_maker")]

    def __str__(self) -> str:
        return self.title


class Booking(Record):
    """A flight order on hold (paid later, by a person) or a stay quote, from one offer."""

    # Its maker's and its traveller's; the area's admins see every one.
    access = Access(
        TravelPerm,
        visibility="owner",
        owner=("created_by", "traveller"),
        manage=TravelPerm.BOOK,
        label=_("Travel booking"),
        find_with="getTravelOverview",
    )

    class Status(models.TextChoices):
        HELD = "held", _("held, awaiting payment")
        QUOTED = "quoted", _("quoted, awaiting payment")
        CONFIRMED = "confirmed", _("confirmed")
        CANCELLED = "cancelled", _("cancelled")

    kind = models.CharField(_("kind"), max_length=10, choices=Kind.choices)
    # The offer it came from (gone when its finder's data is erased: the booking keeps its title).
    offer = models.ForeignKey(
        Offer, on_delete=models.SET_NULL, null=True, blank=True, related_name="bookings"
    )
    title = models.CharField(_("title"), max_length=300)
    traveller = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    provider = models.CharField(_("provider"), max_length=20)
    # The order (ord_...) or the stay quote (quo_...), then the stay booking (bok_...).
    provider_id = models.CharField(_("provider's id"), max_length=100)
    booking_reference = models.CharField(_("booking reference"), max_length=50, blank=True)
    status = models.CharField(_("status"), max_length=10, choices=Status.choices)
    total = models.DecimalField(_("total"), max_digits=12, decimal_places=2)
    currency = models.CharField(_("currency"), max_length=3)
    payment_required_by = models.DateTimeField(_("pay by"), null=True, blank=True)
    price_guaranteed_until = models.DateTimeField(null=True, blank=True)
    starts_on = models.DateField(_("departs or checks in"))
    ends_on = models.DateField(_("trip ends"))
    conditions = models.JSONField(default=dict)
    note = models.CharField(_("note"), max_length=500, blank=True)
    cancelled_at = models.DateTimeField(null=True, blank=True)
    refund = models.DecimalField(max_digits=12, decimal_places=2, null=True, blank=True)
    # A provider may refund in another currency than the price's (a fare paid in GBP, refunded in EUR).
    refund_currency = models.CharField(max_length=3, blank=True)
    paid_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    paid_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["status", "ends_on"], name="travel_booking_status")]

    def __str__(self) -> str:
        return f"{self.title} ({self.get_status_display()})"


class Passenger(models.Model):
    """A traveller on a booking: the name as on their travel document, and identity data that only
    they and the area's admins read, purged the day after the trip (tasks.purge_identities)."""

    access = Access(TravelPerm, through="booking")

    booking = models.ForeignKey(Booking, on_delete=models.CASCADE, related_name="passengers")
    given_name = models.CharField(_("given name"), max_length=60)
    family_name = models.CharField(_("family name"), max_length=60)
    title = models.CharField(_("title"), max_length=5, blank=True)
    born_on = models.DateField(_("born on"), null=True, blank=True)
    gender = models.CharField(_("gender"), max_length=1, blank=True)
    email = models.EmailField(_("e-mail"), blank=True)
    phone = models.CharField(_("phone"), max_length=30, blank=True)
    purged_at = models.DateTimeField(null=True, blank=True)

    objects = RecordQuerySet.as_manager()

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(purged_at__isnull=True) | Q(born_on__isnull=True), name="travel_purged_no_birth"
            )
        ]

    def __str__(self) -> str:
        return f"{self.given_name} {self.family_name}"
