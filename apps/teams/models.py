"""Teams: agent teams of a person, their members, the projects they work on (a board of cards,
one per prompt, that people comment on), the team's log, and the budget's reservations.
Workspace schema.

A team is its creator's alone (`created_by`): its members act with the creator's permissions,
re-checked at every call, so nobody else sees, prompts or changes it (the Teams admins neither:
`admins=False`, on the team and on every record under it: its members, projects, cards, comments
and log). A member's tools are its kits (named sets of catalogue tools, apps.teams.kits)
within those permissions.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apps.core.records import Access, Record, RecordQuerySet
from apps.teams.permissions import TeamsPerm

USER = settings.AUTH_USER_MODEL


class AgentTeam(Record):
    class Status(models.TextChoices):
        ACTIVE = "active", _("active")
        PAUSED = "paused", _("paused")

    access = Access(
        TeamsPerm,
        visibility="owner",
        owner="created_by",
        admins=False,
        manage=TeamsPerm.RUN,
        label=_("Agent team"),
        find_with="getAgentTeamStatus",
        trash_state=_("disbanded"),
    )

    name = models.CharField(_("name"), max_length=120)
    goal = models.TextField(_("goal"), blank=True)
    status = models.CharField(_("status"), max_length=10, choices=Status.choices, default=Status.ACTIVE)
    # The team's budget for model calls, in micro-USD, and what it spent; open reservations are
    # the BudgetReservation rows not yet settled.
    budget_micro_usd = models.BigIntegerField(_("budget"))
    spent_micro_usd = models.BigIntegerField(_("spent"), default=0)
    # The member who takes a prompt first (None: the first hired).
    lead = models.ForeignKey("TeamMember", on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    # Model calls a member may make on one card.
    max_turns = models.PositiveSmallIntegerField(_("turns per member"), default=6)

    class Meta:
        ordering = ["name", "id"]
        verbose_name = _("agent team")
        verbose_name_plural = _("agent teams")
        constraints = [
            models.UniqueConstraint(
                Lower("name"), "created_by", condition=Q(deleted_at__isnull=True), name="teams_team_name_once"
            )
        ]

    def __str__(self) -> str:
        return self.name


class TeamMember(models.Model):
    class Status(models.TextChoices):
        ACTIVE = "active", _("active")
        FIRED = "fired", _("fired")

    access = Access(
        TeamsPerm,
        manage=TeamsPerm.RUN,
        through="team",
        admins=False,
        label=_("Team member"),
        find_with="getAgentTeamStatus",
    )

    team = models.ForeignKey(AgentTeam, on_delete=models.CASCADE, related_name="members")
    name = models.CharField(_("name"), max_length=80)
    role = models.CharField(_("role"), max_length=200)
    instructions = models.TextField(_("instructions"), blank=True)
    # The model it runs on ("" : the service's configured model).
    model = models.CharField(_("model"), max_length=100, blank=True)
    kits = models.JSONField(_("kits"), default=list)
    status = models.CharField(_("status"), max_length=10, choices=Status.choices, default=Status.ACTIVE)
    hired_at = models.DateTimeField(default=timezone.now)
    fired_at = models.DateTimeField(null=True, blank=True)

    objects = RecordQuerySet.as_manager()

    class Meta:
        ordering = ["team", "id"]
        constraints = [
            models.UniqueConstraint(
                "team", Lower("name"), condition=Q(status="active"), name="teams_member_name_once"
            )
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def active(self) -> bool:
        return self.status == self.Status.ACTIVE


class TeamProject(models.Model):
    """A board the team works on: a card per prompt."""

    access = Access(
        TeamsPerm,
        manage=TeamsPerm.RUN,
        through="team",
        admins=False,
        label=_("Team project"),
        find_with="getTeamProjects",
    )

    team = models.ForeignKey(AgentTeam, on_delete=models.CASCADE, related_name="projects")
    title = models.CharField(_("title"), max_length=200)
    created_at = models.DateTimeField(default=timezone.now)

    objects = RecordQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.title


class TeamCard(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued", _("queued")
        RUNNING = "running", _("running")
        DONE = "done", _("done")
        FAILED = "failed", _("failed")
        CANCELLED = "cancelled", _("cancelled")

    OPEN = (Status.QUEUED, Status.RUNNING)

    access = Access(
        TeamsPerm,
        manage=TeamsPerm.RUN,
        through="project",
        admins=False,
        label=_("Team card"),
        find_with="getTeamProjects",
    )

    project = models.ForeignKey(TeamProject, on_delete=models.CASCADE, related_name="cards")
    title = models.CharField(_("title"), max_length=200)
    prompt = models.TextField(_("prompt"))
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    result = models.TextField(blank=True)
    # Why it failed or was cancelled, in words for people.
    problem = models.CharField(max_length=500, blank=True)
    created_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)

    objects = RecordQuerySet.as_manager()

    class Meta:
        ordering = ["project", "id"]
        indexes = [models.Index(fields=["status"], name="teams_card_status")]

    def __str__(self) -> str:
        return self.title


class CardComment(models.Model):
    """A person's comment on a card: the team reads it on its next turn."""

    access = Access(TeamsPerm, manage=TeamsPerm.RUN, through="card", admins=False, label=_("Card comment"))

    card = models.ForeignKey(TeamCard, on_delete=models.CASCADE, related_name="comments")
    author = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, related_name="+")
    body = models.TextField()
    at = models.DateTimeField(default=timezone.now)
    seen_at = models.DateTimeField(null=True, blank=True)

    objects = RecordQuerySet.as_manager()

    class Meta:
        ordering = ["card", "at", "id"]

    def __str__(self) -> str:
        return f"comment {self.pk}"


