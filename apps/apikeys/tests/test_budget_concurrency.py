"""Concurrent model calls never spend past the budget: real threads, each on its own database
connection, racing for the same key (committed rows: the threads cannot see a test transaction)."""

import threading
import uuid
from collections import Counter

import pytest
from django.db import connection
from django_tenants.utils import schema_context

from apps.apikeys import services
from apps.apikeys.errors import BudgetExceeded
from apps.apikeys.models import ApiKey, Reservation

CENT = 10_000
CALLS = 50


@pytest.fixture
def budgeted_key(django_db_setup, committed):
    """A key of a person made for this test, with a budget that fits 10 one-cent calls."""
    from apps.accounts.models import Role, User

    with schema_context("acme"):
        user = User.objects.create_user(
            email=f"race-{uuid.uuid4().hex[:8]}@acme.example", role=Role.objects.get(key="member")
        )
        key = services.api_key_create(user=user, budget_usd_cents=10, budget_period="daily").key
    yield key
    with schema_context("acme"):
        user.delete()


def race(work) -> Counter:
    """Runs `work()` in CALLS threads that start together; counts what each returned or raised."""
    barrier = threading.Barrier(CALLS)
    outcomes: Counter = Counter()
    lock = threading.Lock()

    def run() -> None:
        try:
            with schema_context("acme"):
                barrier.wait(timeout=30)
                result = work()
            outcome = result
        except BudgetExceeded:
            outcome = "refused"
        except Exception as error:  # anything else is a failure of the test, reported below
            outcome = f"error: {error!r}"
        finally:
            connection.close()
        with lock:
            outcomes[outcome] += 1

    threads = [threading.Thread(target=run) for _ in range(CALLS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads)
    return outcomes


def test_fifty_concurrent_reservations_against_a_budget_of_ten_get_exactly_ten(budgeted_key):
    outcomes = race(lambda: services.budget_reserve(key=budgeted_key.pk, micro_usd=CENT) and "reserved")

    assert outcomes == Counter({"reserved": 10, "refused": 40})
    with schema_context("acme"):
        key = ApiKey.objects.get(pk=budgeted_key.pk)
        assert key.reserved_micro_usd == 10 * CENT
        assert Reservation.objects.filter(key=key, state="reserved").count() == 10


def test_fifty_concurrent_calls_reserving_and_settling_spend_at_most_the_budget(budgeted_key):
    def call() -> str:
        reservation = services.budget_reserve(key=budgeted_key.pk, micro_usd=CENT)
        # The real cost is a little less than the most the call could cost.
        services.budget_settle(reservation=reservation, micro_usd=CENT - 1)
        return "spent"

    outcomes = race(call)

    assert set(outcomes) <= {"spent", "refused"}, outcomes
    assert outcomes["spent"] + outcomes["refused"] == CALLS
    with schema_context("acme"):
        key = ApiKey.objects.get(pk=budgeted_key.pk)
        assert key.reserved_micro_usd == 0
        assert key.spent_micro_usd == outcomes["spent"] * (CENT - 1)
        assert key.spent_micro_usd <= 10 * CENT
        # Ten calls at least fit; settling for less than reserved can leave room for one more.
        assert 10 <= outcomes["spent"] <= 11
