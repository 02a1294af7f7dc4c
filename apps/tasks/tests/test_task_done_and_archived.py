"""Platform's task helpers through call_tool: completeTask (done with a task, whatever its steps)
and archiveTask (put away and back). Per tool a normal call, bad input and a refusal."""

import pytest

from apps.catalogue import registry
from apps.catalogue.dispatch import ToolNotFound
from apps.catalogue.testing import assert_refused_without_its_permission, call, ok, refused
from apps.tasks import schedules
from apps.tasks.models import Task, TaskEvent, TaskRun, TaskStep
from apps.tasks.tests.factories import TaskFactory, TemplateFactory


@pytest.mark.parametrize(
    ("name", "permission"), [("completeTask", "tasks.run"), ("archiveTask", "tasks.edit")]
)
def test_a_role_without_the_permission_is_refused(acme, name, permission):
    spec = registry.get(name)

    assert spec.permission == permission
    assert_refused_without_its_permission(spec)


@pytest.mark.parametrize("name", ["completeTask", "archiveTask"])
def test_viewers_may_not(people, name):
    task = TaskFactory(actor=people["member"])

    with pytest.raises(ToolNotFound):
        call(people["viewer"], name, {"taskId": task.pk})


def test_complete_a_running_task_skips_what_is_not_finished_never_says_it_was_done(people):
    task = TaskFactory(
        actor=people["member"],
        steps=[{"title": "Book the room"}, {"title": "Send the agenda"}, {"title": "Order lunch"}],
    )
    ok(people["member"], "startTask", {"taskId": task.pk})
    first = task.steps.order_by("position").first()
    ok(people["member"], "skipTaskStep", {"taskId": task.pk, "stepId": first.pk})

    answer = ok(people["admin"], "completeTask", {"taskId": task.pk, "note": "Meeting cancelled"})
    got = ok(people["member"], "getTask", {"taskId": task.pk})

    assert answer["task"]["status"] == "completed" and got["finishedAt"]
    assert [step["title"] for step in answer["skipped"]] == ["Send the agenda", "Order lunch"]
    assert got["progress"] == {"done": 3, "total": 3}
    steps = list(TaskStep.objects.filter(task=task).order_by("position"))
    assert [step.status for step in steps] == ["skipped", "skipped", "skipped"]
    assert {step.column.name for step in steps} == {"Done"}
    assert [step.result for step in steps[1:]] == ["Meeting cancelled", "Meeting cancelled"]
    assert TaskRun.objects.get(task=task).status == "completed"
    completed = TaskEvent.objects.filter(task=task, kind="completed").get()
    assert completed.message == "Completed, 2 steps not finished skipped. Meeting cancelled"
    assert TaskEvent.objects.filter(task=task, kind="step_done").count() == 0


def test_complete_a_draft_without_a_run_and_a_scheduled_task_keeps_its_schedule(people):
    draft = TaskFactory(actor=people["member"])
    schedules.schedule_set(actor=people["member"], task=draft, rule="FREQ=WEEKLY;BYDAY=MO")

    answer = ok(people["member"], "completeTask", {"taskId": draft.pk})
    got = ok(people["member"], "getTask", {"taskId": draft.pk})

    assert answer["task"]["status"] == "completed" and len(answer["skipped"]) == 2
    assert got["currentRun"] is None and got["schedule"]["enabled"] is True
    assert not TaskRun.objects.filter(task=draft).exists()


@pytest.mark.parametrize(
    ("state", "said"),
    [
        ("completed", "is completed already; rerunTask runs it again"),
        ("template", "is a template: templates are not run"),
        ("unknown", "Task 999999 was not found"),
    ],
)
def test_complete_refuses_what_it_cannot_complete_and_writes_nothing(people, state, said):
    if state == "template":
        task = TemplateFactory(actor=people["member"])
    else:
        task = TaskFactory(actor=people["member"])
        if state == "completed":
            ok(people["member"], "completeTask", {"taskId": task.pk})
    task_id = 999999 if state == "unknown" else task.pk
    before = TaskEvent.objects.count()

    assert said in refused(people["member"], "completeTask", {"taskId": task_id})
    assert TaskEvent.objects.count() == before


