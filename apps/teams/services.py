"""Teams' writes: `<entity>_<verb>(*, actor, ...)`, the actor's permission checked, all or nothing.
The team's budget is metered here (reserve-then-settle, as the gateway meters API keys): the
most a model call may cost is reserved under the team's row lock, so members running at once
never spend past the budget together, and what the call did cost is settled after."""

import logging
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F, Sum
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apps.core import clean, modelcalls
from apps.core.actors import Actor, require
from apps.core.credentials import Principal
from apps.core.db import connection
from apps.core.errors import invalid
from apps.teams import errors, kits
from apps.teams.models import (
    AgentTeam,
    BudgetReservation,
    CardComment,
    ProjectMessage,
    TeamCard,
    TeamMember,
    TeamProject,
)
from apps.teams.permissions import TeamsPerm

logger = logging.getLogger(__name__)

# The most a team's budget may be: 10,000 USD.
MAX_BUDGET_MICRO_USD = 10_000_000_000


def member_principal(member: TeamMember) -> Principal | None:
    """Who a member acts as: its team's creator as they are now (None when they are gone), named
    in the audit log by the member (credential `team-member:<id>`, the client its team and name)."""
    from django.contrib.auth import get_user_model

    creator_id = member.team.created_by_id
    creator = (
        get_user_model().objects.select_related("role").filter(pk=creator_id).first() if creator_id else None
    )
    if creator is None:
        return None
    return Principal(
        user=creator,
        scheme="team",
        scopes=frozenset({"mcp"}),
        credential=f"team-member:{member.pk}",
        client=f"agent team {member.team.name!r}, member {member.name!r}"[:200],
    )


def caller_principal(actor: Actor) -> Principal:
    return Principal(user=actor, scheme="team", scopes=frozenset({"mcp"}), credential="team")


def checked_kits(actor: Actor, given: list[str], *, principal: Principal | None = None) -> list[str]:
    """The kits `actor` may give: each one known and holding a tool they may use."""
    principal = principal or caller_principal(actor)
    chosen: list[str] = []
    for key in given:
        kit = kits.get(key)
        if kit is None or not kits.usable(principal, kit):
            raise errors.KitUnknown(kit=key)
        if key not in chosen:
            chosen.append(key)
    return chosen


