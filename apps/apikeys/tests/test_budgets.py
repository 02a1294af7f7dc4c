"""The budget ledger: reserve before a model call, settle or release after; periods that reset at
midnight / on the 1st in the workspace's time zone, or never."""

from datetime import UTC, datetime, timedelta

import pytest

from apps.apikeys import selectors, services
from apps.apikeys.errors import BudgetExceeded, KeyRevoked
from apps.apikeys.models import ApiKey, Reservation, UsageDay

pytestmark = pytest.mark.django_db

CENT = 10_000  # micro-dollars


@pytest.fixture
def in_zone(acme):
    """Sets Acme's time zone for the test (rolled back with it)."""

    def set_zone(name: str) -> None:
        acme.time_zone = name
        acme.save(update_fields=["time_zone"])

    return set_zone


def key_with(people, **fields):
    return services.api_key_create(user=people["member"], **fields).key


def spend(key, micro_usd, now):
    reservation = services.budget_reserve(key=key, micro_usd=micro_usd, now=now)
    return services.budget_settle(reservation=reservation, micro_usd=micro_usd, now=now)


def status(key, now):
    key.refresh_from_db()
    return selectors.budget_status(key=key, now=now)


def test_a_reservation_holds_money_and_settling_records_the_real_cost(people):
    key = key_with(people, budget_usd_cents=100)
    now = datetime(2026, 3, 10, 12, tzinfo=UTC)

    reservation = services.budget_reserve(key=key, micro_usd=30 * CENT, now=now)
    assert status(key, now).reserved_micro_usd == 30 * CENT
    assert status(key, now).remaining_micro_usd == 70 * CENT

    services.budget_settle(reservation=reservation, micro_usd=12 * CENT, now=now)

    held = status(key, now)
    assert (held.spent_micro_usd, held.reserved_micro_usd, held.remaining_micro_usd) == (
        12 * CENT,
        0,
        88 * CENT,
    )
    row = UsageDay.objects.get(key=key)
    assert (row.day.isoformat(), row.spent_micro_usd, row.calls) == ("2026-03-10", 12 * CENT, 1)
    key.refresh_from_db()
    assert key.spent_micro_usd == 12 * CENT and key.last_used_at == now


def test_a_call_that_does_not_fit_is_refused_before_it_is_made(people):
    key = key_with(people, budget_usd_cents=100)
    now = datetime(2026, 3, 10, 12, tzinfo=UTC)
    services.budget_reserve(key=key, micro_usd=80 * CENT, now=now)

    with pytest.raises(BudgetExceeded) as refused:
        services.budget_reserve(key=key, micro_usd=30 * CENT, now=now)

    assert "$0.20 left" in str(refused.value.message)
    assert Reservation.objects.filter(key=key).count() == 1


def test_releasing_frees_the_money_and_records_nothing(people):
    key = key_with(people, budget_usd_cents=100)
    now = datetime(2026, 3, 10, 12, tzinfo=UTC)
    reservation = services.budget_reserve(key=key, micro_usd=100 * CENT, now=now)

    services.budget_release(reservation=reservation, now=now)
    services.budget_release(reservation=reservation, now=now)  # twice changes nothing

    assert status(key, now).remaining_micro_usd == 100 * CENT
    assert not UsageDay.objects.filter(key=key).exists()
    assert Reservation.objects.get(pk=reservation.pk).state == "released"


def test_settling_twice_records_the_cost_once(people):
    key = key_with(people)
    now = datetime(2026, 3, 10, 12, tzinfo=UTC)
    reservation = services.budget_reserve(key=key, micro_usd=5 * CENT, now=now)

    services.budget_settle(reservation=reservation, micro_usd=4 * CENT, now=now)
    services.budget_settle(reservation=reservation.pk, micro_usd=4 * CENT, now=now)

    key.refresh_from_db()
    assert key.spent_micro_usd == 4 * CENT and key.reserved_micro_usd == 0


