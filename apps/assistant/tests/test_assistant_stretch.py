"""The Personal Assistant as its person lives it, quickly: a goal planned into time blocks (nothing
written), approved (the events written once), seen on Settings → Assistant; another person's
goal never listed, read or named; a viewer reads the page and plans nothing."""

import pytest

from apps.assistant.tests.factories import goal
from apps.calendars.models import Event
from apps.catalogue.dispatch import ToolNotFound
from apps.catalogue.testing import call, confirmed, ok, refused

ELICIT = {"capabilities": {"elicitation": {}}, "elicit": confirmed}


def test_a_goal_planned_approved_and_seen(people, acme_client):
    member, owner, viewer = people["member"], people["owner"], people["viewer"]
    made = goal(member, objective="Quarterly report out", tasks=2)
    hidden = goal(owner, objective="Owner's reorganisation", tasks=1)
    before = Event.objects.count()

    planned = ok(member, "paAdjustSchedule", {"goalId": made.pk})
    assert planned["blocks"] and Event.objects.count() == before  # a proposal writes nothing
    asked = refused(member, "paApproveAndSchedule", {"goalId": made.pk, "proposalId": planned["id"]})
    assert "confirm" in asked.lower() and Event.objects.count() == before
    approved = ok(member, "paApproveAndSchedule", {"goalId": made.pk, "proposalId": planned["id"]}, **ELICIT)
    assert approved["eventsWritten"] == len(planned["blocks"]) == Event.objects.count() - before
    goals = {row["objective"]: row["status"] for row in ok(member, "paListGoals", {})["items"]}
    assert goals == {"Quarterly report out": "scheduled"}

    assert "reorganisation" not in refused(member, "paGetGoal", {"goalId": hidden.pk})
    assert "reorganisation" not in refused(member, "paAdjustSchedule", {"goalId": hidden.pk})
    acme_client.force_login(member)
    page = acme_client.get("/settings/assistant/").content.decode()
    assert "Quarterly report out" in page and "reorganisation" not in page

    acme_client.force_login(viewer)
    seen = acme_client.get("/settings/assistant/")
    assert seen.status_code == 200 and "Quarterly report out" not in seen.content.decode()
    with pytest.raises(ToolNotFound):
        call(viewer, "paAdjustSchedule", {"goalId": made.pk})
