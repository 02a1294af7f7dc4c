"""Writing tasks through call_tool: tasks, steps, the board, checklists, links, sharing, copies and
templates. Per tool a normal call, a bad input and a refusal."""

import pytest
from django_tenants.utils import schema_context

from apps.catalogue import registry
from apps.catalogue.dispatch import ToolNotFound
from apps.catalogue.testing import (
    assert_refused_without_its_permission,
    call,
    ok,
    person_with,
    refused,
)
from apps.contacts.tests.factories import ContactFactory
from apps.notifications.models import Watcher
from apps.tasks import runner
from apps.tasks.models import ChecklistItem, Task, TaskEvent, TaskShare, TaskStep, TaskStepLink
from apps.tasks.tests.factories import TaskFactory, TemplateFactory

TOOLS = {
    "createTask": "tasks.create",
    "getTask": "tasks.view",
    "listTasks": "tasks.view",
    "updateTask": "tasks.edit",
    "updateTaskInstructions": "tasks.edit",
    "shareTask": "tasks.share",
    "saveTaskAsTemplate": "tasks.create",
    "createTaskFromTemplate": "tasks.create",
    "copyTaskToNewDraft": "tasks.create",
    "revertTaskToDraft": "tasks.edit",
    "startTask": "tasks.run",
    "pauseTask": "tasks.run",
    "resumeTask": "tasks.run",
    "steerTask": "tasks.run",
    "rerunTask": "tasks.run",
    "skipTaskStep": "tasks.run",
    "getTaskSteps": "tasks.view",
    "getTaskStepDetail": "tasks.view",
    "addTaskStep": "tasks.edit",
    "removeTaskStep": "tasks.edit",
    "reorderTaskSteps": "tasks.edit",
    "moveTaskStepColumn": "tasks.edit",
    "updateTaskStepCard": "tasks.edit",
    "updateTaskStepChecklist": "tasks.edit",
    "linkEntityToTaskStep": "tasks.edit",
    "listScheduledTasks": "tasks.view",
    "getScheduledTask": "tasks.view",
    "getScheduledTaskHistory": "tasks.view",
    "enableScheduledTask": "tasks.schedule",
    "disableScheduledTask": "tasks.schedule",
    "deleteScheduledTask": "tasks.delete",
}


@pytest.mark.parametrize(("name", "permission"), sorted(TOOLS.items()))
def test_a_role_without_the_permission_is_refused(acme, name, permission):
    spec = registry.get(name)

    assert spec.permission == permission
    assert_refused_without_its_permission(spec)


def test_viewers_see_tasks_but_change_nothing(people):
    task = TaskFactory(actor=people["member"])

    assert ok(people["viewer"], "getTask", {"taskId": task.pk})["yourAccess"] == "view"
    for name in ("createTask", "updateTask", "startTask", "moveTaskStepColumn", "shareTask"):
        with pytest.raises(ToolNotFound):
            call(people["viewer"], name, {})


# --- createTask, getTask, listTasks --------------------------------------------------------------------


def test_create_task_with_steps_on_a_board(people):
    answer = ok(
        people["member"],
        "createTask",
        {
            "title": "Quarterly supplier review",
            "instructions": "Be polite, be firm.",
            "priority": "high",
            "dueAt": "2031-03-31T17:00:00+02:00",
            "columns": ["Backlog", "Doing", "Review", "Finished"],
            "steps": [
                {"title": "Collect invoices", "checklist": ["Q1", "Q2"]},
                {"title": "Draft the summary", "kind": "agent", "assigneeEmail": "admin@acme.example"},
                {"title": "Tell the team", "kind": "notify", "notifyEmails": ["viewer@acme.example"]},
            ],
        },
    )

    task = Task.objects.get(pk=answer["id"])
    assert (task.status, task.priority, task.owner) == ("draft", "high", people["member"])
    assert [c["name"] for c in answer["columns"]] == ["Backlog", "Doing", "Review", "Finished"]
    assert answer["columns"][-1]["finishedStepsGoHere"] is True
    backlog = answer["columns"][0]["steps"]
    assert [s["title"] for s in backlog] == ["Collect invoices", "Draft the summary", "Tell the team"]
    assert backlog[0]["checklist"] == {"done": 0, "total": 2}
    assert backlog[1]["assignee"]["email"] == "admin@acme.example"
    assert TaskStep.objects.get(task=task, kind="notify").config == {"recipients": [people["viewer"].pk]}
    assert answer["progress"] == {"done": 0, "total": 3}
    assert Watcher.objects.filter(
        user=people["member"], object_id=task.pk
    ).exists()  # you watch what you create


