"""Tasks: work written down as steps on a board, run step by step. Workspace schema.

A task (or a template: `is_template`, never run, only copied) has columns (a board; the last
column is where finished steps go) and steps. Each step is a card in a column with notes,
labels, a due date, an assignee, a checklist and links to records of any area. A task runs by
working through its steps in order (apps.tasks.runner): the service does the steps it can do
itself, and a step that needs a person, or the service's agent, makes the task wait. Every run
is a `TaskRun`; everything that happens is a `TaskEvent` (what each step did, who changed what).

A `ScheduledTask` runs a task again and again: at each occurrence of its RFC 5545 rule, the
beat sweeper copies the task into a new one and starts it (`ScheduledRun` is the history).
"""

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apps.core import history
from apps.core.kinds import EntityLink
from apps.core.records import Access, RecordQuerySet, Visibility
from apps.core.sharing import ShareBase
from apps.tasks.permissions import TasksPerm

USER = settings.AUTH_USER_MODEL


class Task(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft", _("draft")
        RUNNING = "running", _("running")
        WAITING = "waiting", _("waiting")
        PAUSED = "paused", _("paused")
        COMPLETED = "completed", _("completed")
        FAILED = "failed", _("failed")

    class WaitingOn(models.TextChoices):
        NOTHING = "", _("nothing")
        PERSON = "person", _("a person")
        AGENT = "agent", _("the service's agent")

    class Priority(models.TextChoices):
        LOW = "low", _("low")
        NORMAL = "normal", _("normal")
        HIGH = "high", _("high")
        URGENT = "urgent", _("urgent")

    Visibility = Visibility
    # Tasks are never deleted (templates neither): they are kept with their history. An archived
    # one (archiveTask) is put away: left out of listTasks unless asked for, never run.
    access = Access(TasksPerm, shares=True, label=_("Task"), find_with="listTasks")
    title = models.CharField(_("title"), max_length=200)
    description = models.TextField(_("description"), blank=True)
    # How to do it: what the people and the service's agent doing the steps follow.
    instructions = models.TextField(_("instructions"), blank=True)
    is_template = models.BooleanField(_("template"), default=False)
    status = models.CharField(_("status"), max_length=20, choices=Status.choices, default=Status.DRAFT)
    waiting_on = models.CharField(max_length=10, choices=WaitingOn.choices, blank=True, default="")
    priority = models.CharField(
        _("priority"), max_length=10, choices=Priority.choices, default=Priority.NORMAL
    )
    due_at = models.DateTimeField(_("due"), null=True, blank=True)
    owner = models.ForeignKey(
        USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+", verbose_name=_("owner")
    )
    visibility = models.CharField(
        _("visible to"), max_length=20, choices=Visibility.choices, default=Visibility.WORKSPACE
    )
    template = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="+", verbose_name=_("template")
    )
    copied_from = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # The owner's API key whose budget pays for the agent's steps (apps.gateway.handover); without
    # one, agent steps wait for a person to choose it.
    agent_key = models.ForeignKey(
        "apikeys.ApiKey",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("API key for the agent"),
    )
    created_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)
    started_at = models.DateTimeField(_("started"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)
    archived_at = models.DateTimeField(_("archived"), null=True, blank=True)

    objects = RecordQuerySet.as_manager()

    class Meta:
        ordering = ["-updated_at", "-id"]
        verbose_name = _("task")
        indexes = [
            models.Index(fields=["is_template", "status"], name="tasks_kind_status"),
            models.Index(fields=["owner"], name="tasks_owner"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(is_template=False) | Q(status="draft"), name="tasks_template_is_draft"
            )
        ]

    def __str__(self) -> str:
        return self.title

    @property
    def is_active(self) -> bool:
        return self.status in (self.Status.RUNNING, self.Status.WAITING, self.Status.PAUSED)


class TaskColumn(models.Model):
    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="columns")
    name = models.CharField(_("name"), max_length=60)
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["position", "id"]
        constraints = [models.UniqueConstraint(fields=["task", "name"], name="tasks_column_name_once")]

    def __str__(self) -> str:
        return self.name


