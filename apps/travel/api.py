"""Flights and Stays' public module: what another area (Provider Travel Search) uses of it. The
flight provider the settings pick (Duffel), its offers' shape, the check of an IATA code, and the
errors its adapter answers in."""

from apps.travel.errors import TravelNotConfigured, TravelProviderFailed, TravelProviderRefused
from apps.travel.providers import Duffel, FlightOffer, FlightsAndStays, configured, provider
from apps.travel.services import MAX_PASSENGERS, airport

__all__ = [
    "MAX_PASSENGERS",
    "Duffel",
    "FlightOffer",
    "FlightsAndStays",
    "TravelNotConfigured",
    "TravelProviderFailed",
    "TravelProviderRefused",
    "airport",
    "configured",
    "provider",
]
