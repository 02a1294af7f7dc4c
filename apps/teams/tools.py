"""The Teams area of the catalogue (SPEC 4.7), and Platform's addTeamCardComment and
getAvailableAgentToolkits: thin doors onto services and the team's records."""

from typing import Annotated, Literal

from django.utils.translation import gettext as _
from pydantic import Field

from apps.catalogue import registry
from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import Marker, tool
from apps.catalogue.shapes import Changes, In, Limit, Offset, Out, Page, paginate
from apps.core.errors import invalid
from apps.teams import kits, services
from apps.teams.errors import MemberFired
from apps.teams.models import AgentTeam, CardComment, ProjectMessage, TeamCard, TeamMember, TeamProject
from apps.teams.permissions import TeamsPerm
from apps.teams.shapes import (
    CardId,
    CardOut,
    KitKeys,
    MemberId,
    MemberOut,
    MessageOut,
    ProjectId,
    ProjectOut,
    TeamId,
    TeamOut,
)

Budget = Annotated[
    int, Field(ge=0, le=services.MAX_BUDGET_MICRO_USD, description="Micro-USD for model calls")
]
Turns = Annotated[int, Field(ge=1, le=100, description="Model calls per member per card")]


def _team(ctx: ToolContext, team_id: int, action: Literal["view", "change"] = "view") -> AgentTeam:
    return AgentTeam.objects.prefetch_related("members").fetch(ctx.actor, team_id, action)


def _member(ctx: ToolContext, member_id: int) -> TeamMember:
    return TeamMember.objects.select_related("team").fetch(ctx.actor, member_id, "change")


class NewTeam(In):
    name: Annotated[str, Field(min_length=1, max_length=120)]
    goal: Annotated[str, Field(max_length=4000)] = ""
    budget_micro_usd: Budget
    max_turns: Turns = 6


@tool("createAgentTeam", permission=TeamsPerm.RUN, title="Create an agent team")
def create_agent_team(
    ctx: ToolContext, *, team: Annotated[NewTeam, Field(description="name and budgetMicroUsd are required")]
) -> TeamOut:
    """Create an AI agent team with a goal and a budget; add members with hireTeamMember. The team
    is yours alone and its members act with your permissions."""
    made = services.team_create(actor=ctx.actor, fields=team.model_dump())
    return TeamOut.of(made)


class TeamFields(Changes):
    name: Annotated[str, Field(min_length=1, max_length=120)] | None = None
    goal: Annotated[str, Field(max_length=4000)] | None = None
    budget_micro_usd: Budget | None = None
    max_turns: Turns | None = None
    status: Literal["active", "paused"] | None = None
    lead_id: int | None = Field(None, alias="leadMemberId", description="The member who takes prompts first")


class UpdatedTeamOut(Out):
    team: TeamOut
    changed: list[str]


@tool("updateAgentTeam", permission=TeamsPerm.RUN, title="Update an agent team")
def update_agent_team(
    ctx: ToolContext,
    *,
    team_id: TeamId,
    changes: Annotated[TeamFields, Field(description="Only what changes")],
) -> UpdatedTeamOut:
    """Change an agent team's name, goal, budget, turns, lead or status (pause or resume it)."""
    given = changes.given(required=True)
    team = _team(ctx, team_id, "change")
    changed = services.team_update(actor=ctx.actor, team=team, fields=given)
    return UpdatedTeamOut(team=TeamOut.of(_team(ctx, team_id)), changed=changed)


class TeamsOut(Out):
    teams: list[TeamOut]


@tool("getAgentTeamStatus", permission=TeamsPerm.VIEW, title="Agent team status", read_only=True)
def get_agent_team_status(ctx: ToolContext, *, team_id: TeamId | None = None) -> TeamsOut:
    """Your agent teams: members, kits, spend, open cards, approvals. Their work: getTeamProjects.
    One team with teamId."""
    if team_id is not None:
        return TeamsOut(teams=[TeamOut.of(_team(ctx, team_id))])
    teams = AgentTeam.objects.restrict(ctx.actor).filter(deleted_at__isnull=True).prefetch_related("members")
    return TeamsOut(teams=[TeamOut.of(team) for team in teams[:50]])


