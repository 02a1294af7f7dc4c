"""Scheduled tasks: RFC 5545 rules, the tools, and the beat sweeper run for real (its Celery
task, over every workspace)."""

from datetime import datetime, timedelta

import pytest
from django.db import connection
from django.utils import timezone
from django_tenants.utils import schema_context

from apps.catalogue.testing import confirmed, ok, person_without, refused
from apps.tasks import schedules
from apps.tasks.models import ScheduledRun, ScheduledTask, Task
from apps.tasks.tasks import run_due_scheduled_tasks
from apps.tasks.tests.factories import TaskFactory
from apps.tasks.tests.samples import WEEKLY


def test_a_new_task_scheduled_in_a_time_zone(people):
    task = ok(
        people["member"],
        "createTask",
        {"title": "Weekly report", "steps": [{"title": "Remind", "kind": "notify"}]},
    )
    answer = ok(
        people["member"],
        "updateTask",
        {
            "taskId": task["id"],
            "changes": {
                "schedule": {
                    "rrule": "FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;BYMINUTE=0",
                    "startsAt": "2031-03-01T00:00:00",
                    "timeZone": "Europe/Paris",
                }
            },
        },
    )

    schedule = answer["task"]["schedule"]
    assert (schedule["enabled"], schedule["timeZone"], schedule["rrule"]) == (
        True,
        "Europe/Paris",
        "FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;BYMINUTE=0",
    )
    # 9:00 in Paris: 08:00 UTC in winter, 07:00 UTC once summer time starts (30 March 2031).
    assert schedule["upcoming"][:5] == [
        "2031-03-03T08:00:00Z",
        "2031-03-10T08:00:00Z",
        "2031-03-17T08:00:00Z",
        "2031-03-24T08:00:00Z",
        "2031-03-31T07:00:00Z",
    ]


@pytest.mark.parametrize(
    ("schedule", "expected"),
    [
        ({"rrule": "every monday"}, "is not NAME=VALUE"),
        ({"rrule": "FREQ=DAILY;BYDAY=XX"}, "does not parse as an RFC 5545 rule"),
        ({"rrule": "FREQ=MINUTELY;INTERVAL=5"}, "FREQ=MINUTELY is not allowed"),
        ({"rrule": "FREQ=DAILY;COUNT=2", "startsAt": "2001-01-01T00:00:00Z"}, "no occurrence"),
        ({"rrule": "FREQ=HOURLY;BYMINUTE=0,10"}, "at most every 15 minutes"),
        ({"rrule": "DTSTART:20300101T000000Z\nRRULE:FREQ=DAILY"}, "one RRULE value"),
        ({"rrule": "FREQ=DAILY", "timeZone": "Mars/Olympus"}, "is not a time zone"),
        ({"rrule": "FREQ=DAILY", "startsAt": "tomorrow"}, "`changes.schedule.startsAt`"),
    ],
)
def test_a_rule_that_does_not_parse_is_refused_and_nothing_is_written(people, schedule, expected):
    task = TaskFactory(actor=people["member"], title="x")
    message = refused(
        people["member"], "updateTask", {"taskId": task.pk, "changes": {"title": "y", "schedule": schedule}}
    )

    assert expected in message, message
    assert Task.objects.get(pk=task.pk).title == "x" and not ScheduledTask.objects.exists()


def test_update_task_sets_a_new_rule(people):
    task = TaskFactory(actor=people["member"])
    schedules.schedule_set(actor=people["member"], task=task, rule=WEEKLY)

    answer = ok(
        people["member"],
        "updateTask",
        {"taskId": task.pk, "changes": {"schedule": {"rrule": "FREQ=MONTHLY;BYMONTHDAY=1;BYHOUR=6"}}},
    )

    assert answer["changed"] == ["schedule"]
    assert answer["task"]["schedule"]["rrule"] == "FREQ=MONTHLY;BYMONTHDAY=1;BYHOUR=6"
    assert ScheduledTask.objects.count() == 1


