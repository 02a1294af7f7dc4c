"""What a week of agent teams found: a Teams admin read another person's team log, cards and
comments, and commented on their cards (the team is its creator's alone, its projects too); a
fired member's pending tool calls still waited for approval, and approving one ran what the
fired member asked for; a paused team went on working: its queued cards started and a turn under
way made its next model and tool calls; a person's data export left out their team's members
(the instructions they wrote) and its log (what the members answered them); a card of another
project given with a project's log answered an empty log instead of saying so."""

import json
from typing import Any

import pytest

from apps.catalogue.testing import confirmed, ok, refused
from apps.core import privacy
from apps.gateway.tests.servers import openai_tool_calls
from apps.teams import running, services
from apps.teams.models import AgentTeam, ProjectMessage
from apps.teams.tests.factories import card, member, team
from apps.teams.tests.scripted import model_api

ELICIT = {"capabilities": {"elicitation": {}}, "elicit": confirmed}


def test_a_teams_admin_does_not_read_or_write_anothers_team_work(people):
    admin, owner = people["admin"], people["member"]
    crew = team(owner, name="Hiring", goal="Shortlist candidates")
    member(owner, crew)
    work = card(crew, prompt="Rank the candidates for the CFO role")
    services.comment_add(actor=owner, card=work, body="Leave out the internal ones")
    # The team itself is hidden from the admin; its log, cards and comments are hidden with it.
    assert "not found" in refused(admin, "getAgentTeamStatus", {"teamId": crew.pk})
    said = refused(admin, "getProjectMessages", {"projectId": work.project_id})
    assert "not found" in said and "CFO" not in said
    said = refused(admin, "addTeamCardComment", {"cardId": work.pk, "comment": "Pick Ann"})
    assert "not found" in said
    assert not work.comments.filter(author=admin).exists()
    # The owner reads it all.
    log = ok(owner, "getProjectMessages", {"projectId": work.project_id})["messages"]
    assert [line["kind"] for line in log] == ["prompt", "comment"]


def test_firing_a_member_withdraws_the_calls_it_left_waiting_for_approval(people):
    admin = people["admin"]
    crew = team(admin, name="Clean-up")
    first = member(admin, crew, name="First")
    member(admin, crew, name="Second")
    work = card(crew)
    waiting = ProjectMessage.objects.create(
        project=work.project,
        card=work,
        kind=ProjectMessage.Kind.APPROVAL,
        member=first,
        tool="deleteContact",
        arguments={"contactId": 1},
        outcome="pending",
        approval=ProjectMessage.Approval.PENDING,
        content="First asked to delete contact 1",
    )
    assert ok(admin, "getAgentTeamStatus", {"teamId": crew.pk})["teams"][0]["pendingApprovals"] == 1
    ok(admin, "fireTeamMember", {"memberId": first.pk}, **ELICIT)
    waiting.refresh_from_db()
    assert waiting.approval == "denied"
    assert ok(admin, "getAgentTeamStatus", {"teamId": crew.pk})["teams"][0]["pendingApprovals"] == 0
    from apps.teams.errors import ApprovalDecided

    with pytest.raises(ApprovalDecided):
        services.approval_decide(actor=admin, message=waiting, approve=True)


def test_a_paused_team_starts_no_card_and_stops_before_its_next_call(people, monkeypatch):
    admin = people["admin"]
    crew = team(admin, name="Runaway")
    member(admin, crew, name="First")
    member(admin, crew, name="Second")
    waiting, worked = card(crew), card(crew)
    ok(admin, "updateAgentTeam", {"teamId": crew.pk, "changes": {"status": "paused"}})
    with model_api() as server:
        assert running.run_card(waiting.pk) == "queued"  # left for the sweeper once resumed
    assert server.requests == []
    # Paused while a member's model call is under way: neither its tool call nor the next member run.
    AgentTeam.objects.filter(pk=crew.pk).update(status="active")
    answer = running._model_call

    def paused_while_the_model_answers(*args: Any) -> Any:
        answered = answer(*args)
        AgentTeam.objects.filter(pk=crew.pk).update(status="paused")  # as updateAgentTeam does
        return answered

    monkeypatch.setattr(running, "_model_call", paused_while_the_model_answers)
    with model_api(lambda body, index: openai_tool_calls(("getAgentTeamStatus", {}))) as server:
        assert running.run_card(worked.pk) == "cancelled"
    worked.refresh_from_db()
    assert "paused" in worked.problem and len(server.requests) == 1
    assert not ProjectMessage.objects.filter(card=worked, kind="tool").exists()


def test_a_persons_export_holds_their_teams_members_and_log_and_erasure_leaves_none(people, acme):
    owner, other = people["member"], people["admin"]
    crew = team(owner, name="Leads", goal="Find leads")
    hand = member(owner, crew, instructions="Only call my own contacts")
    work = card(crew, prompt="Who are our newest leads?")
    ProjectMessage.objects.create(
        project=work.project, card=work, kind="reply", member=hand, content="Ann Lee, who wrote on Monday"
    )
    theirs = card(team(other, name="Theirs"), prompt="The board's plan")
    subject = privacy.Subject(email=owner.email, user=owner, workspace=acme)
    teams_handlers = [handler for handler in privacy.handlers() if handler.label.startswith("teams.")]
    exported = json.dumps([handler.export(subject) for handler in teams_handlers], default=str)
    for text in ("Only call my own contacts", "Ann Lee, who wrote on Monday", "Who are our newest leads?"):
        assert text in exported
    assert "The board's plan" not in exported
    for handler in teams_handlers:
        handler.erase(subject)
    assert not ProjectMessage.objects.filter(project__team=crew).exists()
    assert ProjectMessage.objects.filter(card=theirs).exists()


def test_a_card_of_another_project_is_refused_not_an_empty_log(people):
    owner = people["member"]
    crew = team(owner, name="Two boards")
    first, second = card(crew, prompt="First job"), card(crew, prompt="Second job")
    said = refused(owner, "getProjectMessages", {"projectId": first.project_id, "cardId": second.pk})
    assert "cardId" in said and "Second job" not in said
    lines = ok(owner, "getProjectMessages", {"projectId": first.project_id, "cardId": first.pk})["messages"]
    assert [line["content"] for line in lines] == ["First job"]