@tool("hireTeamMember", permission=TeamsPerm.RUN, title="Hire a team member")
def hire_team_member(
    ctx: ToolContext,
    *,
    team_id: TeamId,
    name: Annotated[str, Field(min_length=1, max_length=80, description="Unique in the team")],
    role: Annotated[str, Field(min_length=1, max_length=200, description="What it does, e.g. researcher")],
    kits: KitKeys,
    instructions: Annotated[str, Field(max_length=8000, description="How it should work")] = "",
    model: Annotated[str, Field(max_length=100, description="Empty: the service's model")] = "",
) -> MemberOut:
    """Add an AI agent member to a team with a role and kits of tools. It can never do more than
    you may; kits you may give: getAvailableAgentToolkits."""
    team = _team(ctx, team_id, "change")
    member = services.member_hire(
        actor=ctx.actor,
        team=team,
        name=name,
        role=role,
        instructions=instructions,
        model=model,
        kit_keys=kits,
    )
    member.team.refresh_from_db(fields=["lead"])
    return MemberOut.of(member)


class FiredOut(Out):
    member: MemberOut
    cancelled_cards: int


def _firable(ctx: ToolContext, *, member_id: int) -> bool:
    member = _member(ctx, member_id)
    if not member.active:
        raise MemberFired(member=member.pk, name=member.name)
    return True


@tool(
    "fireTeamMember",
    permission=TeamsPerm.FIRE,
    title="Fire a team member",
    markers=Marker.DESTRUCTIVE,
    confirm_if=_firable,
)
def fire_team_member(ctx: ToolContext, *, member_id: MemberId) -> FiredOut:
    """Remove a member from its agent team: its kits are revoked and its running work stopped.
    To change what it may do instead: reassignMemberKits."""
    member = _member(ctx, member_id)
    cancelled = services.member_fire(actor=ctx.actor, member=member)
    member.refresh_from_db()
    return FiredOut(member=MemberOut.of(member), cancelled_cards=cancelled)


class KitsOut(Out):
    member: MemberOut
    tools: list[str] = Field(description="What it may call now: its kits within your permissions")


@tool("reassignMemberKits", permission=TeamsPerm.RUN, title="Reassign a member's kits")
def reassign_member_kits(ctx: ToolContext, *, member_id: MemberId, kits: KitKeys) -> KitsOut:
    """Replace the kits of tools a team member holds (an empty list takes every tool away)."""
    member = _member(ctx, member_id)
    services.member_kits(actor=ctx.actor, member=member, kit_keys=kits)
    member.refresh_from_db()
    principal = services.member_principal(member)
    tools = _kit_tools(principal, member.kits)
    return KitsOut(member=MemberOut.of(member), tools=tools)


def _kit_tools(principal: object, keys: list[str]) -> list[str]:
    from apps.core.credentials import Principal

    return kits.effective(principal, keys) if isinstance(principal, Principal) else []


@tool("getTeamProjects", permission=TeamsPerm.VIEW, title="Team projects", read_only=True)
def get_team_projects(
    ctx: ToolContext, *, team_id: TeamId, limit: Limit = 20, offset: Offset = 0
) -> Page[ProjectOut]:
    """A team's projects, newest first, each a board of cards (one per prompt) with status and
    result. A project's log: getProjectMessages."""
    team = _team(ctx, team_id)
    projects = TeamProject.objects.filter(team=team).prefetch_related("cards")
    return paginate(projects, limit=limit, offset=offset, item=ProjectOut.of)


class MessagesOut(Out):
    project: ProjectOut
    messages: list[MessageOut]
    next_after_id: int | None = Field(description="Poll again with afterId to get newer lines")


