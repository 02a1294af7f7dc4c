"""A small project worked by a team of two, as its creator lives it through the tools and
Settings → Agent teams: a researcher who may only read and a writer who may write, two prompts on
one project with a comment between them, the reader's write refused, the spend shown, the writer
fired; another person never sees the team."""

from typing import Any

from apps.apikeys.templatetags.apikeys import usd
from apps.catalogue import audit
from apps.catalogue.models import ToolCall
from apps.catalogue.testing import confirmed, ok, refused
from apps.gateway.tests.servers import openai_text, openai_tool_calls
from apps.tasks.models import Task
from apps.teams import running
from apps.teams.tests.scripted import model_api
from apps.teams.tests.test_teams import _kit_pair

ELICIT = {"capabilities": {"elicitation": {}}, "elicit": confirmed}


def test_a_team_of_two_works_a_small_project(people, acme_client):
    admin, other = people["admin"], people["member"]
    write, read = _kit_pair("createTask")
    kits = {kit["key"] for kit in ok(admin, "getAvailableAgentToolkits", {})["kits"]}
    assert {write, read} <= kits

    crew = ok(
        admin,
        "createAgentTeam",
        {"team": {"name": "Launch crew", "goal": "Prepare the launch", "budgetMicroUsd": 2_000_000}},
    )
    researcher = ok(
        admin, "hireTeamMember", {"teamId": crew["id"], "name": "Rae", "role": "researcher", "kits": [read]}
    )
    writer = ok(
        admin, "hireTeamMember", {"teamId": crew["id"], "name": "Wes", "role": "writer", "kits": [write]}
    )
    assert researcher["lead"] is True and writer["lead"] is False
    status = ok(admin, "getAgentTeamStatus", {"teamId": crew["id"]})["teams"][0]
    assert [m["name"] for m in status["members"]] == ["Rae", "Wes"] and status["writes"] is True

    def script(body: dict[str, Any], index: int) -> dict[str, Any]:
        system = body["messages"][0]["content"]
        who = "Rae" if "You are Rae" in system else "Wes"
        if body["messages"][-1]["role"] == "tool":
            return openai_text(f"{who}: done.", usage=(1_000, 200))
        return openai_tool_calls(("createTask", {"title": f"Launch checklist by {who}"}), usage=(1_000, 200))

    # The first prompt: a write needs the creator's confirmation, the team holding a write kit.
    with model_api(script):
        asked = refused(admin, "sendTeamPrompt", {"teamId": crew["id"], "prompt": "Draft the checklist"})
        assert "confirm" in asked.lower()
        sent = ok(admin, "sendTeamPrompt", {"teamId": crew["id"], "prompt": "Draft the checklist"}, **ELICIT)
        assert running.run_card(sent["cardId"]) == "done"
    audit.buffer.flush()
    assert not Task.objects.filter(title="Launch checklist by Rae").exists()  # a reader cannot write
    assert Task.objects.filter(title="Launch checklist by Wes").count() == 1
    lines = ok(admin, "getProjectMessages", {"projectId": sent["projectId"]})["messages"]
    assert any(line["kind"] == "refused" and line["member"] == "Rae" for line in lines)
    assert ToolCall.objects.filter(
        credential=f"team-member:{writer['id']}", tool="createTask", outcome="ok"
    ).exists()

    # A comment on the card, then a second prompt on the same project: the comment reaches it.
    ok(admin, "addTeamCardComment", {"cardId": sent["cardId"], "comment": "Keep it to five items"})
    with model_api(script) as server:
        again = ok(
            admin,
            "sendTeamPrompt",
            {"teamId": crew["id"], "prompt": "Now the press list", "projectId": sent["projectId"]},
            **ELICIT,
        )
        assert running.run_card(again["cardId"]) == "done"
    assert any("Now the press list" in str(request["messages"]) for request in server.requests)
    projects = ok(admin, "getTeamProjects", {"teamId": crew["id"]})["items"]
    assert len(projects) == 1 and [card["status"] for card in projects[0]["cards"]] == ["done", "done"]

    # The spend is shown, in the status and on the page.
    status = ok(admin, "getAgentTeamStatus", {"teamId": crew["id"]})["teams"][0]
    assert status["spentMicroUsd"] > 0 and status["openCards"] == 0
    acme_client.force_login(admin)
    page = acme_client.get("/settings/agent-teams/").content.decode()
    assert "Launch crew" in page and "Rae" in page and "Wes" in page and "Draft the checklist" in page
    assert f"{usd(status['spentMicroUsd'])} of $2.00" in page

    # The writer is fired: its kits go, and the team can no longer write.
    fired = ok(admin, "fireTeamMember", {"memberId": writer["id"]}, **ELICIT)
    assert fired["member"]["status"] == "fired" and fired["member"]["kits"] == []
    status = ok(admin, "getAgentTeamStatus", {"teamId": crew["id"]})["teams"][0]
    assert status["writes"] is False
    assert "fired" in refused(admin, "reassignMemberKits", {"memberId": writer["id"], "kits": [write]})
    page = acme_client.get("/settings/agent-teams/").content.decode()
    row = page[page.index(f'id="team-{crew["id"]}"') :]
    assert "Rae (researcher)" in row[: row.index("</tr>")] and "Wes (writer)" not in row[: row.index("</tr>")]

    # Another person never lists, reads or prompts the team, nor reads its name in a refusal.
    assert crew["id"] not in [row["id"] for row in ok(other, "getAgentTeamStatus", {})["teams"]]
    for name, arguments in (
        ("getAgentTeamStatus", {"teamId": crew["id"]}),
        ("getTeamProjects", {"teamId": crew["id"]}),
        ("getProjectMessages", {"projectId": sent["projectId"]}),
        ("addTeamCardComment", {"cardId": sent["cardId"], "comment": "hi"}),
    ):
        assert "Launch crew" not in refused(other, name, arguments)
    acme_client.force_login(people["viewer"])
    assert "Launch crew" not in acme_client.get("/settings/agent-teams/").content.decode()
