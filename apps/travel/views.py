"""Settings → Travel: the offers a person's agents found and bookmarked, the bookings they held or
quoted (every one, to the area's admins), which provider is set; and each booking's payment page,
where a person (never an agent) reads the exact total and terms and pays."""

from django.conf import settings
from django.contrib import messages
from django.db import transaction
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from apps.accounts.requests import AuthenticatedHttpRequest
from apps.core.pages import READ, page, paged
from apps.travel import providers, services
from apps.travel.models import Booking, Offer
from apps.travel.permissions import TravelPerm


@page(TravelPerm.VIEW, methods=READ)
def travel(request: AuthenticatedHttpRequest) -> HttpResponse:
    bookings = Booking.objects.restrict(request.user).select_related("created_by", "traveller")
    offers = Offer.objects.restrict(request.user).select_related("created_by").order_by("-created_at", "-id")
    return render(
        request,
        "travel/travel.html",
        {
            "nav": "travel",
            **paged(request, bookings.order_by("-created_at", "-id")),
            "bookmarks": offers.filter(bookmarked_at__isnull=False)[:50],
            "found": offers.filter(bookmarked_at__isnull=True)[:20],
            "provider": providers.configured(),
            "chosen_provider": settings.ATRIUM_TRAVEL_PROVIDER,
        },
    )


@page(TravelPerm.BOOK, methods=("GET", "HEAD", "POST"), back="travel:travel")
def pay(request: AuthenticatedHttpRequest, booking_id: int) -> HttpResponse:
    if request.method == "POST":
        with transaction.atomic():
            paid = services.booking_pay(actor=request.user, booking_id=booking_id)
        messages.success(
            request, _("Paid: booking reference %(ref)s.") % {"ref": paid.booking_reference or paid.pk}
        )
        return redirect("travel:travel")
    booking = (
        Booking.objects.select_related("offer")
        .prefetch_related("passengers")
        .fetch(request.user, booking_id, "change")
    )
    passengers = sorted(booking.passengers.all(), key=lambda person: person.pk)
    for person in passengers:
        person.seen = services.identity_visible(request.user, booking, person)  # type: ignore[attr-defined]
    return render(
        request,
        "travel/pay.html",
        {
            "nav": "travel",
            "booking": booking,
            "payable": booking.status in (Booking.Status.HELD, Booking.Status.QUOTED),
            "passengers": passengers,
        },
    )
