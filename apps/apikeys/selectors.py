"""Reads about API keys, budgets and usage.

Keys are private to their owner: another person's key is "not found", whoever asks.
"""

from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models import Count, Q, QuerySet, Sum
from django.utils import timezone

from apps.accounts.models import User
from apps.apikeys.models import ApiKey, BudgetPeriod, UsageDay
from apps.apikeys.periods import Period, current_period, local_day
from apps.core import secrets
from apps.core.actors import Actor
from apps.core.errors import or_not_found
from apps.core.recurrence import workspace_zone
from apps.core.spending import Charge, KeyInfo, KeyListing, KeyUse, SpendSummary


def api_key_list(*, user: User, status: str | None = None) -> QuerySet[ApiKey]:
    keys = ApiKey.objects.filter(user=user)
    if status == "active":
        keys = keys.filter(revoked_at__isnull=True)
    elif status == "revoked":
        keys = keys.filter(revoked_at__isnull=False)
    return keys


def api_key_counts(*, user: User) -> dict[str, int]:
    """How many of the person's keys are active and revoked (the list's tabs)."""
    counts = ApiKey.objects.filter(user=user).aggregate(
        active=Count("pk", filter=Q(revoked_at__isnull=True)),
        revoked=Count("pk", filter=Q(revoked_at__isnull=False)),
    )
    return {"active": counts["active"], "revoked": counts["revoked"]}


def api_key_get(*, user: User, key_id: int) -> ApiKey:
    return or_not_found(api_key_list(user=user).filter(pk=key_id).first())


def api_key_for_secret(raw: str) -> ApiKey | None:
    """The key `raw` stands for in this workspace (whoever owns it, revoked or not), or None."""
    raw = raw.strip()
    if not secrets.is_well_formed(raw, settings.API_KEY_PREFIX):
        return None
    return ApiKey.objects.filter(digest=secrets.digest(raw)).first()


# --- budgets ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BudgetStatus:
    period: Period
    # None: unlimited.
    budget_micro_usd: int | None
    # Settled spend counted in this period.
    spent_micro_usd: int
    # Reservations of calls under way (they count against the budget until settled or released).
    reserved_micro_usd: int

    @property
    def remaining_micro_usd(self) -> int | None:
        if self.budget_micro_usd is None:
            return None
        return max(0, self.budget_micro_usd - self.spent_micro_usd - self.reserved_micro_usd)

    @property
    def is_spent(self) -> bool:
        """What the doors refuse with BUDGET_EXCEEDED: settled spend has reached the budget.
        (Reservations alone do not close the door: they may settle for less.)"""
        return self.budget_micro_usd is not None and self.spent_micro_usd >= self.budget_micro_usd

    def fits(self, micro_usd: int) -> bool:
        if self.budget_micro_usd is None:
            return True
        return self.spent_micro_usd + self.reserved_micro_usd + micro_usd <= self.budget_micro_usd


def _spent_since(key: ApiKey, starts_on: date | None) -> int:
    if starts_on is None:
        return key.spent_micro_usd
    total = UsageDay.objects.filter(key_id=key.pk, day__gte=starts_on).aggregate(total=Sum("spent_micro_usd"))
    return total["total"] or 0


def budget_status(*, key: ApiKey, now: datetime | None = None) -> BudgetStatus:
    """Where the key stands in its current period. Read under the key's row lock when the answer
    decides a write (services.budget_reserve does)."""
    now = now or timezone.now()
    period = current_period(key.budget_period, now, workspace_zone())
    return BudgetStatus(
        period=period,
        budget_micro_usd=key.budget_micro_usd,
        spent_micro_usd=_spent_since(key, period.starts_on),
        reserved_micro_usd=key.reserved_micro_usd,
    )


