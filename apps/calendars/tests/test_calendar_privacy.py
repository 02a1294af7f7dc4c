"""An event everyone sees names no attendee from its organiser's private contacts: the address
is invited (the invitation is sent to it), the name in the private contact is not copied."""

import json

import pytest

from apps.calendars.tests.factories import CalendarFactory, EventFactory
from apps.catalogue.dispatch import MemorySession
from apps.catalogue.testing import ok
from apps.contacts.tests.factories import ContactFactory


@pytest.mark.parametrize("reader", ["member", "viewer"])
def test_an_attendee_from_a_private_contact_is_not_named(people, reader):
    owner = people["owner"]
    contact = ContactFactory(
        actor=owner, first_name="Zanzibar", email="guest@example.org", visibility="private"
    )
    event = EventFactory(
        organizer=owner, calendar=CalendarFactory(owner=owner), attendees=[{"contact_id": contact.pk}]
    )

    session = MemorySession()
    ok(people[reader], "getCalendarSummary", {}, session=session)
    answer = ok(people[reader], "checkEventRsvpStatus", {"eventId": event.pk}, session=session)

    assert "Zanzibar" not in json.dumps(answer)
    assert "guest@example.org" in json.dumps(answer)