def test_create_task_can_start_it_at_once(people):
    answer = ok(
        people["member"],
        "createTask",
        {"title": "Say hello", "steps": [{"title": "Hi", "kind": "notify"}], "start": True},
    )

    assert answer["status"] == "completed"
    assert answer["currentRun"] is None and answer["runs"] == 1


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"title": ""}, "`title`"),
        ({"title": "x", "dueAt": "next friday"}, "`dueAt`"),
        ({"title": "x", "columns": ["Only one"]}, "`columns`"),
        ({"title": "x", "columns": ["A", "a"]}, "each column name once"),
        ({"title": "x", "steps": [{"title": "s", "column": "Nowhere"}]}, "has no column 'Nowhere'"),
        ({"title": "x", "steps": [{"title": "s", "column": "Done"}]}, "cannot start in “Done”"),
        (
            {"title": "x", "steps": [{"title": "s", "assigneeEmail": "ghost@acme.example"}]},
            "ghost@acme.example",
        ),
        ({"title": "x", "steps": [{"title": "s", "kind": "teleport"}]}, "`steps.0.kind`"),
        ({"title": "x", "schedule": {"rrule": "FREQ=DAILY"}}, "`schedule` is not an argument it takes"),
        ({"title": "x", "start": True}, "no steps"),
    ],
)
def test_create_task_refuses_bad_input_and_writes_nothing(people, arguments, expected):
    message = refused(people["member"], "createTask", arguments)

    assert expected in message, message
    assert not Task.objects.exists()


def test_get_task_answers_not_found_for_hidden_and_foreign_tasks(people, globex):
    private = TaskFactory(actor=people["admin"], visibility="private")
    with schema_context("globex"):
        from apps.accounts.models import User

        foreign = TaskFactory(actor=User.objects.get(email="owner@globex.example"))

    assert f"Task {private.pk} was not found" in refused(people["member"], "getTask", {"taskId": private.pk})
    assert "was not found" in refused(people["member"], "getTask", {"taskId": foreign.pk + 1000})
    assert ok(people["admin"], "getTask", {"taskId": private.pk})["yourAccess"] in ("owner", "admin")
    assert "`taskId`" in refused(people["member"], "getTask", {"taskId": "seven"})


def test_list_tasks_filters(people):
    draft = TaskFactory(actor=people["member"], title="Order paper")
    running = TaskFactory(actor=people["admin"], title="Order toner")
    runner.task_start(actor=people["admin"], task=running)
    template = TemplateFactory(actor=people["member"], title="Monthly order")

    everything = ok(people["member"], "listTasks")
    waiting = ok(people["member"], "listTasks", {"status": "waiting", "waitingOn": "person"})
    templates = ok(people["member"], "listTasks", {"kind": "templates"})
    mine = ok(people["member"], "listTasks", {"mine": True, "query": "order"})

    assert {item["id"] for item in everything["items"]} == {draft.pk, running.pk}
    assert [item["id"] for item in waiting["items"]] == [running.pk]
    assert [item["id"] for item in templates["items"]] == [template.pk]
    assert [item["id"] for item in mine["items"]] == [draft.pk]
    assert "`status`" in refused(people["member"], "listTasks", {"status": "sleeping"})


# --- updateTask, updateTaskInstructions, shareTask -----------------------------------------------------


