"""Deals: an opportunity on a stage of a pipeline, worth `value` in `currency`, open until it is
won or lost (terminal: reopening is explicit and logged in its history)."""

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from apps.core.records import Access, OwnedRecord
from apps.core.sharing import ShareBase
from apps.deals.errors import DealDeleted
from apps.deals.models.pipelines import Pipeline, Stage
from apps.deals.permissions import DealsPerm


class Deal(OwnedRecord):
    access = Access(
        DealsPerm,
        shares=True,
        label=_("Deal"),
        find_with="searchDeals or listDeals",
        manage=DealsPerm.MANAGE,
        restore_with="restoreDeal",
        trash_state=_("in the bin"),
        trash_error=DealDeleted,
    )

    class Status(models.TextChoices):
        OPEN = "open", _("open")
        WON = "won", _("won")
        LOST = "lost", _("lost")

    title = models.CharField(_("title"), max_length=200)
    pipeline = models.ForeignKey(Pipeline, on_delete=models.PROTECT, related_name="deals")
    stage = models.ForeignKey(Stage, on_delete=models.PROTECT, related_name="deals", verbose_name=_("stage"))
    value = models.DecimalField(_("value"), max_digits=16, decimal_places=2, default=0)
    currency = models.CharField(_("currency"), max_length=3, default="EUR")
    # One `currency` in the pipeline's currency on `rate_date` (1 when they are the same).
    exchange_rate = models.DecimalField(_("rate"), max_digits=18, decimal_places=8, default=1)
    rate_date = models.DateField(_("rate date"), null=True, blank=True)
    status = models.CharField(_("status"), max_length=10, choices=Status.choices, default=Status.OPEN)
    lost_reason = models.CharField(_("lost reason"), max_length=300, blank=True)
    closed_at = models.DateTimeField(_("closed"), null=True, blank=True)
    expected_close = models.DateField(_("expected close"), null=True, blank=True)
    contact = models.ForeignKey(
        "contacts.Contact", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    group_account = models.ForeignKey(
        "groupaccounts.GroupAccount", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    notes = models.TextField(_("notes"), blank=True)
    # When it came onto its current stage, and when a contact was last logged: rotting is the time
    # since the later of the two.
    stage_entered_at = models.DateTimeField(_("on stage since"))
    last_contact_at = models.DateTimeField(_("last contact"), null=True, blank=True)

    class Meta:
        ordering = ["-updated_at", "-id"]
        verbose_name = _("deal")
        constraints = [
            models.CheckConstraint(condition=Q(value__gte=0), name="deals_value_not_negative"),
            models.CheckConstraint(condition=Q(exchange_rate__gt=0), name="deals_rate_positive"),
            models.CheckConstraint(
                condition=Q(status="open", closed_at__isnull=True) | ~Q(status="open"),
                name="deals_open_not_closed",
            ),
        ]
        indexes = [models.Index(fields=["pipeline", "status"], name="deals_pipeline_status_idx")]

    def __str__(self) -> str:
        return self.title


class DealShare(ShareBase):
    item = models.ForeignKey(Deal, on_delete=models.CASCADE, related_name="shares")
