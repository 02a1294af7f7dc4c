"""Provider Travel Search, as the rest of the service knows it (apps.core.areas): flights,
properties, cars and activities compared at travel providers (Booking.com's Demand API, flights
through Flights and Stays' Duffel), kept as snapshots with their expiry and saved to a shortlist."""

from django.utils.translation import gettext_lazy as _

from apps.core import areas, env
from apps.core.navigation import NavItem
from apps.travelsearch.permissions import TravelSearchPerm

TOOLS = (
    "getProviderSummary",
    "searchProviderFlights",
    "searchProviderProperties",
    "getProviderPropertyDetails",
    "searchProviderCars",
    "searchProviderActivities",
    "getProviderActivityOffers",
    "saveProviderFlight",
    "saveProviderProperty",
    "saveProviderCar",
    "saveProviderActivity",
)

area = areas.declare(
    title=_("Travel search"),
    catalogue_title="Provider Travel Search",
    group=areas.Group.WORK,
    description=_("Flights, hotels, rental cars and activities compared at travel providers and shortlisted"),
    words="travel trip compare shortlist hotel property car rental hire activity tour attraction flight",
    hints={
        "getProviderSummary": (
            "travel search providers set up connected, saved travel shortlist, team's shared options"
        ),
        "searchProviderFlights": (
            "compare flight prices airfares for a trip shortlist, price check without booking"
        ),
        "searchProviderProperties": (
            "Booking.com hotels apartments properties to stay in a city, adults children guests rooms"
        ),
        "getProviderPropertyDetails": (
            "property hotel details facilities amenities photos policies, its rooms prices cancellation"
        ),
        "searchProviderCars": (
            "compare car rental hire prices, rent a car, pick-up drop-off at an airport, driver age"
        ),
        "searchProviderActivities": (
            "things to do, tours attractions excursions sightseeing museum tickets in a city"
        ),
        "getProviderActivityOffers": (
            "an activity's dates time slots and ticket prices, tour or class availability"
        ),
        "saveProviderFlight": "save shortlist a flight price option, share it with the team",
        "saveProviderProperty": "save shortlist a hotel property apartment room option, share it",
        "saveProviderCar": "save shortlist keep a rental car hire offer for later",
        "saveProviderActivity": "save shortlist an activity tour excursion tickets on a date",
    },
    profiles={"travel": TOOLS},
    nav=[
        NavItem(
            "travelsearch", _("Travel search"), "travelsearch:travelsearch", TravelSearchPerm.VIEW, order=27
        )
    ],
    not_kinds={
        "travelsearch.Offer": "a provider's result as found, reached through the search that found it",
        "travelsearch.SavedItem": "a shortlisted travel option, listed by getProviderSummary",
    },
    settings={
        # booking: the Booking.com Demand API (properties, cars, attractions).
        "ATRIUM_TRAVELSEARCH_PROVIDER": env.str("ATRIUM_TRAVELSEARCH_PROVIDER", "booking"),
        # The Demand API's token and affiliate id; either empty: not configured.
        "ATRIUM_TRAVELSEARCH_BOOKING_TOKEN": env.str("ATRIUM_TRAVELSEARCH_BOOKING_TOKEN", ""),
        "ATRIUM_TRAVELSEARCH_BOOKING_AFFILIATE_ID": env.str("ATRIUM_TRAVELSEARCH_BOOKING_AFFILIATE_ID", ""),
        "ATRIUM_TRAVELSEARCH_BOOKING_URL": env.str(
            "ATRIUM_TRAVELSEARCH_BOOKING_URL", "https://demandapi.booking.com/3.2"
        ),
        # The booker's country (two letters, lower case) and the language of names and descriptions.
        "ATRIUM_TRAVELSEARCH_BOOKER_COUNTRY": env.str("ATRIUM_TRAVELSEARCH_BOOKER_COUNTRY", "gb"),
        "ATRIUM_TRAVELSEARCH_LANGUAGE": env.str("ATRIUM_TRAVELSEARCH_LANGUAGE", "en-gb"),
        "ATRIUM_TRAVELSEARCH_CURRENCY": env.str("ATRIUM_TRAVELSEARCH_CURRENCY", "EUR"),
        # A result's price is held this long after it was found (the Demand API's carry no expiry).
        "ATRIUM_TRAVELSEARCH_OFFER_MINUTES": env.int(
            "ATRIUM_TRAVELSEARCH_OFFER_MINUTES", 30, min=1, max=1440
        ),
        "ATRIUM_TRAVELSEARCH_TIMEOUT_SECONDS": env.int("ATRIUM_TRAVELSEARCH_TIMEOUT_SECONDS", 15, min=1),
    },
)