# --- usage --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class KeyUsage:
    budget: BudgetStatus
    spent_today_micro_usd: int
    spent_total_micro_usd: int
    conversations_today: int
    conversations_total: int
    calls_total: int
    last_used_at: datetime | None

    @property
    def budget_used_percent(self) -> float | None:
        budget = self.budget.budget_micro_usd
        if budget is None:
            return None
        if budget == 0:
            return 100.0
        return round(min(100.0, 100.0 * self.budget.spent_micro_usd / budget), 1)


def key_usage_many(keys: list[ApiKey], *, now: datetime | None = None) -> dict[int, KeyUsage]:
    """Usage of several keys in one query (the list screens)."""
    now = now or timezone.now()
    zone = workspace_zone()
    today = local_day(now, zone)
    month_start = today.replace(day=1)
    rows = {
        row["key_id"]: row
        for row in UsageDay.objects.filter(key_id__in=[key.pk for key in keys])
        .values("key_id")
        .annotate(
            today=Sum("spent_micro_usd", filter=Q(day=today)),
            month=Sum("spent_micro_usd", filter=Q(day__gte=month_start)),
            conversations_today=Sum("conversations", filter=Q(day=today)),
            conversations=Sum("conversations"),
            calls=Sum("calls"),
        )
    }
    usage = {}
    for key in keys:
        row = rows.get(key.pk, {})
        period = current_period(key.budget_period, now, zone)
        spent_by_period: dict[str, int] = {
            BudgetPeriod.DAILY: row.get("today") or 0,
            BudgetPeriod.MONTHLY: row.get("month") or 0,
        }
        spent_in_period = spent_by_period.get(key.budget_period, key.spent_micro_usd)
        usage[key.pk] = KeyUsage(
            budget=BudgetStatus(
                period=period,
                budget_micro_usd=key.budget_micro_usd,
                spent_micro_usd=spent_in_period,
                reserved_micro_usd=key.reserved_micro_usd,
            ),
            spent_today_micro_usd=row.get("today") or 0,
            spent_total_micro_usd=key.spent_micro_usd,
            conversations_today=row.get("conversations_today") or 0,
            conversations_total=row.get("conversations") or 0,
            calls_total=row.get("calls") or 0,
            last_used_at=key.last_used_at,
        )
    return usage


def key_usage(*, key: ApiKey, now: datetime | None = None) -> KeyUsage:
    return key_usage_many([key], now=now)[key.pk]


def usage_days(*, key: ApiKey, days: int = 30, now: datetime | None = None) -> list[dict[str, Any]]:
    """The last `days` local days, oldest first, zeros included (the usage screen's chart)."""
    now = now or timezone.now()
    today = local_day(now, workspace_zone())
    first = today - timedelta(days=days - 1)
    recorded = {
        row.day: row for row in UsageDay.objects.filter(key_id=key.pk, day__gte=first, day__lte=today)
    }
    series = []
    for offset in range(days):
        day = first + timedelta(days=offset)
        row = recorded.get(day)
        series.append(
            {
                "date": day,
                "spent_micro_usd": row.spent_micro_usd if row else 0,
                "calls": row.calls if row else 0,
                "conversations": row.conversations if row else 0,
            }
        )
    return series


def spend_summary(*, user: Actor | None = None, now: datetime | None = None) -> SpendSummary:
    """What the workspace (or one person's keys) spent on the gateway's AI: today, this month
    (the workspace's calendar) and in total. For billing overviews."""
    now = now or timezone.now()
    today = local_day(now, workspace_zone())
    keys = ApiKey.objects.all() if user is None else ApiKey.objects.filter(user=user.pk)
    days = UsageDay.objects.filter(key__in=keys).aggregate(
        today=Sum("spent_micro_usd", filter=Q(day=today)),
        month=Sum("spent_micro_usd", filter=Q(day__gte=today.replace(day=1))),
    )
    totals = keys.aggregate(total=Sum("spent_micro_usd"), reserved=Sum("reserved_micro_usd"))
    return SpendSummary(
        today_micro_usd=days["today"] or 0,
        this_month_micro_usd=days["month"] or 0,
        total_micro_usd=totals["total"] or 0,
        reserved_micro_usd=totals["reserved"] or 0,
        active_keys=keys.filter(revoked_at__isnull=True).count(),
    )