def test_update_task_changes_fields_and_the_board_of_a_draft(people):
    task = TaskFactory(actor=people["member"])
    steps = list(task.steps.all())
    ok(
        people["member"],
        "moveTaskStepColumn",
        {"taskId": task.pk, "stepId": steps[1].pk, "column": "In progress"},
    )

    answer = ok(
        people["member"],
        "updateTask",
        {
            "taskId": task.pk,
            "changes": {"title": "Letters", "dueAt": None, "columns": ["Open", "To do", "Closed"]},
        },
    )

    assert answer["changed"] == ["columns", "title"]
    assert [c["name"] for c in answer["task"]["columns"]] == ["Open", "To do", "Closed"]
    # "In progress" went away: its step moved to the first column; "To do" kept its step.
    assert [s["id"] for s in answer["task"]["columns"][0]["steps"]] == [steps[1].pk]
    assert [s["id"] for s in answer["task"]["columns"][1]["steps"]] == [steps[0].pk]


def test_update_task_refuses_bad_input(people):
    task = TaskFactory(actor=people["member"])
    runner.task_start(actor=people["member"], task=task)

    assert "only while it is a draft" in refused(
        people["member"], "updateTask", {"taskId": task.pk, "changes": {"columns": ["A", "B"]}}
    )
    assert "`changes.priority`" in refused(
        people["member"], "updateTask", {"taskId": task.pk, "changes": {"priority": "meh"}}
    )
    assert "`changes.colour`" in refused(
        people["member"], "updateTask", {"taskId": task.pk, "changes": {"colour": "red"}}
    )


def test_a_private_task_shared_for_viewing_cannot_be_changed(people):
    task = TaskFactory(actor=people["admin"], visibility="private")
    ok(
        people["admin"],
        "shareTask",
        {"taskId": task.pk, "personEmail": "member@acme.example", "access": "view"},
    )

    assert ok(people["member"], "getTask", {"taskId": task.pk})["yourAccess"] == "view"
    assert "but not change it" in refused(
        people["member"], "updateTask", {"taskId": task.pk, "changes": {"title": "x"}}
    )


def test_update_task_instructions_replaces_or_appends_and_keeps_the_old_text(people):
    task = TaskFactory(actor=people["member"], instructions="Be brief.")

    ok(
        people["member"],
        "updateTaskInstructions",
        {"taskId": task.pk, "instructions": "Sign as the team.", "mode": "append"},
    )
    answer = ok(
        people["member"], "updateTaskInstructions", {"taskId": task.pk, "instructions": "Start over."}
    )

    assert answer["instructions"] == "Start over."
    events = TaskEvent.objects.filter(task=task, kind="instructions_updated").order_by("id")
    assert [e.data["before"] for e in events] == ["Be brief.", "Be brief.\n\nSign as the team."]
    # The history keeps the tool call each change came through (apps.core.history).
    assert {(e.door, e.tool, e.client) for e in events} == {("mcp", "updateTaskInstructions", "test client")}
    assert "`mode`" in refused(
        people["member"], "updateTaskInstructions", {"taskId": task.pk, "instructions": "x", "mode": "merge"}
    )


def test_share_task_with_view_edit_and_none(people):
    task = TaskFactory(actor=people["admin"], visibility="private")

    shared = ok(
        people["admin"],
        "shareTask",
        {"taskId": task.pk, "personEmail": "member@acme.example", "access": "edit"},
    )
    assert shared["sharedWith"] == [
        {
            "person": {
                "id": people["member"].pk,
                "email": "member@acme.example",
                "name": "member@acme.example",
            },
            "access": "edit",
        }
    ]
    assert ok(people["member"], "updateTask", {"taskId": task.pk, "changes": {"priority": "low"}})[
        "changed"
    ] == ["priority"]
    ok(
        people["admin"],
        "shareTask",
        {"taskId": task.pk, "personEmail": "member@acme.example", "access": "none"},
    )

    assert not TaskShare.objects.exists()
    assert "was not found" in refused(people["member"], "getTask", {"taskId": task.pk})
    assert "nobody@acme.example" in refused(
        people["admin"], "shareTask", {"taskId": task.pk, "personEmail": "nobody@acme.example"}
    )
    assert "owns it already" in refused(
        people["admin"], "shareTask", {"taskId": task.pk, "personEmail": "admin@acme.example"}
    )
    assert "Say what to change" in refused(people["admin"], "shareTask", {"taskId": task.pk})
    assert TaskEvent.objects.filter(task=task, kind="shared").count() == 2