class TaskStep(models.Model):
    class Kind(models.TextChoices):
        MANUAL = "manual", _("done by a person")
        AGENT = "agent", _("done by the service's agent")
        NOTIFY = "notify", _("the service notifies people")
        WRITE_FILE = "write_file", _("the service writes a file")

    class Status(models.TextChoices):
        PENDING = "pending", _("not started")
        WAITING = "waiting", _("waiting")
        IN_PROGRESS = "in_progress", _("in progress")
        DONE = "done", _("done")
        SKIPPED = "skipped", _("skipped")
        FAILED = "failed", _("failed")

    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="steps")
    position = models.PositiveSmallIntegerField(default=0)
    title = models.CharField(_("title"), max_length=200)
    instructions = models.TextField(_("instructions"), blank=True)
    kind = models.CharField(_("kind"), max_length=20, choices=Kind.choices, default=Kind.MANUAL)
    # What a step the service does itself needs (notify: whom; write_file: the file).
    config = models.JSONField(default=dict, blank=True)
    status = models.CharField(_("status"), max_length=20, choices=Status.choices, default=Status.PENDING)
    waiting_on = models.CharField(max_length=10, choices=Task.WaitingOn.choices, blank=True, default="")
    # RESTRICT: a column with steps on it is not deleted alone, but goes with its task.
    column = models.ForeignKey(TaskColumn, on_delete=models.RESTRICT, related_name="steps")
    # The card.
    notes = models.TextField(_("notes"), blank=True)
    labels = ArrayField(models.CharField(max_length=40), default=list, blank=True)
    due_at = models.DateTimeField(_("due"), null=True, blank=True)
    assignee = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    # What the step did, the last time it ran.
    result = models.TextField(blank=True)
    # Agent steps: the message gateway's conversation doing it, the last time it was handed over.
    agent_conversation = models.UUIDField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    finished_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")

    class Meta:
        ordering = ["position", "id"]

    def __str__(self) -> str:
        return self.title

    @property
    def is_finished(self) -> bool:
        return self.status in (self.Status.DONE, self.Status.SKIPPED)


class ChecklistItem(models.Model):
    step = models.ForeignKey(TaskStep, on_delete=models.CASCADE, related_name="checklist")
    position = models.PositiveSmallIntegerField(default=0)
    text = models.CharField(max_length=300)
    done = models.BooleanField(default=False)
    done_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    done_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["position", "id"]

    def __str__(self) -> str:
        return self.text


class TaskStepLink(EntityLink):
    """A record of any area linked to a step (apps.core.kinds)."""

    step = models.ForeignKey(TaskStep, on_delete=models.CASCADE, related_name="links")
    linked_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    linked_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["linked_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["step", "content_type", "object_id"], name="tasks_step_link_once")
        ]
        indexes = [models.Index(fields=["content_type", "object_id"], name="tasks_step_link_entity")]


class TaskShare(ShareBase):
    """A person a task is shared with: "view", or "edit" (change and run it). apps.core.sharing."""

    item = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="shares")


class TaskRun(models.Model):
    class Trigger(models.TextChoices):
        START = "start", _("started")
        RERUN = "rerun", _("run again")
        SCHEDULE = "schedule", _("scheduled")

    class Status(models.TextChoices):
        RUNNING = "running", _("running")
        WAITING = "waiting", _("waiting")
        PAUSED = "paused", _("paused")
        COMPLETED = "completed", _("completed")
        FAILED = "failed", _("failed")
        REVERTED = "reverted", _("reverted to draft")

    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="runs")
    number = models.PositiveIntegerField()
    trigger = models.CharField(max_length=10, choices=Trigger.choices, default=Trigger.START)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.RUNNING)
    started_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    started_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-number"]
        constraints = [models.UniqueConstraint(fields=["task", "number"], name="tasks_run_number_once")]

    def __str__(self) -> str:
        return f"run {self.number} of {self.task_id}"