class Ledger:
    """The API keys as areas may know them (apps.core.spending)."""

    def key_of(self, *, key_id: int, owner_id: int | None = None) -> KeyInfo | None:
        keys = ApiKey.objects.filter(pk=key_id)
        key = (keys if owner_id is None else keys.filter(user_id=owner_id)).first()
        if key is None:
            return None
        return KeyInfo(id=key.pk, label=key.label, active=key.is_active, owner_id=key.user_id)

    def spend(self, *, user: Actor | None = None) -> SpendSummary:
        return spend_summary(user=user)

    def listed(self, *, owner_id: int | None, active_only: bool = False) -> list[KeyListing]:
        keys = ApiKey.objects.select_related("user").order_by("-created_at", "-id")
        if owner_id is not None:
            keys = keys.filter(user_id=owner_id)
        if active_only:
            keys = keys.filter(revoked_at__isnull=True)
        rows = list(keys)
        usage = key_usage_many(rows)
        return [_listing(key, usage[key.pk]) for key in rows]

    def revoke(self, *, actor: Actor, key_id: int, any_owner: bool = False) -> KeyListing | None:
        from apps.apikeys import services

        keys = ApiKey.objects.filter(pk=key_id)
        key = (keys if any_owner else keys.filter(user_id=actor.pk)).first()
        if key is None:
            return None
        services.api_key_revoke(actor=actor, key=key, any_owner=any_owner)
        key = ApiKey.objects.select_related("user").get(pk=key.pk)
        return _listing(key, key_usage(key=key))

    def charge_again(self, charge: Charge) -> None:
        from apps.apikeys import services

        services.budget_charge_again(charge=charge)

    def used_between(self, *, start: date, end: date, owner_id: int | None = None) -> list[KeyUse]:
        keys = ApiKey.objects.select_related("user").order_by("-created_at", "-id")
        if owner_id is not None:
            keys = keys.filter(user_id=owner_id)
        rows = list(keys)
        days = {
            row["key_id"]: row
            for row in UsageDay.objects.filter(key__in=rows, day__gte=start, day__lte=end)
            .values("key_id")
            .annotate(
                spent=Sum("spent_micro_usd"),
                calls=Sum("calls"),
                conversations=Sum("conversations"),
                input_tokens=Sum("input_tokens"),
                output_tokens=Sum("output_tokens"),
            )
        }
        usage = key_usage_many(rows)
        used = [
            KeyUse(
                id=key.pk,
                label=key.label,
                owner_email=key.user.email,
                active=key.is_active,
                budget_usd_cents=key.budget_usd_cents,
                budget_period=key.budget_period,
                spent_in_period_micro_usd=usage[key.pk].budget.spent_micro_usd,
                spent_micro_usd=days.get(key.pk, {}).get("spent") or 0,
                model_calls=days.get(key.pk, {}).get("calls") or 0,
                conversations=days.get(key.pk, {}).get("conversations") or 0,
                input_tokens=days.get(key.pk, {}).get("input_tokens") or 0,
                output_tokens=days.get(key.pk, {}).get("output_tokens") or 0,
            )
            for key in rows
        ]
        return sorted(used, key=lambda use: (-use.spent_micro_usd, -use.model_calls))


def _listing(key: ApiKey, usage: KeyUsage) -> KeyListing:
    return KeyListing(
        id=key.pk,
        label=key.label,
        owner_id=key.user_id,
        owner_email=key.user.email,
        last_four=key.last_four,
        profile=key.profile,
        budget_usd_cents=key.budget_usd_cents,
        budget_period=key.budget_period,
        spent_in_period_micro_usd=usage.budget.spent_micro_usd,
        spent_total_micro_usd=usage.spent_total_micro_usd,
        created_at=key.created_at,
        last_used_at=key.last_used_at,
        revoked_at=key.revoked_at,
    )