def test_only_the_owner_makes_a_task_visible_to_the_workspace(people):
    task = TaskFactory(actor=people["member"], visibility="private")
    helper = person_with({"tasks.view", "tasks.edit", "tasks.share"}, email="helper@acme.example")
    ok(people["member"], "shareTask", {"taskId": task.pk, "personEmail": helper.email, "access": "edit"})

    message = refused(helper, "shareTask", {"taskId": task.pk, "visibility": "workspace"})
    opened = ok(people["member"], "shareTask", {"taskId": task.pk, "visibility": "workspace"})

    assert "Only its owner" in message
    assert opened["visibility"] == "workspace"
    assert ok(people["viewer"], "getTask", {"taskId": task.pk})["visibility"] == "workspace"


# --- templates and copies --------------------------------------------------------------------------------


def test_save_as_template_copies_the_board_steps_and_checklists_not_the_runs(people):
    contact = ContactFactory(actor=people["member"])
    task = TaskFactory(actor=people["member"], due_at=None)
    first = task.steps.first()
    TaskStepLink.objects.create(
        step=first, content_type_id=_contact_type(), object_id=contact.pk, entity_title="x"
    )
    runner.task_start(actor=people["member"], task=task)
    ChecklistItem.objects.filter(step=first).update(done=True)

    template = ok(people["member"], "saveTaskAsTemplate", {"taskId": task.pk, "title": "Letter template"})

    assert (template["isTemplate"], template["status"], template["title"]) == (
        True,
        "draft",
        "Letter template",
    )
    assert template["runs"] == 0 and template["copiedFrom"]["id"] == task.pk
    copied = TaskStep.objects.filter(task_id=template["id"]).order_by("position")
    assert [s.title for s in copied] == ["Draft the letter", "Send it"]
    assert all(s.status == "pending" for s in copied)
    assert not ChecklistItem.objects.filter(step__task_id=template["id"], done=True).exists()
    assert TaskStepLink.objects.filter(step__task_id=template["id"], object_id=contact.pk).exists()


def test_create_task_from_template_makes_a_draft_or_starts_it(people):
    template = TemplateFactory(actor=people["admin"], title="Onboarding")

    draft = ok(
        people["member"], "createTaskFromTemplate", {"templateId": template.pk, "title": "Onboard Ada"}
    )
    started = ok(people["member"], "createTaskFromTemplate", {"templateId": template.pk, "start": True})

    assert (draft["title"], draft["status"], draft["template"]["id"]) == ("Onboard Ada", "draft", template.pk)
    assert draft["owner"]["email"] == "member@acme.example"
    assert started["status"] == "waiting" and started["title"] == "Onboarding"
    task = TaskFactory(actor=people["member"])
    assert "is not a template" in refused(people["member"], "createTaskFromTemplate", {"templateId": task.pk})
    assert "was not found" in refused(people["member"], "createTaskFromTemplate", {"templateId": 987654})


def test_a_template_is_never_run(people):
    template = TemplateFactory(actor=people["member"])

    assert "templates are not run" in refused(people["member"], "startTask", {"taskId": template.pk})


def test_copy_task_to_new_draft(people):
    task = TaskFactory(actor=people["member"], title="Renew lease")
    runner.task_start(actor=people["member"], task=task)

    copy = ok(people["member"], "copyTaskToNewDraft", {"taskId": task.pk})

    assert (copy["status"], copy["title"], copy["copiedFrom"]["id"]) == ("draft", "Renew lease", task.pk)
    assert copy["progress"] == {"done": 0, "total": 2}
    assert "`title`" in refused(
        people["member"], "copyTaskToNewDraft", {"taskId": task.pk, "title": "x" * 201}
    )


def test_revert_task_to_draft_ends_the_run_and_resets_the_steps(people):
    task = TaskFactory(actor=people["member"])
    runner.task_start(actor=people["member"], task=task)

    answer = ok(people["member"], "revertTaskToDraft", {"taskId": task.pk})

    assert answer["status"] == "draft" and answer["currentRun"] is None
    assert task.runs.get().status == "reverted"
    assert set(task.steps.values_list("status", flat=True)) == {"pending"}
    assert "a draft already" in refused(people["member"], "revertTaskToDraft", {"taskId": task.pk})


