"""What a process keeps (apps.core.kept): a short while untold, longer under the stamp it was read
in, never past what it says of itself."""

import threading
import time

import pytest
from django.db import connection, transaction

from apps.core import kept
from apps.core.kept import MISSING, REVOKED, WORKSPACES, Kept


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now

    def time(self) -> float:
        return 1_800_000_000.0 + self.now


class Listener:
    """A process's listener: subscribed or not, counting the messages of each kind."""

    def __init__(self) -> None:
        self.epoch = 1
        self.live = True
        self.told = dict.fromkeys(kept.KINDS, 0)

    def stamp(self, kind: str) -> kept.Stamp:
        return (self.epoch, self.told[kind]) if self.live else None

    def trusts(self, stamp: kept.Stamp, kind: str) -> bool:
        return stamp is not None and self.live and stamp == (self.epoch, self.told[kind])


@pytest.fixture
def clock(monkeypatch):  # type: ignore[no-untyped-def]
    clock = Clock()
    monkeypatch.setattr(time, "monotonic", clock.monotonic)
    monkeypatch.setattr(time, "time", clock.time)
    return clock


@pytest.fixture
def listener(monkeypatch):  # type: ignore[no-untyped-def]
    listener = Listener()
    monkeypatch.setattr(kept, "_watch", listener)
    return listener


@pytest.fixture
def told_seconds(settings, monkeypatch):  # type: ignore[no-untyped-def]
    settings.TOLD_CACHE_SECONDS = 60.0
    monkeypatch.setattr(kept, "JITTER", 0)  # the whole told while, for exact times
    return 60.0


def test_entries_kept_together_run_out_spread_over_the_last_quarter_of_the_told_while(
    clock, listener, settings
):
    settings.TOLD_CACHE_SECONDS = 60.0
    cache: Kept[str, str] = Kept(WORKSPACES, lambda: 1.0, limit=1_000)
    for number in range(400):
        cache.put(f"w{number}.example", "kept", cache.stamp())
    clock.now += 44.9
    assert all(cache.get(f"w{number}.example") == "kept" for number in range(400))
    clock.now += 7.5
    halfway = sum(cache.get(f"w{number}.example") is MISSING for number in range(400))
    assert 100 < halfway < 300  # about half of them by the middle of the last quarter
    clock.now += 7.6
    assert all(cache.get(f"w{number}.example") is MISSING for number in range(400))


def routes() -> Kept[str, str | None]:
    return Kept(WORKSPACES, lambda: 10.0)


def test_untold_an_entry_lives_its_short_while(clock, monkeypatch, told_seconds):
    monkeypatch.setattr(kept, "_watch", None)
    cache = routes()
    cache.put("acme.example", "acme", cache.stamp())
    assert cache.stamp() is None

    clock.now += 9.9
    assert cache.get("acme.example") == "acme"
    clock.now += 0.2
    assert cache.get("acme.example") is MISSING
    assert "acme.example" not in cache  # and it is gone


def test_told_an_entry_lives_until_the_told_while_runs_out(clock, listener, told_seconds):
    cache = routes()
    cache.put("nowhere.example", None, cache.stamp())  # "no workspace here" is kept too

    clock.now += 59.9
    assert cache.get("nowhere.example") is None
    clock.now += 0.2
    assert cache.get("nowhere.example") is MISSING


def test_a_message_of_its_kind_read_after_the_stamp_leaves_it_its_short_while(clock, listener, told_seconds):
    cache = routes()
    stamp = cache.stamp()  # a request is about to read the route...
    listener.told[WORKSPACES] += 1  # ...a change is told meanwhile (and forgotten before the put)
    cache.put("acme.example", "acme", stamp)

    clock.now += 9.9
    assert cache.get("acme.example") == "acme"
    clock.now += 0.2
    assert cache.get("acme.example") is MISSING


def test_a_message_of_another_kind_changes_nothing(clock, listener, told_seconds):
    cache = routes()
    cache.put("acme.example", "acme", cache.stamp())
    listener.told[REVOKED] += 1

    clock.now += 30
    assert cache.get("acme.example") == "acme"


