"""Held-out requests for Flights and Stays, written from SPEC.md 4.7 and docs/travel.md before any
search hints; never used to tune (see test_search_quality.py)."""

HELD_OUT: list[tuple[str, str | tuple[str, ...]]] = [
    ("when do I have to pay for the flight I held", "getTravelOverview"),
    ("look for flights to Berlin on the 14th, two adults", "findFlightOffers"),
    ("find me somewhere to stay in Paris from Monday to Thursday", "findStayOffers"),
    ("shortlist this airfare", "bookmarkFlightOffer"),
    ("hold the Madrid flight for Sam Taylor", "prepareFlightBooking"),
    ("book a room at the hotel offer you found", "prepareStayBooking"),
    ("cancel the trip to Lisbon that is on hold", "updateTravelBooking"),
]