# --- steps and the board --------------------------------------------------------------------------------


def test_get_task_steps_and_step_detail(people):
    task = TaskFactory(actor=people["member"])
    first = task.steps.first()

    board = ok(people["viewer"], "getTaskSteps", {"taskId": task.pk})
    detail = ok(people["viewer"], "getTaskStepDetail", {"taskId": task.pk, "stepId": first.pk})

    assert [s["position"] for s in board["steps"]] == [1, 2]
    assert [len(c["steps"]) for c in board["columns"]] == [2, 0, 0]
    assert [i["text"] for i in detail["checklistItems"]] == ["greeting", "signature"]
    assert detail["history"] == []
    other = TaskFactory(actor=people["member"])
    assert f"Step {other.steps.first().pk} is not a step of task {task.pk}" in refused(
        people["viewer"], "getTaskStepDetail", {"taskId": task.pk, "stepId": other.steps.first().pk}
    )


def test_add_remove_and_reorder_steps(people):
    task = TaskFactory(actor=people["member"])
    added = ok(
        people["member"], "addTaskStep", {"taskId": task.pk, "step": {"title": "Print it"}, "position": 2}
    )
    assert [s["title"] for s in added["steps"]] == ["Draft the letter", "Print it", "Send it"]

    ids = [s["id"] for s in added["steps"]]
    reordered = ok(people["member"], "reorderTaskSteps", {"taskId": task.pk, "stepIds": list(reversed(ids))})
    assert [s["title"] for s in reordered["steps"]] == ["Send it", "Print it", "Draft the letter"]

    removed = ok(people["member"], "removeTaskStep", {"taskId": task.pk, "stepId": ids[1]})
    assert [s["title"] for s in removed["steps"]] == ["Send it", "Draft the letter"]
    assert [s["position"] for s in removed["steps"]] == [1, 2]
    assert TaskEvent.objects.filter(task=task, kind="step_removed", step_title="Print it").exists()


def test_step_edits_refuse_bad_input(people):
    task = TaskFactory(actor=people["member"])
    ids = list(task.steps.values_list("pk", flat=True))

    assert "name every step of the task once" in refused(
        people["member"], "reorderTaskSteps", {"taskId": task.pk, "stepIds": ids[:1]}
    )
    assert "not steps of task" in refused(
        people["member"], "reorderTaskSteps", {"taskId": task.pk, "stepIds": [*ids, 999999]}
    )
    assert "`step.title`" in refused(people["member"], "addTaskStep", {"taskId": task.pk, "step": {}})
    assert "is not a step of task" in refused(
        people["member"], "removeTaskStep", {"taskId": task.pk, "stepId": 999999}
    )
    assert task.steps.count() == 2


def test_move_a_step_between_columns(people):
    task = TaskFactory(actor=people["member"])
    first = task.steps.first()

    doing = ok(
        people["member"],
        "moveTaskStepColumn",
        {"taskId": task.pk, "stepId": first.pk, "column": "in progress"},
    )
    assert doing["columns"][1]["steps"][0]["status"] == "in_progress"

    message = refused(
        people["member"], "moveTaskStepColumn", {"taskId": task.pk, "stepId": first.pk, "column": "Archive"}
    )
    assert "has no column 'Archive'; its columns are “To do”, “In progress”, “Done”" in message
    first.refresh_from_db()
    assert first.column.name == "In progress"


def test_update_a_step_card(people):
    task = TaskFactory(actor=people["member"])
    step = task.steps.first()

    answer = ok(
        people["member"],
        "updateTaskStepCard",
        {
            "taskId": task.pk,
            "stepId": step.pk,
            "changes": {
                "notes": "Use blue ink",
                "labels": ["Post", "post"],
                "assigneeEmail": "viewer@acme.example",
                "dueAt": "2031-01-02",
            },
        },
    )

    assert answer["changed"] == ["assignee_email", "due_at", "labels", "notes"]
    assert answer["step"]["labels"] == ["post"]
    assert answer["step"]["assignee"]["email"] == "viewer@acme.example"
    assert answer["step"]["dueAt"].startswith("2031-01-02T00:00:00")
    cleared = ok(
        people["member"],
        "updateTaskStepCard",
        {"taskId": task.pk, "stepId": step.pk, "changes": {"assigneeEmail": None}},
    )
    assert cleared["step"]["assignee"] is None
    assert "`changes.dueAt`" in refused(
        people["member"],
        "updateTaskStepCard",
        {"taskId": task.pk, "stepId": step.pk, "changes": {"dueAt": "31/01/2031"}},
    )