def test_list_get_enable_disable_scheduled_tasks(people):
    task = TaskFactory(actor=people["member"], title="Backups")
    schedule = schedules.schedule_set(actor=people["member"], task=task, rule=WEEKLY)

    listed = ok(people["viewer"], "listScheduledTasks")
    got = ok(people["viewer"], "getScheduledTask", {"scheduledTaskId": schedule.pk})
    disabled = ok(people["member"], "disableScheduledTask", {"scheduledTaskId": schedule.pk})
    only_disabled = ok(people["member"], "listScheduledTasks", {"enabled": False})
    enabled = ok(people["member"], "enableScheduledTask", {"scheduledTaskId": schedule.pk})

    assert [item["task"]["title"] for item in listed["items"]] == ["Backups"]
    assert got["createdBy"]["email"] == "member@acme.example" and len(got["upcoming"]) == 5
    assert disabled["enabled"] is False and disabled["upcoming"] == []
    assert only_disabled["total"] == 1
    assert enabled["enabled"] is True and enabled["nextRunAt"] > timezone.now().isoformat()[:10]


@pytest.mark.parametrize(
    "name",
    [
        "getScheduledTask",
        "getScheduledTaskHistory",
        "enableScheduledTask",
        "disableScheduledTask",
        "deleteScheduledTask",
    ],
)
def test_schedule_tools_refuse_unknown_ids_and_hidden_tasks(people, name):
    private = TaskFactory(actor=people["admin"], visibility="private")
    schedule = schedules.schedule_set(actor=people["admin"], task=private, rule=WEEKLY)
    # Every tasks permission but the one that sees private tasks.
    outsider = person_without("tasks.admin", email="outsider@acme.example")

    asked = {"capabilities": {"elicitation": {}}, "elicit": confirmed}  # deleteScheduledTask asks first

    assert f"Scheduled task {schedule.pk} was not found" in refused(
        outsider, name, {"scheduledTaskId": schedule.pk}, **asked
    )
    assert "`scheduledTaskId`" in refused(outsider, name, {"scheduledTaskId": "weekly"})


def test_delete_scheduled_task_is_destructive_and_asks_first(people):
    task = TaskFactory(actor=people["member"])
    schedule = schedules.schedule_set(actor=people["member"], task=task, rule=WEEKLY)

    first = refused(people["admin"], "deleteScheduledTask", {"scheduledTaskId": schedule.pk})
    assert "DESTRUCTIVE" in first and ScheduledTask.objects.exists()
    answer = ok(
        people["admin"],
        "deleteScheduledTask",
        {"scheduledTaskId": schedule.pk},
        capabilities={"elicitation": {}},
        elicit=confirmed,
    )

    assert answer["task"] == task.pk
    assert not ScheduledTask.objects.exists()
    assert Task.objects.filter(pk=task.pk).exists()


# --- the sweeper ----------------------------------------------------------------------------------


def _due(schedule: ScheduledTask, when: datetime) -> None:
    ScheduledTask.objects.filter(pk=schedule.pk).update(next_run_at=when)


def test_the_beat_task_runs_due_schedules_in_every_workspace(people, globex):
    from apps.accounts.models import User

    past = timezone.now() - timedelta(minutes=1)
    due = schedules.schedule_set(
        actor=people["member"],
        task=TaskFactory(
            actor=people["member"], title="Acme digest", steps=[{"title": "Tell", "kind": "notify"}]
        ),
        rule=WEEKLY,
    )
    later = schedules.schedule_set(
        actor=people["member"], task=TaskFactory(actor=people["member"], title="Not yet"), rule=WEEKLY
    )
    _due(due, past)
    with schema_context("globex"):
        owner = User.objects.get(email="owner@globex.example")
        theirs = schedules.schedule_set(
            actor=owner, task=TaskFactory(actor=owner, title="Globex digest"), rule=WEEKLY
        )
        _due(theirs, past)

    failures = run_due_scheduled_tasks.apply().get()

    assert failures == 0
    assert connection.schema_name == "acme"
    [run] = ScheduledRun.objects.filter(schedule=due)
    started = run.task
    assert (run.status, run.due_at, run.missed) == ("started", past, 0)
    assert started.title.startswith("Acme digest · ") and started.copied_from_id == due.task_id
    assert started.status == "completed" and started.owner == people["member"]
    due.refresh_from_db()
    assert due.run_count == 1 and due.next_run_at > timezone.now()
    assert not ScheduledRun.objects.filter(schedule=later).exists()
    with schema_context("globex"):
        [globex_run] = ScheduledRun.objects.filter(schedule_id=theirs.pk)
        assert globex_run.task.title.startswith("Globex digest · ")
        assert globex_run.task.status == "waiting"


