"""The agenda's rule under concurrency: a room is not used by two sessions of its event at once,
and a speaker does not speak in two sessions at once in any event. The service checks first (and
names the session in the way); the database's exclusion constraints hold the rule when two agendas
are written at the same moment, which the lock per event cannot: two events are two locks."""

import secrets
import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.db import IntegrityError, connection, transaction
from django_tenants.utils import schema_context

from apps.accounts.models import User
from apps.core.db import EXCLUSION_VIOLATION, database_failure
from apps.events import errors, services
from apps.events.models import Event, Session, Speaker
from apps.events.tests.factories import EventFactory


def fields(event: Event, title: str, minutes: int = 0, room: str = "") -> dict[str, Any]:
    starts = event.starts_at + timedelta(minutes=minutes)
    return {"title": title, "starts_at": starts, "ends_at": starts + timedelta(hours=1), "room": room}


def violation_of(error: IntegrityError) -> str:
    failure = database_failure(error)
    assert failure is not None
    return f"{failure.sqlstate} {failure.constraint}"


@pytest.mark.django_db
def test_the_database_refuses_a_room_taken_at_that_time_whatever_writes_it(people):
    event = EventFactory(actor=people["member"])
    Session.objects.create(event=event, **fields(event, "Keynote", room="Main Hall"))

    with pytest.raises(IntegrityError) as refused, transaction.atomic():
        Session.objects.create(event=event, **fields(event, "Panel", minutes=30, room="main hall"))

    assert violation_of(refused.value) == f"{EXCLUSION_VIOLATION} events_room_once_at_a_time"
    # Back to back is not at once; another room, or no room, is no clash.
    Session.objects.create(event=event, **fields(event, "Next", minutes=60, room="Main Hall"))
    Session.objects.create(event=event, **fields(event, "Aside", minutes=30, room="Room B"))
    Session.objects.create(event=event, **fields(event, "Walk", minutes=30))
    # The same room name in another event is another room.
    other = EventFactory(actor=people["member"])
    Session.objects.create(event=other, **fields(other, "Elsewhere", room="Main Hall"))


@pytest.mark.django_db
def test_the_database_refuses_a_speaker_booked_twice_at_that_time_in_any_event(people):
    first, second = EventFactory(actor=people["member"]), EventFactory(actor=people["member"])
    span = fields(first, "Keynote")
    talk = Session.objects.create(event=first, **span)
    Speaker.objects.create(session=talk, name="Ada", email="ada@example.org", **_times(span))
    panel = Session.objects.create(event=second, **fields(first, "Panel", minutes=30))

    with pytest.raises(IntegrityError) as refused, transaction.atomic():
        Speaker.objects.create(
            session=panel, name="Ada", email="ADA@example.org", **_times(fields(first, "x", minutes=30))
        )

    assert violation_of(refused.value) == f"{EXCLUSION_VIOLATION} events_speaker_once_at_a_time"


def _times(span: dict[str, Any]) -> dict[str, Any]:
    return {"starts_at": span["starts_at"], "ends_at": span["ends_at"]}


@pytest.fixture
def two_events(committed) -> Iterator[tuple[User, Event, Event]]:  # type: ignore[no-untyped-def]
    """Two events of Acme's member, committed: the agendas are written by two connections."""
    with schema_context("acme"):
        member = User.objects.get(email="member@acme.example")
        marker = secrets.token_hex(4)
        events = [EventFactory(actor=member, name=f"Race {marker} {n}") for n in (1, 2)]
    yield member, events[0], events[1]
    with schema_context("acme"):
        Event.objects.filter(pk__in=[event.pk for event in events]).delete()


def test_a_speaker_booked_in_two_events_at_the_same_moment_is_refused_to_the_second(two_events):
    member, first, second = two_events
    speakers = [{"name": "Grace", "email": "grace@example.org"}]
    written = threading.Event()
    outcome: dict[str, Any] = {}

    def book_first() -> None:
        # Adds the session and holds the transaction open while the other books.
        try:
            with schema_context("acme"), transaction.atomic():
                services.session_add(
                    actor=member, event=first, fields=fields(first, "Keynote"), speakers=speakers
                )
                written.set()
                time.sleep(1.0)
        finally:
            connection.close()

    def book_second() -> None:
        written.wait(10)
        try:
            with schema_context("acme"):
                outcome["session"] = services.session_add(
                    actor=member,
                    event=second,
                    fields=fields(first, "Fireside", minutes=30),
                    speakers=speakers,
                )
        except errors.SessionClash as clash:
            outcome["clash"] = clash
        finally:
            connection.close()

    threads = [threading.Thread(target=book_first), threading.Thread(target=book_second)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)

    # The second's own check could not see the first, still uncommitted: the constraint made it
    # wait for the first to commit, then refused it, and the clash names the session in the way.
    assert "session" not in outcome, "the speaker was booked twice"
    assert "grace@example.org already speaks in session" in str(outcome["clash"].message)
    assert "'Keynote'" in str(outcome["clash"].message)
    assert time.monotonic() - started >= 1.0
    with schema_context("acme"):
        assert list(Session.objects.filter(event__in=[first, second]).values_list("title", flat=True)) == [
            "Keynote"
        ]
        assert Speaker.objects.filter(email="grace@example.org", session__event=first).count() == 1
