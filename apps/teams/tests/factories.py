"""Teams for tests, made through the services as a person makes them: `team(actor)`,
`member(actor, team, kits=["contacts-read"])`, and the rows of the access and privacy tests."""

from typing import Any

from apps.catalogue.testing import structured
from apps.core import factories
from apps.core.factories import AccessRows, access_rows
from apps.teams import services
from apps.teams.models import (
    AgentTeam,
    CardComment,
    ProjectMessage,
    TeamCard,
    TeamMember,
    TeamProject,
)

_count = iter(range(1, 1_000_000))


def team(actor: Any, **fields: Any) -> AgentTeam:
    fields.setdefault("name", f"Team {next(_count)}")
    fields.setdefault("budget_micro_usd", 1_000_000)
    return services.team_create(actor=actor, fields=fields)


def member(actor: Any, of: AgentTeam, *, kits: list[str] | None = None, **fields: Any) -> TeamMember:
    fields.setdefault("name", f"Agent {next(_count)}")
    fields.setdefault("role", "researcher")
    fields.setdefault("instructions", "")
    fields.setdefault("model", "")
    return services.member_hire(actor=actor, team=of, kit_keys=kits if kits is not None else [], **fields)


def card(of: AgentTeam, *, prompt: str = "Find the newest contacts", **fields: Any) -> TeamCard:
    """A card queued on a new project, as sendTeamPrompt leaves it (without its model check)."""
    project = TeamProject.objects.create(team=of, title=fields.pop("title", prompt[:200]))
    made = TeamCard.objects.create(
        project=project, title=project.title, prompt=prompt, created_by=of.created_by
    )
    ProjectMessage.objects.create(
        project=project, card=made, kind=ProjectMessage.Kind.PROMPT, author=of.created_by, content=prompt
    )
    return made


def teams_seen(person: Any) -> list[int]:
    from apps.catalogue.testing import call

    return [row["id"] for row in structured(call(person, "getAgentTeamStatus", {}))["teams"]]


@access_rows("teams.AgentTeam")
def _teams(people: dict[str, Any]) -> AccessRows:
    return AccessRows(
        own={"member": [team(people["member"])], "admin": [team(people["admin"])]},
        listed=teams_seen,
    )


@access_rows("teams.TeamMember")
def _members(people: dict[str, Any]) -> AccessRows:
    return AccessRows(
        own={
            "member": [member(people["member"], team(people["member"]))],
            "admin": [member(people["admin"], team(people["admin"]))],
        }
    )


@access_rows("teams.TeamProject")
def _projects(people: dict[str, Any]) -> AccessRows:
    return AccessRows(
        own={
            "member": [card(team(people["member"])).project],
            "admin": [card(team(people["admin"])).project],
        }
    )


@access_rows("teams.TeamCard")
def _cards(people: dict[str, Any]) -> AccessRows:
    return AccessRows(own={"member": [card(team(people["member"]))], "admin": [card(team(people["admin"]))]})


@access_rows("teams.CardComment")
def _comments(people: dict[str, Any]) -> AccessRows:
    def comment(person: Any) -> CardComment:
        return services.comment_add(actor=person, card=card(team(person)), body="Look at Acme first")

    return AccessRows(own={"member": [comment(people["member"])], "admin": [comment(people["admin"])]})


@access_rows("teams.ProjectMessage")
def _messages(people: dict[str, Any]) -> AccessRows:
    def line(person: Any) -> ProjectMessage:
        return card(team(person)).messages.get()

    return AccessRows(own={"member": [line(people["member"])], "admin": [line(people["admin"])]})


@factories.privacy_rows("teams")
def _private(people: dict[str, Any], marker: str, rows: factories.PrivateRows) -> None:
    """The owner's team (their own alone), a member, a card with its log and a comment: the
    marker in every text field."""
    owner = people["owner"]
    made = rows.add("teamId", record=team(owner, name=f"{marker} team", goal=f"{marker} goal"))
    rows.add(
        "memberId",
        record=member(
            owner, made, name=f"{marker} agent", role=f"{marker} role", instructions=f"{marker} do"
        ),
    )
    work = card(made, prompt=f"{marker} prompt", title=f"{marker} title")
    rows.add("projectId", record=work.project)
    rows.add("cardId", record=work)
    services.comment_add(actor=owner, card=work, body=f"{marker} comment")