def _budget(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0 or value > MAX_BUDGET_MICRO_USD:
        raise invalid(
            "budgetMicroUsd", _("must be a whole number from 0 to {most}"), most=MAX_BUDGET_MICRO_USD
        )
    return value


def _apply_team(team: AgentTeam, fields: dict[str, Any]) -> None:
    if "name" in fields:
        team.name = clean.text(fields["name"], field="name", limit=120, required=True)
        clash = AgentTeam.objects.filter(
            created_by_id=team.created_by_id, name__iexact=team.name, deleted_at__isnull=True
        ).exclude(pk=team.pk)
        if clash.exists():
            raise invalid("name", _("you already have a team named {name!r}"), name=team.name)
    if "goal" in fields:
        team.goal = clean.long_text(fields["goal"], field="goal", limit=4000)
    if "budget_micro_usd" in fields:
        team.budget_micro_usd = _budget(fields["budget_micro_usd"])
    if "max_turns" in fields:
        turns = fields["max_turns"]
        if not isinstance(turns, int) or not 1 <= turns <= settings.ATRIUM_TEAMS_MAX_TURNS:
            raise invalid("maxTurns", _("must be from 1 to {most}"), most=settings.ATRIUM_TEAMS_MAX_TURNS)
        team.max_turns = turns
    if "status" in fields:
        if fields["status"] not in AgentTeam.Status.values:
            raise invalid("status", _("must be active or paused"))
        team.status = fields["status"]
    if "lead_id" in fields:
        lead_id = fields["lead_id"]
        if lead_id is None:
            team.lead = None
        else:
            lead = TeamMember.objects.filter(
                pk=lead_id, team_id=team.pk, status=TeamMember.Status.ACTIVE
            ).first()
            if lead is None:
                raise invalid("leadMemberId", _("is not an active member of this team (getAgentTeamStatus)"))
            team.lead = lead


@transaction.atomic
def team_create(*, actor: Actor, fields: dict[str, Any]) -> AgentTeam:
    require(actor, TeamsPerm.RUN)
    team = AgentTeam(created_by_id=actor.pk, budget_micro_usd=0)
    fields = {"budget_micro_usd": fields.get("budget_micro_usd"), **fields}
    _apply_team(team, {key: value for key, value in fields.items() if key != "lead_id"})
    team.save()
    return team


TEAM_FIELDS = ("name", "goal", "budget_micro_usd", "max_turns", "status", "lead_id")


@transaction.atomic
def team_update(*, actor: Actor, team: AgentTeam, fields: dict[str, Any]) -> list[str]:
    require(actor, TeamsPerm.RUN)
    team = AgentTeam.objects.select_for_update().get(pk=team.pk)
    before = {name: getattr(team, name) for name in TEAM_FIELDS}
    _apply_team(team, fields)
    changed = [name for name in TEAM_FIELDS if getattr(team, name) != before[name]]
    if changed:
        team.save()
    return changed


@transaction.atomic
def member_hire(
    *, actor: Actor, team: AgentTeam, name: str, role: str, instructions: str, model: str, kit_keys: list[str]
) -> TeamMember:
    require(actor, TeamsPerm.RUN)
    member = TeamMember(
        team=team,
        name=clean.text(name, field="name", limit=80, required=True),
        role=clean.text(role, field="role", limit=200, required=True),
        instructions=clean.long_text(instructions, field="instructions", limit=8000),
        model=clean.text(model, field="model", limit=100),
        kits=checked_kits(actor, kit_keys),
    )
    if team.members.filter(status=TeamMember.Status.ACTIVE, name__iexact=member.name).exists():
        raise invalid("name", _("the team already has a member named {name!r}"), name=member.name)
    member.save()
    # The first member hired leads (read from the row: the caller's team may be an older copy).
    if AgentTeam.objects.filter(pk=team.pk, lead__isnull=True).update(lead=member):
        team.lead = member
    return member


@transaction.atomic
def member_fire(*, actor: Actor, member: TeamMember) -> int:
    """Fires the member: its kits revoked at once, the tool calls it left waiting for a person's
    approval denied, its running and queued work cancelled (a turn under way stops before its
    next model or tool call). The number of cards cancelled."""
    require(actor, TeamsPerm.FIRE)
    member = TeamMember.objects.select_for_update().get(pk=member.pk)
    if not member.active:
        raise errors.MemberFired(member=member.pk, name=member.name)
    member.status = TeamMember.Status.FIRED
    member.fired_at = timezone.now()
    member.kits = []
    member.save(update_fields=["status", "fired_at", "kits"])
    # What it asked a person to confirm goes with it: approving it would run a fired member's call.
    ProjectMessage.objects.filter(member=member, approval=ProjectMessage.Approval.PENDING).update(
        approval=ProjectMessage.Approval.DENIED, outcome=ProjectMessage.Approval.DENIED
    )
    team = member.team
    if team.lead_id == member.pk:
        successor = team.members.filter(status=TeamMember.Status.ACTIVE).order_by("id").first()
        AgentTeam.objects.filter(pk=team.pk).update(lead=successor)
    cancelled = 0
    if not team.members.filter(status=TeamMember.Status.ACTIVE).exists():
        # Nobody is left to work on the team's open cards.
        cancelled = card_cancel_open(team=team, problem=str(_("Every member of the team was fired.")))
    return cancelled


def card_cancel_open(*, team: AgentTeam, problem: str) -> int:
    return TeamCard.objects.filter(project__team=team, status__in=TeamCard.OPEN).update(
        status=TeamCard.Status.CANCELLED, problem=problem[:500], finished_at=timezone.now()
    )


@transaction.atomic
def member_kits(*, actor: Actor, member: TeamMember, kit_keys: list[str]) -> list[str]:
    require(actor, TeamsPerm.RUN)
    member = TeamMember.objects.select_for_update().get(pk=member.pk)
    if not member.active:
        raise errors.MemberFired(member=member.pk, name=member.name)
    member.kits = checked_kits(actor, kit_keys)
    member.save(update_fields=["kits"])
    return member.kits


def team_writes(team: AgentTeam) -> bool:
    """The team's active members hold a kit with a tool that changes something."""
    keys = [key for member in team.members.filter(status=TeamMember.Status.ACTIVE) for key in member.kits]
    return kits.writes(keys)


def prompt_check(*, team: AgentTeam, prompt: str, project_id: int | None) -> str:
    """Whether the team can take the prompt now (the arguments checked before any confirmation
    is asked): the prompt cleaned, or the failure that says what to do."""
    prompt = clean.long_text(prompt, field="prompt", limit=20_000, required=True)
    if team.status != AgentTeam.Status.ACTIVE:
        raise errors.TeamNotActive(team=team.pk, name=team.name)
    members = list(team.members.filter(status=TeamMember.Status.ACTIVE))
    if not members:
        raise errors.TeamHasNoMembers(team=team.pk, name=team.name)
    if team.spent_micro_usd >= team.budget_micro_usd:
        raise errors.TeamBudgetSpent(
            team=team.pk, name=team.name, spent=team.spent_micro_usd, budget=team.budget_micro_usd
        )
    if project_id is not None and not TeamProject.objects.filter(pk=project_id, team=team).exists():
        raise invalid("projectId", _("is not a project of this team (getTeamProjects)"))
    running = TeamCard.objects.filter(project__team=team, status__in=TeamCard.OPEN).count()
    if running >= settings.ATRIUM_TEAMS_OPEN_CARDS:
        raise errors.TeamBusy(team=team.pk, name=team.name, running=running)
    try:
        for model in {member.model for member in members}:
            modelcalls.turns().prepare(model=model, system="", messages=[], tools=[], max_tokens=1)
    except modelcalls.NotConfigured as error:
        raise errors.TeamModelUnavailable(problem=error.problem) from None
    return prompt


@transaction.atomic
def prompt_send(
    *, actor: Actor, team: AgentTeam, prompt: str, title: str, project_id: int | None
) -> TeamCard:
    """A card for the prompt on the project given (or a new one), queued for the team's workers."""
    require(actor, TeamsPerm.RUN)
    team = AgentTeam.objects.select_for_update().get(pk=team.pk)
    prompt = prompt_check(team=team, prompt=prompt, project_id=project_id)
    title = clean.text(title or prompt, field="title", limit=20_000)[:200]
    if project_id is None:
        project = TeamProject.objects.create(team=team, title=title)
    else:
        project = TeamProject.objects.get(pk=project_id, team=team)
    card = TeamCard.objects.create(project=project, title=title, prompt=prompt, created_by_id=actor.pk)
    ProjectMessage.objects.create(
        project=project, card=card, kind=ProjectMessage.Kind.PROMPT, author_id=actor.pk, content=prompt
    )
    schema_name = connection.schema_name
    transaction.on_commit(lambda: _enqueue(card.pk, schema_name))
    return card


def _enqueue(card_id: int, schema_name: str) -> None:
    from apps.teams.tasks import run_card

    try:
        run_card.delay(card_id, schema_name=schema_name)
    except Exception:
        # The sweeper (apps.teams.tasks.start_queued) starts it on its next round.
        logger.warning("card %s could not be queued now; the sweeper starts it", card_id, exc_info=True)


@transaction.atomic
def comment_add(*, actor: Actor, card: TeamCard, body: str) -> CardComment:
    require(actor, TeamsPerm.RUN)
    comment = CardComment.objects.create(
        card=card, author_id=actor.pk, body=clean.long_text(body, field="comment", limit=8000, required=True)
    )
    ProjectMessage.objects.create(
        project_id=card.project_id,
        card=card,
        kind=ProjectMessage.Kind.COMMENT,
        author_id=actor.pk,
        content=comment.body,
    )
    return comment


# --- the budget: reserve, then settle -----------------------------------------------------------


def held(team_id: int) -> int:
    """What open reservations hold of the team's budget."""
    total = BudgetReservation.objects.filter(
        team_id=team_id, settled_at__isnull=True, expires_at__gt=timezone.now()
    ).aggregate(total=Sum("micro_usd"))["total"]
    return int(total or 0)


@transaction.atomic
def budget_reserve(*, team_id: int, micro_usd: int) -> BudgetReservation:
    team = AgentTeam.objects.select_for_update().get(pk=team_id)
    if team.spent_micro_usd + held(team_id) + micro_usd > team.budget_micro_usd:
        raise errors.TeamBudgetSpent(
            team=team.pk, name=team.name, spent=team.spent_micro_usd, budget=team.budget_micro_usd
        )
    return BudgetReservation.objects.create(
        team=team,
        micro_usd=micro_usd,
        expires_at=timezone.now() + timedelta(seconds=settings.ATRIUM_TEAMS_RESERVATION_SECONDS),
    )


@transaction.atomic
def budget_settle(*, reservation: BudgetReservation, micro_usd: int) -> None:
    AgentTeam.objects.select_for_update().filter(pk=reservation.team_id).update(
        spent_micro_usd=F("spent_micro_usd") + micro_usd
    )
    BudgetReservation.objects.filter(pk=reservation.pk).update(
        settled_at=timezone.now(), spent_micro_usd=micro_usd
    )


def budget_release(*, reservation: BudgetReservation) -> None:
    BudgetReservation.objects.filter(pk=reservation.pk).update(settled_at=timezone.now())


def approval_decide(*, actor: Actor, message: ProjectMessage, approve: bool) -> str:
    """A person's decision on a tool call a member asked for: denied, or run through the
    dispatcher as that person (they confirmed it on the page: the confirmation the member could
    not give). The log line says how it ended; its text is returned."""
    from apps.catalogue.dispatch import MemorySession, ToolContext, ToolNotFound, call_tool

    require(actor, TeamsPerm.RUN)
    with transaction.atomic():
        locked = ProjectMessage.objects.select_for_update().get(pk=message.pk)
        if locked.approval != ProjectMessage.Approval.PENDING:
            raise errors.ApprovalDecided(approval=locked.pk, decision=locked.approval)
        locked.approval = ProjectMessage.Approval.APPROVED if approve else ProjectMessage.Approval.DENIED
        locked.save(update_fields=["approval"])
    if not approve:
        text = str(_("Denied; nothing was done."))
    else:
        context = ToolContext(
            principal=Principal(
                user=actor, scheme="team", scopes=frozenset({"mcp"}), credential="team-approval"
            ),
            session=MemorySession(),
            client_capabilities={"elicitation": {}},
            elicit=lambda _message, _schema: {"action": "accept", "content": {"confirm": True}},
            door="team",
        )
        try:
            result = call_tool(context, locked.tool, dict(locked.arguments or {}))
        except ToolNotFound:
            text = str(_("You may not use this tool; nothing was done."))
        else:
            text = "\n".join(
                part.get("text", "") for part in result.get("content") or [] if isinstance(part, dict)
            )
    ProjectMessage.objects.filter(pk=locked.pk).update(
        outcome=locked.approval, content=f"{locked.content}\n{text}"[:20_000]
    )
    return text