def test_losing_the_subscription_ends_the_trust_and_a_new_one_does_not_bring_it_back(
    clock, listener, told_seconds
):
    cache = routes()
    cache.put("acme.example", "acme", cache.stamp())
    listener.live = False  # messages may be lost from here on
    clock.now += 11
    assert cache.get("acme.example") is MISSING

    cache.put("acme.example", "acme", listener.stamp(WORKSPACES))  # read while not subscribed
    listener.live, listener.epoch = True, 2
    clock.now += 11
    assert cache.get("acme.example") is MISSING


def test_an_entry_never_outlives_what_it_says_of_itself(clock, listener, told_seconds):
    cache: Kept[str, str] = Kept(REVOKED, lambda: 5.0)
    cache.put("token", "principal", cache.stamp(), until=time.time() + 3)

    clock.now += 2.9
    assert cache.get("token") == "principal"
    clock.now += 0.2
    assert cache.get("token") is MISSING  # within its short while, but the token has expired


def test_a_short_while_of_zero_keeps_nothing(clock, listener, told_seconds):
    cache: Kept[str, str] = Kept(REVOKED, lambda: 0.0)
    cache.put("token", "principal", cache.stamp())
    assert cache.get("token") is MISSING


def test_entries_are_dropped_by_what_they_hold_and_never_grow_past_the_limit(clock, listener, told_seconds):
    cache: Kept[str, int] = Kept(REVOKED, lambda: 5.0, limit=3)
    for number in range(3):
        cache.put(f"k{number}", number, cache.stamp())
    cache.drop(lambda _key, value: value == 1)
    assert sorted(cache.items()) == [("k0", 0), ("k2", 2)]

    cache.put("k3", 3, cache.stamp())
    cache.put("k4", 4, cache.stamp())  # the limit reached: the oldest goes, not all
    assert cache.items() == [("k2", 2), ("k3", 3), ("k4", 4)]


def test_a_full_cache_drops_the_expired_then_the_oldest_and_keeps_the_recent(clock, listener, told_seconds):
    cache: Kept[str, int] = Kept(REVOKED, lambda: 5.0, limit=20)
    for number in range(20):
        cache.put(f"k{number}", number, cache.stamp())
        clock.now += 1 if number < 5 else 0
    cache.put("k0", 0, cache.stamp())  # put again: the newest now
    clock.now += told_seconds - 1  # k1 to k4 (put 1-4 s before k5) have expired by now

    cache.put("new", 99, cache.stamp())

    kept_keys = [key for key, _value in cache.items()]
    assert "k1" not in kept_keys and "k4" not in kept_keys
    assert kept_keys[-2:] == ["k0", "new"] and len(kept_keys) == 17


@pytest.fixture
def later_jobs(monkeypatch):  # type: ignore[no-untyped-def]
    """The jobs left for later, run when the test says (`run`), not in the background."""
    jobs: list = []
    monkeypatch.setattr(kept, "later", lambda job: jobs.append(job) or True)
    return jobs


def read_again(cache: Kept[str, str], key: str, value: str, reads: list[str]):  # type: ignore[no-untyped-def]
    def renew() -> None:
        reads.append(key)
        cache.put(key, value, cache.stamp())

    return renew


def test_a_trusted_entry_in_use_is_read_again_in_the_background_before_it_runs_out(
    clock, listener, told_seconds, later_jobs
):
    cache = routes()
    reads: list[str] = []
    cache.put("acme.example", "acme", cache.stamp())

    clock.now += 44.9  # three quarters of the told while not yet passed: nothing to do
    assert cache.get("acme.example", renew=read_again(cache, "acme.example", "acme 2", reads)) == "acme"
    assert later_jobs == []

    clock.now += 0.2
    for _ in range(3):  # answered from what is kept; read again once, however many uses meanwhile
        assert cache.get("acme.example", renew=read_again(cache, "acme.example", "acme 2", reads)) == "acme"
    assert len(later_jobs) == 1 and reads == []

    later_jobs.pop()()
    assert reads == ["acme.example"]
    clock.now += 59.9  # what was read is kept its own told while from when it was read
    assert cache.get("acme.example") == "acme 2"


def test_what_is_kept_untold_or_past_its_while_is_not_read_again_in_the_background(
    clock, listener, told_seconds, later_jobs, monkeypatch
):
    cache = routes()
    reads: list[str] = []
    cache.put("acme.example", "acme", cache.stamp())
    listener.told[WORKSPACES] += 1  # a change told: only its short while is left, then it is gone
    clock.now += 50
    assert cache.get("acme.example", renew=read_again(cache, "acme.example", "x", reads)) is MISSING

    monkeypatch.setattr(kept, "_watch", None)
    cache.put("acme.example", "acme", cache.stamp())  # no listener: nothing is trusted
    clock.now += 8
    assert cache.get("acme.example", renew=read_again(cache, "acme.example", "x", reads)) == "acme"
    assert later_jobs == [] and reads == []