def test_missed_occurrences_are_counted_not_each_run_late(people):
    start = timezone.now() - timedelta(hours=9, minutes=30)
    schedule = schedules.schedule_set(
        actor=people["member"], task=TaskFactory(actor=people["member"]), rule="FREQ=HOURLY", starts_at=start
    )
    # The service stopped after the run due 6 hours in: three more came and went since.
    _due(schedule, start + timedelta(hours=6))

    assert schedules.run_due() == 1

    run = ScheduledRun.objects.get()
    assert run.missed == 3
    schedule.refresh_from_db()
    assert timezone.now() < schedule.next_run_at <= timezone.now() + timedelta(minutes=31)
    assert schedules.run_due() == 0  # nothing is due twice


def test_a_schedule_whose_person_lost_the_right_is_disabled_with_the_reason(people):
    schedule = schedules.schedule_set(
        actor=people["member"], task=TaskFactory(actor=people["member"]), rule=WEEKLY
    )
    people["member"].is_active = False
    people["member"].save()
    _due(schedule, timezone.now() - timedelta(minutes=1))

    schedules.run_due()

    run = ScheduledRun.objects.get()
    schedule.refresh_from_db()
    assert run.status == "failed" and "no longer in the workspace" in run.message
    assert schedule.enabled is False and schedule.disabled_reason == run.message
    history = ok(people["admin"], "getScheduledTaskHistory", {"scheduledTaskId": schedule.pk})
    assert history["items"][0]["status"] == "failed"


def test_a_run_that_fails_is_recorded_and_the_others_still_run(people):
    broken = schedules.schedule_set(
        actor=people["member"], task=TaskFactory(actor=people["member"], steps=[]), rule=WEEKLY
    )
    fine = schedules.schedule_set(
        actor=people["member"], task=TaskFactory(actor=people["member"]), rule=WEEKLY
    )
    _due(broken, timezone.now() - timedelta(minutes=2))
    _due(fine, timezone.now() - timedelta(minutes=1))

    assert schedules.run_due() == 1

    failed = ScheduledRun.objects.get(schedule=broken)
    assert failed.status == "failed" and "no steps" in failed.message
    assert not Task.objects.filter(copied_from=broken.task).exists()  # the failed run left nothing half-made
    assert ScheduledRun.objects.get(schedule=fine).status == "started"
    broken.refresh_from_db()
    assert broken.next_run_at > timezone.now()


def test_a_rule_that_ends_disables_its_schedule(people):
    start = (timezone.now() + timedelta(hours=1)).replace(microsecond=0)
    schedule = schedules.schedule_set(
        actor=people["member"],
        task=TaskFactory(actor=people["member"]),
        rule="FREQ=DAILY;COUNT=1",
        starts_at=start,
    )
    assert schedule.next_run_at == start

    schedules.run_due(now=start + timedelta(minutes=1))

    schedule.refresh_from_db()
    assert (schedule.enabled, schedule.next_run_at) == (False, None)
    assert schedule.disabled_reason == "the rule has no more occurrences"
    assert "no more occurrences" in refused(
        people["member"], "enableScheduledTask", {"scheduledTaskId": schedule.pk}
    )


@pytest.mark.parametrize("minute", [0, 5, 7, 30, 59])
def test_a_rule_too_frequent_anywhere_in_its_pattern_is_refused_whatever_the_time(minute):
    from zoneinfo import ZoneInfo

    from apps.core.errors import ValidationFailed

    start = datetime(2031, 3, 3, 17, minute, tzinfo=ZoneInfo("UTC"))
    with pytest.raises(ValidationFailed, match="at most every 15 minutes"):
        schedules.parse_rule("FREQ=HOURLY;BYMINUTE=0,10", starts_at=start, zone=ZoneInfo("UTC"))
    assert schedules.parse_rule("FREQ=HOURLY;BYMINUTE=0,30", starts_at=start, zone=ZoneInfo("UTC"))