class ProjectMessage(models.Model):
    """A line of the team's log: a prompt, a member's reply, a tool call and how it ended, a
    refusal, an approval a person has to give, a comment, a failure."""

    class Kind(models.TextChoices):
        PROMPT = "prompt", _("prompt")
        REPLY = "reply", _("reply")
        TOOL = "tool", _("tool call")
        REFUSED = "refused", _("refused")
        APPROVAL = "approval", _("needs approval")
        COMMENT = "comment", _("comment")
        FAILURE = "failure", _("failure")

    class Approval(models.TextChoices):
        NONE = "", _("none")
        PENDING = "pending", _("pending")
        APPROVED = "approved", _("approved")
        DENIED = "denied", _("denied")

    access = Access(
        TeamsPerm,
        manage=TeamsPerm.RUN,
        through="project",
        admins=False,
        label=_("Project message"),
        find_with="getProjectMessages",
    )

    project = models.ForeignKey(TeamProject, on_delete=models.CASCADE, related_name="messages")
    card = models.ForeignKey(
        TeamCard, on_delete=models.CASCADE, null=True, blank=True, related_name="messages"
    )
    kind = models.CharField(max_length=10, choices=Kind.choices)
    member = models.ForeignKey(TeamMember, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    author = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    tool = models.CharField(max_length=100, blank=True)
    arguments = models.JSONField(null=True, blank=True)
    # The dispatcher's outcome of a tool call ("ok", "error", "refused", "pending").
    outcome = models.CharField(max_length=30, blank=True)
    content = models.TextField(blank=True)
    cost_micro_usd = models.BigIntegerField(default=0)
    approval = models.CharField(max_length=10, choices=Approval.choices, default="", blank=True)
    at = models.DateTimeField(default=timezone.now)

    objects = RecordQuerySet.as_manager()

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["project", "id"], name="teams_message_project")]

    def __str__(self) -> str:
        return f"{self.kind} {self.pk}"


class BudgetReservation(models.Model):
    """The most a model call may cost, held against the team's budget until it is settled with
    what it did cost (or released); one past `expires_at` holds nothing (a worker that died)."""

    team = models.ForeignKey(AgentTeam, on_delete=models.CASCADE, related_name="reservations")
    micro_usd = models.BigIntegerField()
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()
    settled_at = models.DateTimeField(null=True, blank=True)
    spent_micro_usd = models.BigIntegerField(default=0)

    class Meta:
        indexes = [models.Index(fields=["team", "settled_at"], name="teams_reservation_open")]

    def __str__(self) -> str:
        return f"{self.micro_usd} micro-USD for team {self.team_id}"
