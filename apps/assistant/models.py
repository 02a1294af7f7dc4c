"""The Personal Assistant's records (AREAS.md 2.12), a person's own: a brief (question → answer
rounds) that becomes a goal; the goal's tasks (each a task of the Tasks area, by id); the schedule
proposals of their time blocks; governance checks of a plan; acceptance tests run on Celery.
Workspace schema.

A goal and a brief are their owner's alone (`visibility="owner"`), every one to the area's
administrators; the rest are seen with their goal.
"""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from apps.assistant.permissions import AssistantPerm
from apps.core.records import Access, Record, RecordQuerySet

USER = settings.AUTH_USER_MODEL


class Brief(Record):
    class Status(models.TextChoices):
        OPEN = "open", _("open")
        DONE = "done", _("done")

    access = Access(
        AssistantPerm, visibility="owner", owner="owner", label=_("Brief"), find_with="paListGoals"
    )

    owner = models.ForeignKey(USER, on_delete=models.CASCADE, related_name="+")
    topic = models.CharField(_("topic"), max_length=300)
    # [{"question": ..., "answer": ...}], in the order asked.
    rounds = models.JSONField(default=list)
    # "model" (asked by the model backend) or "fallback" (the fixed questions).
    source = models.CharField(max_length=10, default="fallback")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.topic


class Goal(Record):
    class Status(models.TextChoices):
        PLANNING = "planning", _("planning")
        SCHEDULED = "scheduled", _("scheduled")
        DONE = "done", _("done")

    access = Access(
        AssistantPerm, visibility="owner", owner="owner", label=_("Goal"), find_with="paListGoals"
    )

    owner = models.ForeignKey(USER, on_delete=models.CASCADE, related_name="+")
    brief = models.OneToOneField(Brief, on_delete=models.SET_NULL, null=True, blank=True, related_name="goal")
    objective = models.CharField(_("objective"), max_length=300)
    success_criteria = models.JSONField(default=list)
    deadline = models.DateTimeField(_("deadline"))
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.PLANNING)
    time_zone = models.CharField(max_length=64)
    day_starts = models.PositiveSmallIntegerField(default=9)
    day_ends = models.PositiveSmallIntegerField(default=17)
    buffer_minutes = models.PositiveSmallIntegerField(default=10)
    # Spending the plan may need, and the cap the governance check holds it to (micro-USD; 0: none).
    budget_micro_usd = models.BigIntegerField(default=0)
    spend_micro_usd = models.BigIntegerField(default=0)
    # Sources found by paResearchGoal: [{"kind", "title", "url", "snippet", "trust"}].
    research = models.JSONField(default=list)

    class Meta:
        ordering = ["deadline", "id"]

    def __str__(self) -> str:
        return self.objective


class GoalTask(models.Model):
    access = Access(AssistantPerm, through="goal", label=_("Goal task"))

    goal = models.ForeignKey(Goal, on_delete=models.CASCADE, related_name="tasks")
    task_id = models.PositiveIntegerField()  # a task of the Tasks area
    title = models.CharField(max_length=200)
    estimate_minutes = models.PositiveIntegerField()
    priority = models.CharField(max_length=10, default="normal")
    due_at = models.DateTimeField(null=True, blank=True)
    # Not to be scheduled before this (a task that slipped).
    not_before = models.DateTimeField(null=True, blank=True)
    position = models.PositiveSmallIntegerField(default=0)

    objects = RecordQuerySet.as_manager()

    class Meta:
        ordering = ["goal", "position", "id"]

    def __str__(self) -> str:
        return self.title


class ScheduleProposal(models.Model):
    class Status(models.TextChoices):
        PROPOSED = "proposed", _("proposed")
        SUPERSEDED = "superseded", _("superseded")
        APPROVED = "approved", _("approved")

    access = Access(AssistantPerm, through="goal", label=_("Schedule proposal"))

    goal = models.ForeignKey(Goal, on_delete=models.CASCADE, related_name="proposals")
    version = models.PositiveIntegerField()
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.PROPOSED)
    # [{"goalTask", "taskId", "title", "start", "end"}] (ISO 8601, UTC).
    blocks = models.JSONField(default=list)
    # [{"goalTask", "title", "problem"}]
    conflicts = models.JSONField(default=list)
    # What it was planned with: window, zone, working hours, buffer, pinned moves.
    constraints = models.JSONField(default=dict)
    # A digest of the busy times it was planned around: changed, the proposal is stale.
    busy_digest = models.CharField(max_length=64)
    reason = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    approved_at = models.DateTimeField(null=True, blank=True)
    event_ids = models.JSONField(default=list)
    invited = models.JSONField(default=list)

    objects = RecordQuerySet.as_manager()

    class Meta:
        ordering = ["goal", "-version"]
        constraints = [
            models.UniqueConstraint(fields=["goal", "version"], name="assistant_proposal_version_once")
        ]

    def __str__(self) -> str:
        return f"{self.goal_id} v{self.version}"


class GovernanceCheck(models.Model):
    access = Access(AssistantPerm, through="goal", label=_("Governance check"))

    goal = models.ForeignKey(Goal, on_delete=models.CASCADE, related_name="checks")
    proposal = models.ForeignKey(ScheduleProposal, on_delete=models.CASCADE, related_name="checks")
    rules = models.JSONField(default=dict)
    # [{"rule", "passed", "detail"}]
    findings = models.JSONField(default=list)
    passed = models.BooleanField()
    at = models.DateTimeField(auto_now_add=True)

    objects = RecordQuerySet.as_manager()

    class Meta:
        ordering = ["-at", "-id"]

    def __str__(self) -> str:
        return f"check {self.pk}"


class PlanTest(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued", _("queued")
        RUNNING = "running", _("running")
        PASSED = "passed", _("passed")
        FAILED = "failed", _("failed")

    access = Access(AssistantPerm, through="goal", label=_("Plan test"))

    goal = models.ForeignKey(Goal, on_delete=models.CASCADE, related_name="tests")
    proposal = models.ForeignKey(ScheduleProposal, on_delete=models.CASCADE, related_name="tests")
    # The checks it runs, by name; with the proposal, what makes a run the same run.
    definition = models.JSONField(default=list)
    key = models.CharField(max_length=64)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    log = models.JSONField(default=list)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    objects = RecordQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [models.UniqueConstraint(fields=["proposal", "key"], name="assistant_test_once")]

    def __str__(self) -> str:
        return f"test {self.pk}"
