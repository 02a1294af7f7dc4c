"""Held-out requests for Provider Travel Search, written from SPEC.md 4.7 and AREAS.md 2.19 before
any search hints; never used to tune (see test_search_quality.py)."""

HELD_OUT: list[tuple[str, str | tuple[str, ...]]] = [
    ("is Booking.com connected for travel search", "getProviderSummary"),
    ("compare airfares to Oslo for the shortlist without booking anything", "searchProviderFlights"),
    ("hotels in Vienna for 4 guests in 2 rooms", "searchProviderProperties"),
    ("tell me more about this property, its amenities and rooms", "getProviderPropertyDetails"),
    ("car rental in Nice from the airport", "searchProviderCars"),
    ("activities and excursions to book in Lisbon", "searchProviderActivities"),
    ("what times can we do the cooking class and how much", "getProviderActivityOffers"),
    ("shortlist this flight price", "saveProviderFlight"),
    ("save the apartment to our shortlist", "saveProviderProperty"),
    ("keep the rental car offer for later", "saveProviderCar"),
    ("save the kayak excursion for Sunday", "saveProviderActivity"),
]
