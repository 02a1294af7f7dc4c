"""Pipelines and their ordered stages (Pipedrive's shape): a stage's win probability weighs the
deals on it, its rotting days say when an open deal that has sat on it without a logged contact
needs attention."""

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from apps.core import pipelines
from apps.core.records import Access, name_once
from apps.deals.errors import PipelineArchived
from apps.deals.permissions import DealsPerm


class Pipeline(pipelines.Pipeline):
    """A sales pipeline: the stages its deals go through, and the currency it reports in.
    Archived (in the trash) pipelines keep their deals but take no new ones."""

    access = Access(
        DealsPerm,
        visibility="workspace",
        label=_("Pipeline"),
        find_with="getPipelineOverview",
        manage=DealsPerm.PIPELINES,
        trash_state=_("archived"),
        trash_error=PipelineArchived,
        trash_hint=_("Restore it with managePipeline (action restore) first."),
    )

    # The reporting currency: weighted values of deals in other currencies are converted to it.
    currency = models.CharField(_("currency"), max_length=3, default="EUR")

    class Meta(pipelines.Pipeline.Meta):
        verbose_name = _("pipeline")
        constraints = [name_once("deals_pipeline_name_once")]


class Stage(pipelines.Stage):
    pipeline = models.ForeignKey(Pipeline, on_delete=models.CASCADE, related_name="stages")
    # Percent: the chance a deal on this stage is won (weighted value = value * probability).
    probability = models.PositiveSmallIntegerField(_("win probability %"), default=0)
    # An open deal on this stage this many days without a logged contact is rotting (null: never).
    rotting_days = models.PositiveSmallIntegerField(_("rotting days"), null=True, blank=True)

    class Meta(pipelines.Stage.Meta):
        # Reordered in place (managePipeline): positions pass through each other.
        constraints = [
            *pipelines.Stage.once("deals_stage", deferred=True),
            models.CheckConstraint(condition=Q(probability__lte=100), name="deals_stage_probability_percent"),
        ]