def test_update_a_step_checklist(people):
    task = TaskFactory(actor=people["member"])
    step = task.steps.first()
    greeting, signature = step.checklist.all()

    answer = ok(
        people["member"],
        "updateTaskStepChecklist",
        {
            "taskId": task.pk,
            "stepId": step.pk,
            "add": ["date"],
            "check": [greeting.pk],
            "remove": [signature.pk],
        },
    )

    assert [(i["text"], i["done"]) for i in answer["checklistItems"]] == [("greeting", True), ("date", False)]
    assert answer["checklistItems"][0]["doneBy"]["email"] == "member@acme.example"
    assert answer["checklist"] == {"done": 1, "total": 2}
    assert "not items of step" in refused(
        people["member"], "updateTaskStepChecklist", {"taskId": task.pk, "stepId": step.pk, "check": [999999]}
    )
    assert "say what to change" in refused(
        people["member"], "updateTaskStepChecklist", {"taskId": task.pk, "stepId": step.pk}
    )


def test_link_a_record_to_a_step_and_unlink_it(people):
    contact = ContactFactory(actor=people["member"], first_name="Ada")
    other_task = TaskFactory(actor=people["member"], title="Related work")
    task = TaskFactory(actor=people["member"])
    step = task.steps.first()

    ok(
        people["member"],
        "linkEntityToTaskStep",
        {"taskId": task.pk, "stepId": step.pk, "entityType": "contact", "entityId": contact.pk},
    )
    answer = ok(
        people["member"],
        "linkEntityToTaskStep",
        {"taskId": task.pk, "stepId": step.pk, "entityType": "task", "entityId": other_task.pk},
    )

    assert [(e["type"], e["title"], e["available"]) for e in answer["linked"]] == [
        ("contact", "Ada", True),
        ("task", "Related work", True),
    ]
    unlinked = ok(
        people["member"],
        "linkEntityToTaskStep",
        {
            "taskId": task.pk,
            "stepId": step.pk,
            "entityType": "contact",
            "entityId": contact.pk,
            "remove": True,
        },
    )
    assert [e["type"] for e in unlinked["linked"]] == ["task"]
    private = ContactFactory(actor=people["admin"], visibility="private")
    assert "was not found" in refused(
        people["member"],
        "linkEntityToTaskStep",
        {"taskId": task.pk, "stepId": step.pk, "entityType": "contact", "entityId": private.pk},
    )
    assert "'invoice' is not a kind of record" in refused(
        people["member"],
        "linkEntityToTaskStep",
        {"taskId": task.pk, "stepId": step.pk, "entityType": "invoice", "entityId": 1},
    )


def test_a_linked_record_that_goes_away_shows_unavailable(people):
    contact = ContactFactory(actor=people["member"], first_name="Grace", visibility="private")
    task = TaskFactory(actor=people["member"])
    step = task.steps.first()
    ok(
        people["member"],
        "linkEntityToTaskStep",
        {"taskId": task.pk, "stepId": step.pk, "entityType": "contact", "entityId": contact.pk},
    )

    seen_by_admin = ok(people["admin"], "getTaskStepDetail", {"taskId": task.pk, "stepId": step.pk})
    seen_by_viewer = ok(people["viewer"], "getTaskStepDetail", {"taskId": task.pk, "stepId": step.pk})

    assert seen_by_admin["linked"][0]["available"] is True
    # The viewer may not see the contact: neither its name.
    assert seen_by_viewer["linked"][0] == {
        "type": "contact",
        "id": contact.pk,
        "title": "",
        "available": False,
    }


def _contact_type():
    from django.contrib.contenttypes.models import ContentType

    from apps.contacts.models import Contact

    return ContentType.objects.get_for_model(Contact).pk