@tool("getProjectMessages", permission=TeamsPerm.VIEW, title="Project messages", read_only=True)
def get_project_messages(
    ctx: ToolContext,
    *,
    project_id: ProjectId,
    card_id: CardId | None = None,
    after_id: Annotated[int, Field(ge=0, description="Only lines after this id")] = 0,
    limit: Limit = 50,
) -> MessagesOut:
    """A team project's log: prompts, members' outputs, tool calls, refusals, approvals, comments.
    Poll with afterId while a card runs."""
    project = TeamProject.objects.prefetch_related("cards").fetch(ctx.actor, project_id)
    rows = ProjectMessage.objects.filter(project=project, id__gt=after_id).select_related("member", "author")
    if card_id is not None:
        if not any(card.pk == card_id for card in project.cards.all()):
            raise invalid("cardId", _("is not a card of this project (getTeamProjects)"))
        rows = rows.filter(card_id=card_id)
    messages = list(rows[:limit])
    return MessagesOut(
        project=ProjectOut.of(project),
        messages=[MessageOut.of(message) for message in messages],
        next_after_id=messages[-1].pk if messages else None,
    )


class SentOut(Out):
    project_id: int
    card_id: int
    message_id: int
    status: str
    note: str


def _prompt_risky(
    ctx: ToolContext, *, team_id: int, prompt: str, title: str = "", project_id: int | None = None
) -> bool:
    team = _team(ctx, team_id, "change")
    services.prompt_check(team=team, prompt=prompt, project_id=project_id)
    return services.team_writes(team)


@tool(
    "sendTeamPrompt",
    permission=TeamsPerm.RUN,
    title="Send a prompt to an agent team",
    markers=Marker.HIGH_RISK,
    confirm_if=_prompt_risky,
)
def send_team_prompt(
    ctx: ToolContext,
    *,
    team_id: TeamId,
    prompt: Annotated[str, Field(min_length=1, max_length=20_000, description="The work to do")],
    title: Annotated[str, Field(max_length=200, description="The card's title; default: the prompt")] = "",
    project_id: ProjectId | None = None,
) -> SentOut:
    """Give an agent team work: a card on a project (new unless projectId), worked in the background.
    Answers at once; follow it with getProjectMessages."""
    team = _team(ctx, team_id, "change")
    card = services.prompt_send(actor=ctx.actor, team=team, prompt=prompt, title=title, project_id=project_id)
    message = card.messages.get(kind=ProjectMessage.Kind.PROMPT)
    return SentOut(
        project_id=card.project_id,
        card_id=card.pk,
        message_id=message.pk,
        status=card.status,
        note=_("The team works on it in the background; poll getProjectMessages with the projectId."),
    )


class CommentOut(Out):
    id: int
    card: CardOut
    body: str
    seen: bool = Field(description="The team has read it")


@tool("addTeamCardComment", permission=TeamsPerm.RUN, title="Comment on a team card")
def add_team_card_comment(
    ctx: ToolContext,
    *,
    card_id: CardId,
    comment: Annotated[str, Field(min_length=1, max_length=8000, description="Your words to the team")],
) -> CommentOut:
    """Add your comment to an agent team's card; the team reads it on its next turn."""
    card = TeamCard.objects.select_related("project").fetch(ctx.actor, card_id, "change")
    made: CardComment = services.comment_add(actor=ctx.actor, card=card, body=comment)
    return CommentOut(id=made.pk, card=CardOut.of(card), body=made.body, seen=False)


class KitOut(Out):
    key: str
    title: str
    description: str
    writes: bool = Field(description="It holds tools that change records")
    tools: list[str] = Field(description="Its tools you may use")


class ToolkitsOut(Out):
    kits: list[KitOut]


@tool(
    "getAvailableAgentToolkits", permission=TeamsPerm.VIEW, title="Available agent toolkits", read_only=True
)
def get_available_agent_toolkits(ctx: ToolContext) -> ToolkitsOut:
    """Kits of tools you may give agent team members (hireTeamMember, reassignMemberKits).
    Each is a job's tools, or only its reads, limited to the tools you may use yourself."""
    found = []
    for kit in kits.all_kits():
        usable = kits.usable(ctx.principal, kit)
        if usable:
            found.append(
                KitOut(
                    key=kit.key,
                    title=kit.title,
                    description=kit.description,
                    writes=any(not spec.read_only for spec in map(registry.get, usable) if spec),
                    tools=list(usable),
                )
            )
    return ToolkitsOut(kits=found)
