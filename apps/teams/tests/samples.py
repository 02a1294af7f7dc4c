"""A normal call of every Teams tool (and Platform's addTeamCardComment and
getAvailableAgentToolkits), for the catalogue's contract test. sendTeamPrompt's team has a member
with no kits (so no confirmation) and the scripted model server on loopback configured."""

import uuid
from typing import Any

from apps.catalogue.testing import Sample, sample
from apps.teams.tests.factories import card, member, team
from apps.teams.tests.scripted import model_api


def _team(actor: Any) -> tuple[Any, str]:
    marker = f"Crew{uuid.uuid4().hex[:8]}"
    return team(actor, name=f"{marker} team", goal=f"{marker} goal"), marker


@sample("createAgentTeam")
def create_agent_team(actor: Any) -> Sample:
    return Sample({"team": {"name": f"Crew {uuid.uuid4().hex[:8]}", "budgetMicroUsd": 500_000}})


@sample("updateAgentTeam")
def update_agent_team(actor: Any) -> Sample:
    made, marker = _team(actor)
    return Sample({"teamId": made.pk, "changes": {"budgetMicroUsd": 2_000_000}}, private=[marker])


@sample("getAgentTeamStatus")
def get_agent_team_status(actor: Any) -> Sample:
    made, marker = _team(actor)
    return Sample({"teamId": made.pk}, private=[marker])


@sample("hireTeamMember")
def hire_team_member(actor: Any) -> Sample:
    made, marker = _team(actor)
    return Sample({"teamId": made.pk, "name": "Ada", "role": "researcher", "kits": []}, private=[marker])


@sample("fireTeamMember")
def fire_team_member(actor: Any) -> Sample:
    made, marker = _team(actor)
    return Sample({"memberId": member(actor, made, name=f"{marker} agent").pk}, private=[marker])


@sample("reassignMemberKits")
def reassign_member_kits(actor: Any) -> Sample:
    made, marker = _team(actor)
    return Sample({"memberId": member(actor, made, name=f"{marker} agent").pk, "kits": []}, private=[marker])


@sample("getTeamProjects")
def get_team_projects(actor: Any) -> Sample:
    made, marker = _team(actor)
    card(made, prompt=f"{marker} prompt")
    return Sample({"teamId": made.pk}, private=[marker])


@sample("getProjectMessages")
def get_project_messages(actor: Any) -> Sample:
    made, marker = _team(actor)
    return Sample({"projectId": card(made, prompt=f"{marker} prompt").project_id}, private=[marker])


@sample("sendTeamPrompt")
def send_team_prompt(actor: Any) -> Sample:
    made, marker = _team(actor)
    member(actor, made, name=f"{marker} agent")
    return Sample({"teamId": made.pk, "prompt": "Summarise the week"}, private=[marker], around=model_api)


@sample("addTeamCardComment")
def add_team_card_comment(actor: Any) -> Sample:
    made, marker = _team(actor)
    return Sample(
        {"cardId": card(made, prompt=f"{marker} prompt").pk, "comment": "Start with Acme"}, private=[marker]
    )


@sample("getAvailableAgentToolkits")
def get_available_agent_toolkits(actor: Any) -> Sample:
    return Sample({})
