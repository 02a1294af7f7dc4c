"""Hiring: pipelines (a job or a way of recruiting) of ordered stages, candidates on them with
their CV (a file of the Files area, its text extracted once), source and consent, and the history
of their stage moves.

A move to a decision stage (an offer, hired, rejected) is a hiring decision: a person makes it
and gives its basis, kept in the history. Any ranking the service makes (searchHiringCandidates)
is advice, logged as `HiringAdvice`. Candidates without consent to be kept are anonymised
`ATRIUM_HR_CANDIDATE_RETENTION_DAYS` after their last activity (apps.hr.tasks)."""

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apps.core import pipelines
from apps.core.records import Access, Record, name_once
from apps.hr.permissions import HrPerm

USER = settings.AUTH_USER_MODEL


def _hiring(label: object, find_with: str) -> Access:
    return Access(
        HrPerm,
        visibility="workspace",
        view=HrPerm.HIRING,
        manage=HrPerm.HIRING,
        label=label,
        find_with=find_with,
    )


class HiringPipeline(pipelines.Pipeline):
    access = _hiring(_("Hiring pipeline"), "getHiringPipelineOverview")

    description = models.CharField(_("description"), max_length=1000, blank=True)
    location = models.CharField(_("location"), max_length=200, blank=True)

    class Meta(pipelines.Pipeline.Meta):
        verbose_name = _("hiring pipeline")
        constraints = [name_once("hr_hiring_pipeline_name_once")]


class HiringStage(pipelines.Stage):
    pipeline = models.ForeignKey(HiringPipeline, on_delete=models.CASCADE, related_name="stages")
    # Moving a candidate here is a hiring decision (offer, hired, rejected): a person's, with a basis.
    decision = models.BooleanField(_("decision"), default=False)

    class Meta(pipelines.Stage.Meta):
        verbose_name = _("hiring stage")
        constraints = pipelines.Stage.once("hr_hiring_stage")


class Candidate(Record):
    access = _hiring(_("Candidate"), "searchHiringCandidates or listHiringCandidates")

    pipeline = models.ForeignKey(HiringPipeline, on_delete=models.CASCADE, related_name="candidates")
    stage = models.ForeignKey(HiringStage, on_delete=models.PROTECT, related_name="candidates")
    name = models.CharField(_("name"), max_length=200)
    email = models.EmailField(_("e-mail"), max_length=254, blank=True)
    phone = models.CharField(_("phone"), max_length=40, blank=True)
    source = models.CharField(_("source"), max_length=100, blank=True)
    # Consent to be kept beyond the retention period (for future openings).
    consent = models.BooleanField(_("consent to keep"), default=False)
    consent_at = models.DateTimeField(_("consent given"), null=True, blank=True)
    cv_file_id = models.BigIntegerField(_("CV file"), null=True, blank=True)
    cv_name = models.CharField(_("CV"), max_length=255, blank=True)
    cv_text = models.TextField(_("CV text"), blank=True)
    notes = models.TextField(_("notes"), blank=True)
    duplicate_of = models.ForeignKey(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("duplicate of"),
    )
    last_activity_at = models.DateTimeField(_("last activity"), default=timezone.now)
    anonymised_at = models.DateTimeField(_("anonymised"), null=True, blank=True)

    class Meta:
        ordering = ["name", "id"]
        verbose_name = _("candidate")
        indexes = [models.Index(fields=["pipeline", "stage"], name="hr_candidate_stage_idx")]

    def __str__(self) -> str:
        return self.name


class StageChange(models.Model):
    candidate = models.ForeignKey(Candidate, on_delete=models.CASCADE, related_name="history")
    from_stage = models.ForeignKey(
        HiringStage, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    to_stage = models.ForeignKey(HiringStage, on_delete=models.CASCADE, related_name="+")
    by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    at = models.DateTimeField(default=timezone.now)
    # The person's basis for a decision (required at a decision stage).
    basis = models.CharField(_("basis"), max_length=1000, blank=True)
    # The tool call it was made in, if any (apps.core.origin).
    origin = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["at", "id"]
        verbose_name = _("stage change")

    def __str__(self) -> str:
        return f"{self.candidate_id} to {self.to_stage_id}"


class HiringAdvice(models.Model):
    """A ranking of candidates the service gave a person: advice only, kept as the basis."""

    asked_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    at = models.DateTimeField(default=timezone.now)
    query = models.CharField(max_length=200)
    pipeline = models.ForeignKey(
        HiringPipeline, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # [{"candidate": id, "score": n}, ...] best first.
    ranking = models.JSONField(default=list)
    method = models.CharField(max_length=200)

    class Meta:
        ordering = ["-at", "-id"]
        verbose_name = _("hiring advice")
        verbose_name_plural = _("hiring advice")

    def __str__(self) -> str:
        return f"ranking {self.pk}"