def test_a_cost_above_the_reservation_is_still_recorded_and_then_closes_the_budget(people):
    key = key_with(people, budget_usd_cents=10, budget_period="total")
    now = datetime(2026, 3, 10, 12, tzinfo=UTC)
    reservation = services.budget_reserve(key=key, micro_usd=5 * CENT, now=now)

    services.budget_settle(reservation=reservation, micro_usd=12 * CENT, now=now)

    assert status(key, now).spent_micro_usd == 12 * CENT
    assert status(key, now).is_spent
    with pytest.raises(BudgetExceeded):
        services.budget_reserve(key=key, micro_usd=0, now=now)


def test_unlimited_keys_take_any_reservation(people):
    key = key_with(people)

    services.budget_reserve(key=key, micro_usd=10**12)

    assert status(key, datetime.now(UTC)).remaining_micro_usd is None


def test_a_revoked_key_cannot_reserve(people):
    key = key_with(people)
    services.api_key_revoke(actor=people["member"], key=key)

    with pytest.raises(KeyRevoked):
        services.budget_reserve(key=key, micro_usd=1)


@pytest.mark.parametrize("amount", [-1, 1.5, True, "10"])
def test_amounts_are_non_negative_integers(people, amount):
    key = key_with(people)

    with pytest.raises(ValueError):
        services.budget_reserve(key=key, micro_usd=amount)


def test_raising_the_budget_reopens_a_spent_key(people):
    key = key_with(people, budget_usd_cents=10, budget_period="total")
    now = datetime(2026, 3, 10, 12, tzinfo=UTC)
    spend(key, 10 * CENT, now)
    assert status(key, now).is_spent

    services.api_key_update(actor=people["member"], key=key, budget_usd_cents=20)

    assert not status(key, now).is_spent
    services.budget_reserve(key=key, micro_usd=10 * CENT, now=now)


# --- periods ------------------------------------------------------------------------------------


def test_a_daily_budget_resets_at_midnight_in_the_workspaces_time_zone(people, in_zone):
    in_zone("Asia/Tokyo")  # UTC+9, no summer time
    key = key_with(people, budget_usd_cents=100, budget_period="daily")
    # 23:30 in Tokyo on 10 March is 14:30 UTC.
    late = datetime(2026, 3, 10, 14, 30, tzinfo=UTC)
    spend(key, 100 * CENT, late)
    assert status(key, late).is_spent

    with pytest.raises(BudgetExceeded) as refused:
        services.budget_reserve(key=key, micro_usd=CENT, now=late)
    assert refused.value.details["resets_at"] == "2026-03-11T00:00:00+09:00"
    assert refused.value.headers["Retry-After"] == str(30 * 60)

    # One second before midnight in Tokyo: still spent. At midnight: whole again,
    # although it is still 10 March in UTC.
    assert status(key, datetime(2026, 3, 10, 14, 59, 59, tzinfo=UTC)).is_spent
    after = datetime(2026, 3, 10, 15, 0, tzinfo=UTC)
    assert status(key, after).spent_micro_usd == 0
    assert status(key, after).remaining_micro_usd == 100 * CENT
    services.budget_reserve(key=key, micro_usd=100 * CENT, now=after)


def test_a_daily_budget_west_of_utc_is_still_spent_after_utc_midnight(people, in_zone):
    in_zone("America/New_York")  # UTC-4 in June
    key = key_with(people, budget_usd_cents=50, budget_period="daily")
    # 21:00 in New York on 1 June is 01:00 UTC on 2 June.
    evening = datetime(2026, 6, 2, 1, 0, tzinfo=UTC)
    spend(key, 50 * CENT, datetime(2026, 6, 1, 15, 0, tzinfo=UTC))

    assert status(key, evening).is_spent
    assert status(key, evening).period.resets_at == datetime(2026, 6, 2, 4, 0, tzinfo=UTC)
    assert status(key, evening).period.resets_at.isoformat() == "2026-06-02T00:00:00-04:00"
    assert not status(key, datetime(2026, 6, 2, 4, 0, tzinfo=UTC)).is_spent


