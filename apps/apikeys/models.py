"""API keys (SPEC 2.2), their budget ledger and daily usage. Workspace schema.

Money is kept in micro-dollars (1 USD = 1,000,000; 1 cent = 10,000) so that a model call costing
a fraction of a cent is recorded exactly; budgets are set in whole cents (SPEC 8).

The ledger has three parts:
- `ApiKey.reserved_micro_usd` / `ApiKey.spent_micro_usd`: running totals, changed only under a
  row lock on the key (services.budget_*), so concurrent calls never spend past the budget;
- `Reservation`: one per model call, reserved before the call and settled (or released) after;
- `UsageDay`: what each key spent per day (the workspace's local day), for periods and the
  usage screen.
"""

from datetime import datetime

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

MICRO_USD_PER_CENT = 10_000
# $100,000,000: far beyond any real budget, far below what a bigint of micro-dollars holds.
MAX_BUDGET_USD_CENTS = 10_000_000_000


class BudgetPeriod(models.TextChoices):
    DAILY = "daily", _("per day")
    MONTHLY = "monthly", _("per month")
    TOTAL = "total", _("in total")


class ApiKey(models.Model):
    """SPEC 5.2's `X-Api-Key`: budget and usage tracking, webhook URL and signing.

    The key itself is stored only as a SHA-256 digest plus its last four characters; the signing
    secret must be read back to sign webhooks, so it is stored encrypted (apps.core.encryption).
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_keys", verbose_name=_("owner")
    )
    label = models.CharField(_("label"), max_length=100)
    digest = models.CharField(max_length=64, unique=True)
    last_four = models.CharField(max_length=4)
    # "" when the key has no webhook: replies are then only polled.
    response_url = models.CharField(_("webhook URL"), max_length=2000, blank=True)
    # Null: unlimited.
    # A tool profile (apps.catalogue.profiles) the key is pinned to: an MCP request with the key
    # lists only that profile's tools (a request may narrow it further, never widen it). Empty: none.
    profile = models.CharField(_("tool profile"), max_length=40, blank=True)
    budget_usd_cents = models.BigIntegerField(_("budget (USD cents)"), null=True, blank=True)
    budget_period = models.CharField(
        _("budget period"), max_length=16, choices=BudgetPeriod.choices, default=BudgetPeriod.MONTHLY
    )

    # Fernet tokens (apps.core.encryption), never the secrets themselves.
    signing_secret_encrypted = models.TextField()
    previous_signing_secret_encrypted = models.TextField(blank=True)
    previous_signing_secret_expires_at = models.DateTimeField(null=True, blank=True)
    signing_secret_rolled_at = models.DateTimeField(null=True, blank=True)

    # Ledger totals; written only under a row lock on this key.
    reserved_micro_usd = models.BigIntegerField(default=0)
    spent_micro_usd = models.BigIntegerField(default=0)

    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)
    last_used_at = models.DateTimeField(_("last used"), null=True, blank=True)
    revoked_at = models.DateTimeField(_("revoked"), null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name = _("API key")
        constraints = [
            models.CheckConstraint(
                condition=Q(budget_usd_cents__isnull=True)
                | Q(budget_usd_cents__gte=0, budget_usd_cents__lte=MAX_BUDGET_USD_CENTS),
                name="apikeys_budget_in_range",
            ),
            models.CheckConstraint(
                condition=Q(reserved_micro_usd__gte=0), name="apikeys_reserved_not_negative"
            ),
            models.CheckConstraint(condition=Q(spent_micro_usd__gte=0), name="apikeys_spent_not_negative"),
            models.CheckConstraint(
                condition=Q(budget_period__in=BudgetPeriod.values), name="apikeys_budget_period_known"
            ),
        ]
        indexes = [models.Index(fields=["user", "-created_at"])]

    def __str__(self) -> str:
        return f"{self.label} (…{self.last_four})"

    @property
    def status(self) -> str:
        return "revoked" if self.revoked_at is not None else "active"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None

    @property
    def budget_micro_usd(self) -> int | None:
        return None if self.budget_usd_cents is None else self.budget_usd_cents * MICRO_USD_PER_CENT

    def has_previous_secret(self, now: datetime | None = None) -> bool:
        now = now or timezone.now()
        return bool(
            self.previous_signing_secret_encrypted
            and self.previous_signing_secret_expires_at
            and self.previous_signing_secret_expires_at > now
        )


class Reservation(models.Model):
    """The maximum cost of one model call, held against the key's budget until the call ends."""

    class State(models.TextChoices):
        RESERVED = "reserved", _("reserved")
        SETTLED = "settled", _("settled")
        RELEASED = "released", _("released")

    key = models.ForeignKey(ApiKey, on_delete=models.CASCADE, related_name="reservations")
    amount_micro_usd = models.BigIntegerField()
    # The real cost, once settled.
    cost_micro_usd = models.BigIntegerField(null=True, blank=True)
    state = models.CharField(max_length=16, choices=State.choices, default=State.RESERVED)
    # The workspace-local day the spend counts on (the day the call was allowed).
    day = models.DateField()
    # What the money is for, for the audit trail ("model call", a conversation id...). No content.
    purpose = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # Past this, an unsettled reservation is taken for one left by a worker that died.
    expires_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.CheckConstraint(condition=Q(amount_micro_usd__gte=0), name="apikeys_reservation_amount"),
            models.CheckConstraint(
                condition=Q(cost_micro_usd__isnull=True) | Q(cost_micro_usd__gte=0),
                name="apikeys_reservation_cost",
            ),
        ]
        indexes = [
            models.Index(
                fields=["expires_at"], condition=Q(state="reserved"), name="apikeys_reservation_open"
            ),
        ]

    def __str__(self) -> str:
        return f"reservation {self.pk} of key {self.key_id}: {self.amount_micro_usd} µUSD ({self.state})"


class UsageDay(models.Model):
    """What one key spent on one day (the workspace's local calendar day)."""

    key = models.ForeignKey(ApiKey, on_delete=models.CASCADE, related_name="usage_days")
    day = models.DateField()
    spent_micro_usd = models.BigIntegerField(default=0)
    # Settled model calls, and conversations opened through the gateway.
    calls = models.PositiveIntegerField(default=0)
    conversations = models.PositiveIntegerField(default=0)
    # The tokens of those calls as the model's API reported them: what it read (cache reads and
    # writes included) and what it wrote.
    input_tokens = models.BigIntegerField(default=0)
    output_tokens = models.BigIntegerField(default=0)

    class Meta:
        ordering = ["-day"]
        constraints = [models.UniqueConstraint(fields=["key", "day"], name="apikeys_usage_one_row_per_day")]

    def __str__(self) -> str:
        return f"key {self.key_id} on {self.day}: {self.spent_micro_usd} µUSD"
