"""The 21 HR tools of employees, leave, time and onboarding answer over MCP (the Streamable
HTTP door, in-process, with a real personal access token and API key), each with its effect in
the database and on the HR page; inviteEmployeeToTeam, HIGH RISK, runs only once confirmed."""

import re

from apps.catalogue.testing import samples, tools_of
from apps.hr.models import Employee, LeaveRequest, TimeEntry
from apps.hr.tests.test_hr_tools import MINE
from apps.mcp.testing import Door, pat_and_key


def test_every_tool_answers_over_mcp_with_a_real_effect(people, acme_client):
    owner = people["owner"]
    door = Door(pat_and_key("owner@acme.example"))
    door.initialize()
    found = samples()
    answers = {}

    for name in sorted(spec.name for spec in tools_of("hr") if spec.name in MINE):
        arguments = found[name](owner).arguments
        result = door.call(name, arguments)["result"]
        if name == "inviteEmployeeToTeam":
            assert result["isError"] is True and "Confirmation required" in result["content"][0]["text"]
            token = re.search(r'"confirmationToken": "([^"]+)"', result["content"][0]["text"]).group(1)
            result = door.call(name, {**arguments, "confirmationToken": token})["result"]
        assert result["isError"] is False, (name, result["content"])
        answers[name] = result["structuredContent"]

    assert len(answers) == 21
    created = Employee.objects.get(pk=answers["createEmployee"]["id"])
    assert (created.full_name, created.country, created.region, str(created.fte)) == (
        "Ada Quarrington",
        "DE",
        "BY",
        "0.800",
    )
    assert answers["updateEmployee"]["restricted"]["payCurrency"] == "EUR"
    assert LeaveRequest.objects.get(pk=answers["approveLeaveRequest"]["id"]).status == "approved"
    assert LeaveRequest.objects.get(pk=answers["denyLeaveRequest"]["id"]).status == "denied"
    assert TimeEntry.objects.get(pk=answers["clockOut"]["entry"]["id"]).clock_out is not None
    assert (
        Employee.objects.get(pk=answers["getEmployee"]["id"]).full_name == answers["getEmployee"]["fullName"]
    )
    assert answers["openHumanResources"]["url"].endswith("/settings/hr/")
    assert answers["toggleOnboardingItem"]["done"] is True
    acme_client.force_login(owner)
    page = acme_client.get("/settings/hr/").content.decode()
    assert "Ada Quarrington" in page
