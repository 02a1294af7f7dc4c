"""A process never holds more database connections than DATABASE_MAX_CONNECTIONS
(apps/core/dbbackend): real threads, each with its own connection to the test database."""

import gc
import threading
import time
from collections.abc import Callable, Iterator

import pytest
from django.db import OperationalError, connection

from apps.core.dbbackend.base import slots


@pytest.fixture
def ceiling(committed, settings) -> Iterator[None]:  # type: ignore[no-untyped-def]
    settings.DATABASE_MAX_CONNECTIONS = 2
    settings.DATABASE_CONNECTION_WAIT_SECONDS = 0.5
    connection.close()  # this thread's, taken before the ceiling was set
    yield
    connection.close()
    settings.DATABASE_MAX_CONNECTIONS = 0


def backend_pids() -> set[int]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return {cursor.fetchone()[0]}


class Holder:
    """A thread that opens a connection and keeps it until told (`release`: closing it, or, with
    `close=False`, ending without closing it)."""

    def __init__(self, close: bool = True) -> None:
        self.opened = threading.Event()
        self.done = threading.Event()
        self.error: BaseException | None = None
        self.close = close
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            backend_pids()
        except BaseException as error:
            self.error = error
        self.opened.set()
        self.done.wait(30)
        if self.close:
            connection.close()

    def release(self) -> None:
        self.done.set()
        self.thread.join(10)


def in_thread(work: Callable[[], object]) -> object:
    box: list[object] = []

    def run() -> None:
        try:
            box.append(work())
        except BaseException as error:
            box.append(error)
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(30)
    return box[0]


def test_past_the_ceiling_a_thread_waits_then_is_refused_and_gets_a_slot_once_one_is_given_back(ceiling):
    before = slots.in_use  # connections this process opened before the test, under no ceiling
    first, second = Holder(), Holder()
    try:
        assert first.opened.wait(10) and second.opened.wait(10)
        assert first.error is None and second.error is None
        assert slots.in_use == before + 2

        started = time.monotonic()
        refused = in_thread(backend_pids)
        assert isinstance(refused, OperationalError) and "DATABASE_MAX_CONNECTIONS" in str(refused)
        assert time.monotonic() - started >= 0.5

        first.release()
        assert isinstance(in_thread(backend_pids), set)
    finally:
        first.release()
        second.release()
    assert slots.in_use == before


def test_a_thread_that_ends_without_closing_gives_its_slot_back(ceiling):
    before = slots.in_use
    forgetful = Holder(close=False)
    assert forgetful.opened.wait(10) and forgetful.error is None
    forgetful.release()
    del forgetful
    gc.collect()
    assert slots.in_use == before
    other, another = Holder(), Holder()
    try:
        assert other.opened.wait(10) and another.opened.wait(10)
        assert other.error is None and another.error is None
    finally:
        other.release()
        another.release()