def test_a_monthly_budget_resets_on_the_first_in_the_workspaces_time_zone(people, in_zone):
    in_zone("Europe/Paris")  # UTC+1 in winter
    key = key_with(people, budget_usd_cents=200, budget_period="monthly")
    spend(key, 120 * CENT, datetime(2026, 1, 3, 9, tzinfo=UTC))
    spend(key, 80 * CENT, datetime(2026, 1, 31, 22, 30, tzinfo=UTC))  # 23:30 on the 31st in Paris

    last_minute = datetime(2026, 1, 31, 22, 59, 59, tzinfo=UTC)
    assert status(key, last_minute).is_spent
    with pytest.raises(BudgetExceeded) as refused:
        services.budget_reserve(key=key, micro_usd=1, now=last_minute)
    assert refused.value.details["resets_at"] == "2026-02-01T00:00:00+01:00"
    assert refused.value.headers["Retry-After"] == "1"

    first = datetime(2026, 1, 31, 23, 0, tzinfo=UTC)  # midnight on 1 February in Paris
    assert status(key, first).spent_micro_usd == 0
    assert status(key, first).period.resets_at.isoformat() == "2026-03-01T00:00:00+01:00"


def test_the_monthly_reset_across_a_year_end_and_summer_time(people, in_zone):
    in_zone("Australia/Sydney")  # UTC+11 in December (summer time)
    key = key_with(people, budget_usd_cents=10, budget_period="monthly")
    december = datetime(2026, 12, 31, 12, 59, tzinfo=UTC)  # 23:59 on 31 Dec in Sydney
    spend(key, 10 * CENT, december)

    assert status(key, december).is_spent
    assert status(key, december).period.resets_at.isoformat() == "2027-01-01T00:00:00+11:00"
    assert not status(key, datetime(2026, 12, 31, 13, 0, tzinfo=UTC)).is_spent


def test_a_total_budget_never_resets(people, in_zone):
    in_zone("Pacific/Auckland")
    key = key_with(people, budget_usd_cents=30, budget_period="total")
    spend(key, 10 * CENT, datetime(2025, 1, 1, tzinfo=UTC))
    spend(key, 20 * CENT, datetime(2026, 7, 1, tzinfo=UTC))

    years_later = datetime(2030, 1, 1, tzinfo=UTC)
    assert status(key, years_later).is_spent
    assert status(key, years_later).period.resets_at is None
    with pytest.raises(BudgetExceeded) as refused:
        services.budget_reserve(key=key, micro_usd=1, now=years_later)
    assert refused.value.details["resets_at"] is None
    assert "Retry-After" not in refused.value.headers
    assert "does not reset" in str(refused.value.message) or "raise the budget" in str(refused.value.message)


def test_changing_the_period_counts_what_was_spent_in_the_new_period(people):
    key = key_with(people, budget_usd_cents=100, budget_period="daily")
    spend(key, 60 * CENT, datetime(2026, 5, 3, 10, tzinfo=UTC))
    spend(key, 30 * CENT, datetime(2026, 5, 4, 10, tzinfo=UTC))
    now = datetime(2026, 5, 4, 12, tzinfo=UTC)
    assert status(key, now).spent_micro_usd == 30 * CENT

    services.api_key_update(actor=people["member"], key=key, budget_period="monthly")

    assert status(key, now).spent_micro_usd == 90 * CENT


def test_spend_counts_on_the_day_the_call_was_allowed(people, in_zone):
    in_zone("UTC")
    key = key_with(people, budget_usd_cents=100, budget_period="daily")
    before_midnight = datetime(2026, 5, 3, 23, 59, 59, tzinfo=UTC)
    reservation = services.budget_reserve(key=key, micro_usd=40 * CENT, now=before_midnight)

    services.budget_settle(
        reservation=reservation, micro_usd=40 * CENT, now=before_midnight + timedelta(seconds=5)
    )

    assert UsageDay.objects.get(key=key).day.isoformat() == "2026-05-03"
    assert status(key, before_midnight + timedelta(seconds=5)).spent_micro_usd == 0


# --- reservations left behind ------------------------------------------------------------------


def test_the_sweeper_releases_reservations_whose_worker_died(people):
    key = key_with(people, budget_usd_cents=100)
    start = datetime(2026, 3, 10, 12, tzinfo=UTC)
    stale = services.budget_reserve(key=key, micro_usd=60 * CENT, now=start, ttl=timedelta(minutes=5))
    fresh = services.budget_reserve(key=key, micro_usd=20 * CENT, now=start + timedelta(minutes=4))

    released = services.budget_release_expired(now=start + timedelta(minutes=6))

    assert released == 1
    assert Reservation.objects.get(pk=stale.pk).state == "released"
    assert Reservation.objects.get(pk=fresh.pk).state == "reserved"
    assert status(key, start).reserved_micro_usd == 20 * CENT
    assert services.budget_release_expired(now=start + timedelta(minutes=6)) == 0


