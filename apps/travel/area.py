"""Flights and Stays, as the rest of the service knows it (apps.core.areas): flight and stay offers
found at a travel provider (Duffel), bookmarked, re-priced and held or quoted, paid by a person."""

from celery.schedules import crontab
from django.utils.translation import gettext_lazy as _

from apps.core import areas, env
from apps.core.navigation import NavItem
from apps.travel.permissions import TravelPerm

area = areas.declare(
    title=_("Flights and stays"),
    catalogue_title="Flights and Stays",
    group=areas.Group.WORK,
    description=_("Flight and hotel offers found at Duffel, bookmarked, held or quoted, paid by a person"),
    words="travel trip flight flights airline plane fare hotel stay stays room accommodation booking",
    hints={
        "getTravelOverview": "my trips itinerary, travel bookings to pay, payment deadline, provider set",
        "findFlightOffers": "flight search airfare plane tickets between airports, one way or return",
        "findStayOffers": (
            "hotel accommodation options, lodging rooms to stay close to a place or office, nights"
        ),
        "bookmarkFlightOffer": "shortlist save a flight airfare to compare",
        "bookmarkStayOffer": "shortlist save a hotel room rate to compare",
        "prepareFlightBooking": "book reserve a flight fare ticket, put on hold for a passenger",
        "prepareStayBooking": "book reserve a hotel room found or bookmarked, quote the stay for guests",
        "updateTravelBooking": "cancel a flight or hotel reservation, refund, note on a trip",
    },
    profiles={
        "travel": (
            "getTravelOverview",
            "findFlightOffers",
            "findStayOffers",
            "bookmarkFlightOffer",
            "bookmarkStayOffer",
            "prepareFlightBooking",
            "prepareStayBooking",
            "updateTravelBooking",
        )
    },
    nav=[NavItem("travel", _("Travel"), "travel:travel", TravelPerm.VIEW, order=26)],
    not_kinds={
        "travel.Offer": "a provider's offer as found, reached through the search that found it",
        "travel.Booking": "a hold or quote at the travel provider, listed by getTravelOverview",
        "travel.Passenger": "a traveller's identity on one booking, purged after the trip",
    },
    periodic={
        # Travellers' identity data (birth date, gender, contact) purged the day after their trip.
        "travel-purge-identities": areas.Periodic(
            "apps.travel.tasks.purge_identities", crontab(hour=3, minute=17)
        ),
    },
    settings={
        # duffel: the one provider of flights and stays so far.
        "ATRIUM_TRAVEL_PROVIDER": env.str("ATRIUM_TRAVEL_PROVIDER", "duffel"),
        # A Duffel access token (duffel_live_... or duffel_test_...); empty: not configured.
        "ATRIUM_TRAVEL_DUFFEL_TOKEN": env.str("ATRIUM_TRAVEL_DUFFEL_TOKEN", ""),
        "ATRIUM_TRAVEL_DUFFEL_URL": env.str("ATRIUM_TRAVEL_DUFFEL_URL", "https://api.duffel.com"),
        "ATRIUM_TRAVEL_DUFFEL_VERSION": env.str("ATRIUM_TRAVEL_DUFFEL_VERSION", "v2"),
        # A stay rate is held to its price this long after it was found (Duffel's rates say no expiry).
        "ATRIUM_TRAVEL_STAY_RATE_MINUTES": env.int("ATRIUM_TRAVEL_STAY_RATE_MINUTES", 30, min=1, max=1440),
        "ATRIUM_TRAVEL_TIMEOUT_SECONDS": env.int("ATRIUM_TRAVEL_TIMEOUT_SECONDS", 20, min=1),
    },
)