def test_a_renewal_that_drops_its_entry_leaves_the_next_use_to_read_it(
    clock, listener, told_seconds, later_jobs
):
    cache: Kept[str, str] = Kept(REVOKED, lambda: 5.0)
    cache.put("token", "principal", cache.stamp())
    clock.now += 46
    assert cache.get("token", renew=lambda: cache.discard("token")) == "principal"

    later_jobs.pop()()  # the token was revoked without a word: read again, it is refused
    assert cache.get("token") is MISSING


def test_what_is_read_again_while_a_change_of_its_kind_is_told_is_not_kept(
    clock, listener, told_seconds, later_jobs
):
    cache: Kept[str, str] = Kept(REVOKED, lambda: 5.0)
    cache.put("token", "principal", cache.stamp())
    clock.now += 46

    def renew() -> None:
        stamp = cache.stamp()
        listener.told[REVOKED] += 1  # a revocation told (and its entries dropped) during the read
        cache.put("token", "principal as read before it", stamp)

    assert cache.get("token", renew=renew) == "principal"
    later_jobs.pop()()
    assert "token" not in cache  # not even for its short while: no request is waiting for it

    # A request's own read in the same moment keeps it its short while, as before.
    stamp = cache.stamp()
    listener.told[REVOKED] += 1
    cache.put("token", "principal as read before it", stamp)
    assert cache.get("token") == "principal as read before it"


def test_jobs_left_for_later_run_in_order_in_one_thread_and_a_failed_one_stops_nothing(caplog):
    ran: list[tuple[int, str]] = []

    def job(number: int) -> None:
        ran.append((number, threading.current_thread().name))
        if number == 1:
            raise RuntimeError("the database went away")

    for number in range(4):
        assert kept.later(lambda number=number: job(number))
    assert kept.later_done(10)

    assert [number for number, _thread in ran] == [0, 1, 2, 3]
    assert {thread for _number, thread in ran} == {"atrium-later"}
    assert "A job left for later failed" in caplog.text


def test_past_the_limit_jobs_left_for_later_are_dropped(monkeypatch):
    monkeypatch.setattr(kept, "LATER_LIMIT", 2)
    gate = threading.Event()
    ran: list[int] = []
    assert kept.later(gate.wait)
    assert kept.later(lambda: ran.append(1))
    assert not kept.later(lambda: ran.append(2))  # two waiting already
    gate.set()
    assert kept.later_done(10)
    assert ran == [1]


@pytest.mark.django_db
def test_the_background_thread_gives_up_a_lock_soon_and_a_failure_keeps_its_connection_warm(caplog):
    seen: list[tuple[int, str, str]] = []

    def settings_of_the_thread() -> None:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_backend_pid(), current_setting('lock_timeout'),"
                " current_setting('statement_timeout')"
            )
            seen.append(cursor.fetchone())

    def write_to_the_locked_table() -> None:
        with connection.cursor() as cursor:
            cursor.execute("UPDATE django_migrations SET app = app WHERE false")

    assert kept.later(settings_of_the_thread)
    assert kept.later_done(10)
    with transaction.atomic():  # what a move between servers holds while it copies a workspace
        with connection.cursor() as cursor:
            cursor.execute("LOCK TABLE django_migrations IN EXCLUSIVE MODE")
        started = time.monotonic()
        assert kept.later(write_to_the_locked_table)
        assert kept.later(settings_of_the_thread)
        assert kept.later_done(10)
        waited = time.monotonic() - started

    assert waited < 5  # the lock is still held: the write gave up, the job after it ran
    assert "lock timeout" in caplog.text
    (pid, lock_timeout, statement_timeout), (pid_after, _lock, _statement) = seen
    assert (lock_timeout, statement_timeout) == ("1s", "5s")
    assert pid_after == pid  # a failed job does not close a connection that still answers
    with connection.cursor() as cursor:  # a request's connection keeps the server's settings
        cursor.execute("SELECT current_setting('lock_timeout')")
        assert cursor.fetchone() == ("0",)