def test_complete_refuses_bad_input(people):
    assert "`taskId`" in refused(people["member"], "completeTask", {"taskId": "the audit"})
    assert "`note`" in refused(people["member"], "completeTask", {"taskId": 1, "note": "x" * 501})


def test_archive_hides_a_task_from_the_list_and_brings_it_back(people):
    task = TaskFactory(actor=people["member"], title="Old launch")
    ok(people["member"], "completeTask", {"taskId": task.pk})

    archived = ok(people["member"], "archiveTask", {"taskId": task.pk})
    listed = [row["id"] for row in ok(people["member"], "listTasks", {"limit": 100})["items"]]
    only_archived = [row["id"] for row in ok(people["member"], "listTasks", {"archived": True})["items"]]

    assert archived["archivedAt"] and task.pk not in listed and only_archived == [task.pk]
    assert ok(people["viewer"], "getTask", {"taskId": task.pk})["archivedAt"] == archived["archivedAt"]
    assert "is archived: archiveTask with archived false" in refused(
        people["member"], "rerunTask", {"taskId": task.pk}
    )

    back = ok(people["member"], "archiveTask", {"taskId": task.pk, "archived": False})

    assert back["archivedAt"] is None
    assert task.pk in [row["id"] for row in ok(people["member"], "listTasks", {"limit": 100})["items"]]
    kinds = list(TaskEvent.objects.filter(task=task).order_by("at", "id").values_list("kind", flat=True))
    assert kinds[-2:] == ["archived", "unarchived"]


def test_an_archived_task_is_neither_started_nor_scheduled(people):
    task = TaskFactory(actor=people["member"])
    ok(people["member"], "archiveTask", {"taskId": task.pk})

    assert "is archived" in refused(people["member"], "startTask", {"taskId": task.pk})
    assert "is archived" in refused(
        people["member"], "updateTask", {"taskId": task.pk, "changes": {"schedule": {"rrule": "FREQ=DAILY"}}}
    )
    assert Task.objects.get(pk=task.pk).status == "draft"


@pytest.mark.parametrize(
    ("state", "said"),
    [
        ("running", "is waiting: complete it (completeTask) or revert it to a draft (revertTaskToDraft)"),
        ("scheduled", "runs on a schedule: disable it first (disableScheduledTask)"),
        ("archived", "is archived already"),
        ("not archived", "is not archived"),
    ],
)
def test_archive_refuses_an_active_or_scheduled_task_and_writes_nothing(people, state, said):
    task = TaskFactory(actor=people["member"], steps=[{"title": "Wait for a person"}])
    arguments = {"taskId": task.pk}
    if state == "running":
        ok(people["member"], "startTask", {"taskId": task.pk})
    elif state == "scheduled":
        schedules.schedule_set(actor=people["member"], task=task, rule="FREQ=DAILY")
    elif state == "archived":
        ok(people["member"], "archiveTask", {"taskId": task.pk})
    else:
        arguments["archived"] = False
    before = (Task.objects.get(pk=task.pk).archived_at, TaskEvent.objects.count())

    assert said in refused(people["member"], "archiveTask", arguments)
    assert (Task.objects.get(pk=task.pk).archived_at, TaskEvent.objects.count()) == before


def test_archive_refuses_bad_input_and_what_the_person_may_not_see(people):
    private = TaskFactory(actor=people["admin"], visibility="private")

    assert "`taskId`" in refused(people["member"], "archiveTask", {"taskId": 0})
    assert "`archived`" in refused(
        people["member"], "archiveTask", {"taskId": private.pk, "archived": "soon"}
    )
    assert f"Task {private.pk} was not found" in refused(
        people["member"], "archiveTask", {"taskId": private.pk}
    )
