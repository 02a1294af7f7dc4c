"""All 27 Events tools answer over MCP (the Streamable HTTP door, served in-process with a real
personal access token and API key), each with its effect in the database and on the Events page;
the HIGH RISK and DESTRUCTIVE ones run only once the call is confirmed with its token."""

import re

from apps.catalogue.testing import samples, tools_of
from apps.events.models import Attendee, Event
from apps.mcp.testing import Door, pat_and_key

CONFIRMED_FIRST = {"cancelEvent", "commitAttendeeImport", "deleteEvent", "removeEventSession"}


def test_every_events_tool_answers_over_mcp_with_a_real_effect(people, acme_client):
    owner = people["owner"]
    door = Door(pat_and_key("owner@acme.example"))
    door.initialize()
    found = samples()
    names = sorted(spec.name for spec in tools_of("events"))
    answers = {}

    for name in names:
        arguments = found[name](owner).arguments
        result = door.call(name, arguments)["result"]
        if name in CONFIRMED_FIRST:
            assert result["isError"] is True and "Confirmation required" in result["content"][0]["text"]
            token = re.search(r'"confirmationToken": "([^"]+)"', result["content"][0]["text"]).group(1)
            result = door.call(name, {**arguments, "confirmationToken": token})["result"]
        assert result["isError"] is False, (name, result["content"])
        answers[name] = result["structuredContent"]

    assert len(answers) == 27
    created = Event.objects.get(pk=answers["createEvent"]["id"])
    assert (created.name, created.capacity, created.time_zone) == ("Partner summit", 250, "Europe/Lisbon")
    assert answers["commitAttendeeImport"]["created"] == 2
    imported = Attendee.objects.filter(event_id=answers["commitAttendeeImport"]["eventId"])
    assert sorted(imported.values_list("email", flat=True)) == ["alan@example.org", "karen@example.org"]
    assert answers["allocateEventHotel"]["allocated"] is True
    assert answers["planEventAttendeeTravel"]["travel"]["booking"] is None
    acme_client.force_login(owner)
    page = acme_client.get(f"/settings/events/{answers['commitAttendeeImport']['eventId']}/").content.decode()
    assert "alan@example.org" in page and "guests.csv" in page
