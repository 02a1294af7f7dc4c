"""What a week of task work found: a repeat rule that never moves on (INTERVAL=0) tied up a
worker, a private task's steps told their title to people who may not see it, a copy named its
template after that was made private, and scheduled copies all kept the first one's due date."""

import json
from datetime import UTC, datetime

import pytest

from apps.catalogue.testing import ok, refused
from apps.notifications.models import Notification
from apps.tasks import schedules
from apps.tasks.models import Task


@pytest.mark.parametrize("interval", ["0", "-1", "1001", "x"])
def test_a_repeat_rule_that_never_moves_on_is_refused_by_its_field(people, interval):
    member = people["member"]
    task = ok(member, "createTask", {"title": "Standup notes"})
    schedule = {"rrule": f"FREQ=DAILY;INTERVAL={interval}", "timeZone": "UTC"}
    said = refused(member, "updateTask", {"taskId": task["id"], "changes": {"schedule": schedule}})
    assert "schedule.rrule" in said and (
        "INTERVAL must be a whole number from 1 to 1000" in said or "is not" in said
    )


def test_a_private_task_s_steps_tell_nobody_who_may_not_see_it(people):
    admin, member, viewer = people["admin"], people["member"], people["viewer"]
    steps = [
        {"title": "Draft the list of names", "assigneeEmail": member.email},
        {
            "title": "Secret: board votes Friday",
            "kind": "notify",
            "instructions": "Offer is 40M",
            "notifyEmails": [viewer.email],
        },
    ]
    task = ok(admin, "createTask", {"title": "Layoff plan Q1", "steps": steps})
    # Made private after its steps were written: when it runs, nobody who may not see it is told.
    ok(admin, "shareTask", {"taskId": task["id"], "visibility": "private"})
    ok(admin, "startTask", {"taskId": task["id"]})
    told = list(Notification.objects.filter(recipient__in=[member, viewer]).values_list("title", "body"))
    assert not [
        n for n in told if "Layoff" in " ".join(n) or "Secret" in " ".join(n) or "40M" in " ".join(n)
    ], told
    # And a step of a private task is not given to, nor tells, someone who may not see it.
    for step in (
        {"title": "x", "assigneeEmail": member.email},
        {"title": "y", "kind": "notify", "notifyEmails": [viewer.email]},
    ):
        said = refused(admin, "addTaskStep", {"taskId": task["id"], "step": step})
        assert "may not see this task" in said and "shareTask" in said


def test_a_copy_does_not_name_a_template_made_private_since(people):
    owner, member, viewer = people["owner"], people["member"], people["viewer"]
    template = ok(owner, "createTask", {"title": "Hiring loop"})
    template = ok(owner, "saveTaskAsTemplate", {"taskId": template["id"], "title": "Hiring loop template"})
    mine = ok(member, "createTaskFromTemplate", {"templateId": template["id"], "title": "Hire a designer"})
    assert ok(viewer, "getTask", {"taskId": mine["id"]})["template"]["id"] == template["id"]
    ok(owner, "updateTask", {"taskId": template["id"], "changes": {"title": "Fire Bob quietly"}})
    ok(owner, "shareTask", {"taskId": template["id"], "visibility": "private"})
    seen = ok(viewer, "getTask", {"taskId": mine["id"]})
    assert seen["template"] is None and seen["copiedFrom"] is None and "Fire Bob" not in json.dumps(seen)
    assert ok(owner, "getTask", {"taskId": mine["id"]})["template"]["title"] == "Fire Bob quietly"


def test_each_scheduled_copy_is_due_as_far_after_its_occurrence(people):
    member = people["member"]
    task = ok(
        member,
        "createTask",
        {"title": "Send timesheet", "dueAt": "2027-03-01T17:00:00Z", "steps": [{"title": "Send"}]},
    )
    schedule = {
        "rrule": "FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;BYMINUTE=0",
        "startsAt": "2027-03-01T09:00",
        "timeZone": "UTC",
    }
    ok(member, "updateTask", {"taskId": task["id"], "changes": {"schedule": schedule}})
    # The sweeper's runs just after each occurrence.
    schedules.run_due(datetime(2027, 3, 1, 9, 0, 30, tzinfo=UTC))
    schedules.run_due(datetime(2027, 3, 8, 9, 0, 30, tzinfo=UTC))
    dues = list(
        Task.objects.filter(copied_from_id=task["id"]).order_by("pk").values_list("due_at", flat=True)
    )
    assert dues == [datetime(2027, 3, 1, 17, 0, tzinfo=UTC), datetime(2027, 3, 8, 17, 0, tzinfo=UTC)]