class TaskEvent(history.Trail):
    """The task's history: what each step did during a run, and every change people (and agents,
    through which door) made."""

    class Kind(models.TextChoices):
        CREATED = "created", _("created")
        UPDATED = "updated", _("updated")
        INSTRUCTIONS_UPDATED = "instructions_updated", _("instructions updated")
        STEP_ADDED = "step_added", _("step added")
        STEP_REMOVED = "step_removed", _("step removed")
        STEPS_REORDERED = "steps_reordered", _("steps reordered")
        STEP_MOVED = "step_moved", _("step moved")
        CARD_UPDATED = "card_updated", _("card updated")
        CHECKLIST_UPDATED = "checklist_updated", _("checklist updated")
        LINKED = "linked", _("record linked")
        UNLINKED = "unlinked", _("record unlinked")
        SHARED = "shared", _("sharing changed")
        STARTED = "started", _("started")
        STEP_STARTED = "step_started", _("step started")
        STEP_WAITING = "step_waiting", _("step waiting")
        STEP_DONE = "step_done", _("step done")
        STEP_SKIPPED = "step_skipped", _("step skipped")
        STEP_FAILED = "step_failed", _("step failed")
        STEP_REOPENED = "step_reopened", _("step reopened")
        PAUSED = "paused", _("paused")
        RESUMED = "resumed", _("resumed")
        STEERED = "steered", _("steered")
        COMPLETED = "completed", _("completed")
        FAILED = "failed", _("failed")
        REVERTED = "reverted", _("reverted to draft")
        SCHEDULE_CHANGED = "schedule_changed", _("schedule changed")
        FILE_WRITTEN = "file_written", _("file written")
        ARCHIVED = "archived", _("archived")
        UNARCHIVED = "unarchived", _("taken out of the archive")

    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="events")
    run = models.ForeignKey(TaskRun, on_delete=models.SET_NULL, null=True, blank=True, related_name="events")
    step = models.ForeignKey(
        TaskStep, on_delete=models.SET_NULL, null=True, blank=True, related_name="events"
    )
    # The step's title then (the step may be removed later).
    step_title = models.CharField(max_length=200, blank=True)
    kind = models.CharField(max_length=30, choices=Kind.choices)
    message = models.TextField(blank=True)
    data = models.JSONField(default=dict, blank=True)

    class Meta(history.Trail.Meta):
        indexes = [models.Index(fields=["task", "-at"], name="tasks_event_task_at")]

    def __str__(self) -> str:
        return f"{self.kind} of {self.task_id}"


class ScheduledTask(models.Model):
    """Runs a copy of `task` at each occurrence of an RFC 5545 recurrence rule."""

    access = Access(
        TasksPerm,
        through="task",
        label=_("Scheduled task"),
        find_with="listScheduledTasks",
    )
    task = models.OneToOneField(Task, on_delete=models.CASCADE, related_name="schedule")
    # An RRULE value ("FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;BYMINUTE=0"), read in `time_zone` from `starts_at`.
    rrule = models.CharField(_("recurrence"), max_length=500)
    starts_at = models.DateTimeField(_("from"))
    time_zone = models.CharField(_("time zone"), max_length=64, default="UTC")
    enabled = models.BooleanField(_("enabled"), default=True)
    # The due time the beat sweeper looks for; null once the rule has no more occurrences.
    next_run_at = models.DateTimeField(_("next run"), null=True, blank=True)
    last_run_at = models.DateTimeField(_("last run"), null=True, blank=True)
    run_count = models.PositiveIntegerField(default=0)
    disabled_reason = models.CharField(max_length=300, blank=True)
    # Runs act as this person (their permissions, their ownership of the copies).
    created_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)

    objects = RecordQuerySet.as_manager()

    class Meta:
        ordering = ["next_run_at", "id"]
        verbose_name = _("scheduled task")
        indexes = [
            models.Index(fields=["next_run_at"], condition=Q(enabled=True), name="tasks_schedule_due"),
        ]

    def __str__(self) -> str:
        return f"schedule of {self.task_id}: {self.rrule}"


class ScheduledRun(models.Model):
    class Status(models.TextChoices):
        STARTED = "started", _("started a task")
        FAILED = "failed", _("failed")

    schedule = models.ForeignKey(ScheduledTask, on_delete=models.CASCADE, related_name="runs")
    due_at = models.DateTimeField()
    ran_at = models.DateTimeField(default=timezone.now)
    status = models.CharField(max_length=10, choices=Status.choices)
    task = models.ForeignKey(Task, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    missed = models.PositiveIntegerField(default=0)
    message = models.CharField(max_length=500, blank=True)

    class Meta:
        ordering = ["-due_at", "-id"]

    def __str__(self) -> str:
        return f"run of schedule {self.schedule_id} due {self.due_at:%Y-%m-%d %H:%M}"
