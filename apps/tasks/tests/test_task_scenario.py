"""What an agent would really do with tasks, and what people see of it in the settings pages."""

from apps.catalogue.testing import ok
from apps.notifications.models import Notification
from apps.tasks import schedules
from apps.tasks.models import TaskEvent
from apps.tasks.tests.factories import TaskFactory
from apps.tasks.tests.samples import WEEKLY


def test_from_a_template_move_a_step_complete_it_and_the_watcher_hears_of_it(people):
    """The owner keeps an onboarding template. A member's agent creates a task from it and starts
    it; the admin watches the task. The agent moves the first step to "In progress", ticks its
    checklist, completes it by moving it to "Done"; the admin is notified, and the run goes on."""
    agent_user, watcher = people["member"], people["admin"]
    template = ok(
        people["owner"],
        "createTask",
        {
            "title": "Onboard a new customer",
            "instructions": "Keep the customer informed at every step.",
            "steps": [
                {"title": "Set up the account", "checklist": ["create login", "send welcome pack"]},
                {"title": "Kick-off call", "assigneeEmail": agent_user.email},
            ],
        },
    )
    template = ok(
        people["owner"], "saveTaskAsTemplate", {"taskId": template["id"], "title": "Customer onboarding"}
    )

    found = ok(agent_user, "listTasks", {"kind": "templates", "query": "onboarding"})
    task = ok(
        agent_user,
        "createTaskFromTemplate",
        {"templateId": found["items"][0]["id"], "title": "Onboard Initech"},
    )
    ok(watcher, "createWatcher", {"entityType": "task", "entityId": task["id"]})
    task = ok(agent_user, "startTask", {"taskId": task["id"]})
    first = task["columns"][0]["steps"][0]
    ok(
        agent_user,
        "moveTaskStepColumn",
        {"taskId": task["id"], "stepId": first["id"], "column": "In progress"},
    )
    detail = ok(agent_user, "getTaskStepDetail", {"taskId": task["id"], "stepId": first["id"]})
    ok(
        agent_user,
        "updateTaskStepChecklist",
        {
            "taskId": task["id"],
            "stepId": first["id"],
            "check": [item["id"] for item in detail["checklistItems"]],
        },
    )
    board = ok(
        agent_user, "moveTaskStepColumn", {"taskId": task["id"], "stepId": first["id"], "column": "Done"}
    )

    assert template["isTemplate"] is True and task["template"]["id"] == template["id"]
    assert [c["name"] for c in board["columns"]] == ["To do", "In progress", "Done"]
    assert [s["title"] for s in board["columns"][2]["steps"]] == ["Set up the account"]
    assert board["steps"][1]["status"] == "waiting"
    assert board["waitingFor"] == (
        "Step 2 “Kick-off call”: Waiting for member@acme.example to do it and move it to “Done”."
    )
    news = ok(watcher, "searchNotifications", {"entityType": "task", "entityId": task["id"]})
    bodies = [item["body"] for item in news["items"]]
    assert "Set up the account: done" in bodies
    completed = next(item for item in news["items"] if item["body"] == "Set up the account: done")
    assert completed["title"] == "Task “Onboard Initech” changed"
    assert completed["sender"]["email"] == agent_user.email
    assert completed["entity"] == {"type": "task", "id": task["id"], "title": "Onboard Initech"}
    # The person who did it is not told of their own change; the watcher is.
    assert not Notification.objects.filter(recipient=agent_user, kind="change", object_id=task["id"]).exists()


def test_the_task_pages_show_what_the_tools_did(acme_client, people):
    task = TaskFactory(
        actor=people["member"],
        title="Spring clean",
        steps=[{"title": "Sort the files"}, {"title": "Tell", "kind": "notify"}],
    )
    ok(people["member"], "startTask", {"taskId": task.pk})
    ok(people["member"], "steerTask", {"taskId": task.pk, "guidance": "Shred the old drafts."})
    scheduled = TaskFactory(actor=people["member"], title="Weekly tidy")
    schedules.schedule_set(actor=people["member"], task=scheduled, rule=WEEKLY)
    acme_client.force_login(people["viewer"])

    listing = acme_client.get("/settings/tasks/").content.decode()
    board = acme_client.get(f"/settings/tasks/{task.pk}/").content.decode()
    scheduled_page = acme_client.get("/settings/tasks/?show=scheduled").content.decode()

    assert "Spring clean" in listing and 'href="/settings/tasks/"' in listing
    assert "Sort the files" in board and "Shred the old drafts." in board
    assert "Waiting for a person to do it" in board
    assert TaskEvent.objects.filter(task=task, kind="steered").exists()
    assert "Weekly tidy" in scheduled_page and WEEKLY in scheduled_page


def test_a_private_task_page_is_not_found_for_others(acme_client, people):
    task = TaskFactory(actor=people["admin"], visibility="private", title="Salary review")
    acme_client.force_login(people["member"])

    assert acme_client.get(f"/settings/tasks/{task.pk}/").status_code == 404
    assert "Salary review" not in acme_client.get("/settings/tasks/").content.decode()