def test_a_slow_worker_settling_after_the_sweep_still_records_its_cost(people):
    key = key_with(people, budget_usd_cents=100)
    start = datetime(2026, 3, 10, 12, tzinfo=UTC)
    reservation = services.budget_reserve(key=key, micro_usd=60 * CENT, now=start, ttl=timedelta(minutes=1))
    services.budget_release_expired(now=start + timedelta(minutes=2))

    services.budget_settle(reservation=reservation, micro_usd=50 * CENT, now=start + timedelta(minutes=3))

    key.refresh_from_db()
    assert key.reserved_micro_usd == 0
    assert key.spent_micro_usd == 50 * CENT


def test_the_sweep_task_visits_every_workspace(people):
    from apps.apikeys.tasks import release_stale_reservations

    key = key_with(people)
    reservation = services.budget_reserve(
        key=key, micro_usd=CENT, now=datetime(2020, 1, 1, tzinfo=UTC), ttl=timedelta(minutes=1)
    )

    assert release_stale_reservations() == 0  # no workspace failed
    assert Reservation.objects.get(pk=reservation.pk).state == "released"


# --- usage and the workspace's spend ------------------------------------------------------------


def test_conversations_are_counted_per_day(people):
    key = key_with(people)
    now = datetime(2026, 3, 10, 12, tzinfo=UTC)

    services.usage_record_conversation(key=key, now=now)
    services.usage_record_conversation(key=key.pk, now=now)
    services.usage_record_conversation(key=key, now=now + timedelta(days=1))

    usage = selectors.key_usage(key=key, now=now + timedelta(days=1))
    assert (usage.conversations_today, usage.conversations_total) == (1, 3)


def test_the_workspace_spend_adds_up_every_key_and_can_be_narrowed_to_a_person(people):
    now = datetime(2026, 3, 10, 12, tzinfo=UTC)
    mine = services.api_key_create(user=people["member"]).key
    theirs = services.api_key_create(user=people["admin"]).key
    before = selectors.spend_summary(now=now)
    spend(mine, 3 * CENT, now - timedelta(days=20))
    spend(mine, 2 * CENT, now)
    spend(theirs, 5 * CENT, now)

    everyone = selectors.spend_summary(now=now)
    member = selectors.spend_summary(user=people["member"], now=now)

    assert everyone.today_micro_usd - before.today_micro_usd == 7 * CENT
    assert everyone.total_micro_usd - before.total_micro_usd == 10 * CENT
    assert (member.today_micro_usd, member.this_month_micro_usd, member.total_micro_usd) == (
        2 * CENT,
        2 * CENT,
        5 * CENT,
    )


def test_key_usage_of_many_keys_matches_one_by_one(people):
    now = datetime(2026, 3, 10, 12, tzinfo=UTC)
    daily = key_with(people, budget_usd_cents=100, budget_period="daily")
    monthly = key_with(people, budget_usd_cents=100, budget_period="monthly")
    total = key_with(people, budget_usd_cents=100, budget_period="total")
    for key in (daily, monthly, total):
        spend(key, 10 * CENT, now - timedelta(days=40))
        spend(key, 10 * CENT, now - timedelta(days=3))
        spend(key, 10 * CENT, now)
    keys = list(ApiKey.objects.filter(pk__in=[daily.pk, monthly.pk, total.pk]))

    many = selectors.key_usage_many(keys, now=now)

    assert many[daily.pk].budget.spent_micro_usd == 10 * CENT
    assert many[monthly.pk].budget.spent_micro_usd == 20 * CENT
    assert many[total.pk].budget.spent_micro_usd == 30 * CENT
    for key in keys:
        assert (
            many[key.pk].budget.spent_micro_usd == selectors.budget_status(key=key, now=now).spent_micro_usd
        )
    assert many[daily.pk].budget_used_percent == 10.0
