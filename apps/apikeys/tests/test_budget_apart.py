"""A model call made inside a tool's transaction meters its key on the ledger's own connection
(apps.apikeys.apart): the key's row lock is not held through the call, and the call stays paid
when the tool then fails, charged once. Committed rows: the ledger's connection cannot see a test
transaction."""

import signal
import threading
import time

import pytest
from django.db import connection, transaction
from django_tenants.utils import schema_context

from apps.apikeys import apart, services
from apps.apikeys.models import ApiKey, Reservation, UsageDay
from apps.apikeys.tests.test_budget_concurrency import CENT, budgeted_key  # noqa: F401  (a fixture)
from apps.core import spending


class ToolFailed(Exception):
    pass


@pytest.fixture
def ledger_apart(settings):  # type: ignore[no-untyped-def]
    settings.ATRIUM_LEDGER_APART = True
    yield
    apart.stop()


def test_a_tool_s_model_call_holds_no_lock_on_its_key_and_stays_paid_when_the_tool_fails(
    budgeted_key,  # noqa: F811
    ledger_apart,
):
    calling, answered = threading.Event(), threading.Event()
    seen: dict[str, object] = {}

    def tool() -> None:
        """A tool's transaction as the dispatcher runs it, with a model call in its middle; the tool
        refuses the answer (an exception after the call), so its transaction rolls back."""
        try:
            with schema_context("acme"), spending.collected() as conversation:  # the gateway's
                try:
                    with spending.collected() as charges, transaction.atomic():
                        held = apart.reserve(key=budgeted_key.pk, micro_usd=2 * CENT, purpose="analyzeImage")
                        calling.set()
                        assert answered.wait(30)  # the model answers
                        apart.settle(reservation=held, micro_usd=CENT, input_tokens=300, output_tokens=40)
                        raise ToolFailed()
                except ToolFailed:
                    spending.charge_again(charges)
                seen["charges"] = charges
            seen["conversation"] = conversation
        except Exception as error:  # reported by the assertion below
            seen["error"] = error
        finally:
            connection.close()

    worker = threading.Thread(target=tool)
    worker.start()
    try:
        assert calling.wait(30)
        # While the tool's model call runs, another conversation of the key reserves and settles,
        # without waiting for the tool's transaction (before: it waited for its row lock).
        with schema_context("acme"), transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL lock_timeout = '2s'")
            other = services.budget_reserve(key=budgeted_key.pk, micro_usd=CENT, purpose="agent")
            services.budget_settle(reservation=other, micro_usd=CENT // 2)
            assert ApiKey.objects.get(pk=budgeted_key.pk).reserved_micro_usd == 2 * CENT
    finally:
        answered.set()
        worker.join(30)
    assert "error" not in seen, seen.get("error")
    # The tool's call was charged once, though its transaction rolled back; nothing is left held.
    charges = seen["charges"]
    assert isinstance(charges, list) and [(c.micro_usd, c.apart) for c in charges] == [(CENT, True)]
    # ...and the gateway's conversation counts it, though the tool failed.
    assert seen["conversation"] == charges
    with schema_context("acme"):
        key = ApiKey.objects.get(pk=budgeted_key.pk)
        assert (key.spent_micro_usd, key.reserved_micro_usd) == (CENT + CENT // 2, 0)
        day = UsageDay.objects.get(key=key)
        assert (day.calls, day.spent_micro_usd, day.input_tokens, day.output_tokens) == (
            2,
            CENT + CENT // 2,
            300,
            40,
        )
        assert sorted(
            Reservation.objects.filter(key=key).values_list("purpose", "state", "cost_micro_usd")
        ) == [
            ("agent", "settled", CENT // 2),
            ("analyzeImage", "settled", CENT),
        ]


def test_outside_a_transaction_the_ledger_writes_here(budgeted_key, ledger_apart):  # noqa: F811
    with schema_context("acme"):
        held = apart.reserve(key=budgeted_key.pk, micro_usd=CENT)
        apart.release(reservation=held)
        assert Reservation.objects.get(pk=held.pk).state == "released"
    assert apart._executor is None  # no thread was needed


def _locked_for(key_id: int, seconds: float) -> tuple[threading.Thread, threading.Event]:
    """Another transaction holding the key's row lock for `seconds` (a long writer of the key)."""
    holding = threading.Event()

    def hold() -> None:
        try:
            with schema_context("acme"), transaction.atomic():
                list(ApiKey.objects.select_for_update().filter(pk=key_id))
                holding.set()
                time.sleep(seconds)
        finally:
            connection.close()

    holder = threading.Thread(target=hold)
    holder.start()
    assert holding.wait(30)
    return holder, holding


def test_a_write_the_ledger_cannot_make_apart_in_time_is_made_in_the_caller_s_transaction(
    budgeted_key,  # noqa: F811
    ledger_apart,
    monkeypatch,
):
    monkeypatch.setattr(apart, "LOCK_TIMEOUT", "200ms")
    holder, _holding = _locked_for(budgeted_key.pk, 1.5)
    try:
        with schema_context("acme"), transaction.atomic():
            held = apart.reserve(key=budgeted_key.pk, micro_usd=CENT, purpose="after a long lock")
            # Made in this transaction: another connection does not see it before the commit.
            assert not _seen_elsewhere(held.pk)
        assert _seen_elsewhere(held.pk)
    finally:
        holder.join(30)
    with schema_context("acme"):
        assert Reservation.objects.get(pk=held.pk).state == "reserved"
        assert ApiKey.objects.get(pk=budgeted_key.pk).reserved_micro_usd == CENT


def _seen_elsewhere(reservation_id: int) -> bool:
    seen: list[bool] = []

    def look() -> None:
        try:
            with schema_context("acme"):
                seen.append(Reservation.objects.filter(pk=reservation_id).exists())
        finally:
            connection.close()

    looker = threading.Thread(target=look)
    looker.start()
    looker.join(30)
    return seen == [True]


class Interrupted(BaseException):
    """A task's time limit, arriving while the caller waits for its reservation."""


def test_a_reservation_its_caller_stopped_waiting_for_is_released(budgeted_key, ledger_apart):  # noqa: F811
    holder, _holding = _locked_for(budgeted_key.pk, 1.0)

    def interrupt(signum: int, frame: object) -> None:
        raise Interrupted()

    previous = signal.signal(signal.SIGALRM, interrupt)
    try:
        with schema_context("acme"), transaction.atomic():
            signal.setitimer(signal.ITIMER_REAL, 0.3)
            with pytest.raises(Interrupted):
                apart.reserve(key=budgeted_key.pk, micro_usd=CENT, purpose="interrupted")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        holder.join(30)
    apart._thread().submit(lambda: None).result(30)  # the reservation, then its release, done
    apart._thread().submit(lambda: None).result(30)
    with schema_context("acme"):
        made = Reservation.objects.get(key_id=budgeted_key.pk, purpose="interrupted")
        assert made.state == "released"
        assert ApiKey.objects.get(pk=budgeted_key.pk).reserved_micro_usd == 0
