"""Pipelines and their ordered stages (Pipedrive's shape): a stage's win probability weighs the
deals on it, its rotting days say when an open deal that has sat on it without a logged contact
needs attention."""

from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower
from django.utils.translation import gettext_lazy as _

from apps.core.records import Access, Record
from apps.deals.errors import PipelineArchived
from apps.deals.permissions import DealsPerm


class Pipeline(Record):
    """A sales pipeline: the stages its deals go through, and the currency it reports in.
    Archived (in the trash) pipelines keep their deals but take no new ones."""

    access = Access(
        DealsPerm,
        visibility="workspace",
        label=_("Pipeline"),
        find_with="getPipelineOverview",
        change=DealsPerm.PIPELINES,
        delete=DealsPerm.PIPELINES,
        trash_state=_("archived"),
        trash_error=PipelineArchived,
        trash_hint=_("Restore it with managePipeline (action restore) first."),
    )

    name = models.CharField(_("name"), max_length=120)
    description = models.CharField(_("description"), max_length=500, blank=True)
    # The reporting currency: weighted values of deals in other currencies are converted to it.
    currency = models.CharField(_("currency"), max_length=3, default="EUR")

    class Meta:
        ordering = ["name", "id"]
        verbose_name = _("pipeline")
        constraints = [
            models.UniqueConstraint(
                Lower("name"), condition=Q(deleted_at__isnull=True), name="deals_pipeline_name_once"
            )
        ]

    def __str__(self) -> str:
        return self.name


class Stage(models.Model):
    pipeline = models.ForeignKey(Pipeline, on_delete=models.CASCADE, related_name="stages")
    name = models.CharField(_("name"), max_length=80)
    position = models.PositiveIntegerField(_("position"))
    # Percent: the chance a deal on this stage is won (weighted value = value * probability).
    probability = models.PositiveSmallIntegerField(_("win probability %"), default=0)
    # An open deal on this stage this many days without a logged contact is rotting (null: never).
    rotting_days = models.PositiveSmallIntegerField(_("rotting days"), null=True, blank=True)

    class Meta:
        ordering = ["pipeline", "position", "id"]
        verbose_name = _("stage")
        constraints = [
            models.UniqueConstraint(
                fields=["pipeline", "position"],
                name="deals_stage_position_once",
                deferrable=models.Deferrable.DEFERRED,
            ),
            models.UniqueConstraint("pipeline", Lower("name"), name="deals_stage_name_once"),
            models.CheckConstraint(condition=Q(probability__lte=100), name="deals_stage_probability_percent"),
        ]

    def __str__(self) -> str:
        return self.name
