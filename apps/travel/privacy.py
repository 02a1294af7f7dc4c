"""Personal data in Flights and Stays (docs/privacy.md): the offers a person found and the
bookings they made go with them; a booking made for them (its traveller) is theirs too; each
passenger's row (name, birth date, contact) goes with that passenger's address."""

from apps.core import privacy
from apps.travel.models import Booking, Offer, Passenger

privacy.register(Offer, user="created_by")
privacy.register(Booking, user="traveller")
privacy.register(Passenger, email="email")
