"""Running tasks through call_tool: start, the steps a run works through (what each did),
pause, resume, steer, rerun, skip, and what waits for the service's agent."""

import pytest

from apps.catalogue.testing import ok, refused
from apps.core import agents
from apps.notifications.models import Notification
from apps.tasks import runner
from apps.tasks.models import TaskEvent, TaskRun, TaskStep
from apps.tasks.tests.factories import TaskFactory


def steps_of(task):
    return list(TaskStep.objects.filter(task=task).order_by("position"))


def test_start_runs_the_steps_the_service_can_do_and_waits_on_a_person(people):
    task = TaskFactory(
        actor=people["member"],
        steps=[
            {
                "title": "Announce it",
                "kind": "notify",
                "notify_emails": ["viewer@acme.example"],
                "instructions": "We begin today.",
            },
            {"title": "Book the room", "assignee_email": "admin@acme.example"},
            {"title": "Send the minutes", "kind": "notify"},
        ],
    )

    answer = ok(people["member"], "startTask", {"taskId": task.pk})

    announce, book, minutes = steps_of(task)
    assert (answer["status"], answer["waitingOn"]) == ("waiting", "person")
    assert (
        answer["waitingFor"]
        == "Step 2 “Book the room”: Waiting for admin@acme.example to do it and move it to “Done”."
    )
    assert (announce.status, announce.column.name, announce.result) == ("done", "Done", "Notified 1 person.")
    assert TaskEvent.objects.get(step=announce, kind="step_done").data == {"notified": [people["viewer"].pk]}
    assert (book.status, minutes.status) == ("waiting", "pending")
    told = Notification.objects.get(recipient=people["viewer"], kind="task")
    assert (told.title, told.body) == ("Announce it", "We begin today.")
    assert Notification.objects.filter(recipient=people["admin"], title__contains="Book the room").exists()
    run = TaskRun.objects.get(task=task)
    kinds = list(TaskEvent.objects.filter(run=run).order_by("id").values_list("kind", "step_title"))
    assert kinds == [
        ("started", ""),
        ("step_started", "Announce it"),
        ("step_done", "Announce it"),
        ("step_started", "Book the room"),
        ("step_waiting", "Book the room"),
    ]


def test_moving_the_waiting_step_to_done_lets_the_run_finish(people):
    task = TaskFactory(
        actor=people["member"],
        steps=[{"title": "Book the room"}, {"title": "Tell everyone", "kind": "notify"}],
    )
    ok(people["member"], "startTask", {"taskId": task.pk})
    book = steps_of(task)[0]

    board = ok(
        people["admin"], "moveTaskStepColumn", {"taskId": task.pk, "stepId": book.pk, "column": "Done"}
    )

    assert board["status"] == "completed"
    assert [s["status"] for s in board["steps"]] == ["done", "done"]
    assert [len(c["steps"]) for c in board["columns"]] == [0, 0, 2]
    book.refresh_from_db()
    assert (book.finished_by, book.result) == (people["admin"], "done")
    assert TaskRun.objects.get(task=task).status == "completed"
    reopened = refused(
        people["admin"], "moveTaskStepColumn", {"taskId": task.pk, "stepId": book.pk, "column": "To do"}
    )
    assert "rerunTask runs it again" in reopened


def test_an_agent_step_without_a_key_waits_and_says_how_to_hand_it_over(people):
    task = TaskFactory(
        actor=people["member"],
        steps=[{"title": "Summarise the replies", "kind": "agent"}, {"title": "Send it"}],
    )

    answer = ok(people["member"], "startTask", {"taskId": task.pk})

    assert (answer["status"], answer["waitingOn"]) == ("waiting", "agent")
    assert "no API key pays for it yet" in answer["waitingFor"]
    assert (
        "choose the API key whose budget pays for the agent's steps: updateTask with agentKeyId"
        in (answer["waitingFor"])
    )
    step = steps_of(task)[0]
    assert (step.status, step.waiting_on, step.agent_conversation) == ("waiting", "agent", None)
    assert "updateTask with agentKeyId" in TaskEvent.objects.get(step=step, kind="step_waiting").message
    assert not TaskEvent.objects.filter(task=task, kind="step_done").exists()  # never a pretend success
    # A person can do it instead.
    after = ok(
        people["member"], "moveTaskStepColumn", {"taskId": task.pk, "stepId": step.pk, "column": "Done"}
    )
    assert (after["status"], after["steps"][1]["status"]) == ("waiting", "waiting")


def test_an_agent_step_is_handed_to_the_registered_agent(people):
    handed = []

    class Agent:
        def hand_over(self, *, task, step, run, actor, brief, instead):
            handed.append((task.pk, step.title, run.number))
            return agents.HandedOver(
                "Conversation 7 started.", reference="6f1c0a52-3c6e-4d55-9a0e-5d1f7f2f9b43"
            )

        def outcome(self, *, reference):
            return None

    task = TaskFactory(actor=people["member"], steps=[{"title": "Draft a reply", "kind": "agent"}])
    gateway = agents.handler()
    agents.register(Agent())
    try:
        answer = ok(people["member"], "startTask", {"taskId": task.pk})
    finally:
        agents.register(gateway)

    assert handed == [(task.pk, "Draft a reply", 1)]
    assert answer["waitingOn"] == "agent"
    step = steps_of(task)[0]
    assert step.result == "Conversation 7 started."
    assert str(step.agent_conversation) == "6f1c0a52-3c6e-4d55-9a0e-5d1f7f2f9b43"
    cards = [card for column in answer["columns"] for card in column["steps"]]
    assert cards[0]["agentConversation"] == "6f1c0a52-3c6e-4d55-9a0e-5d1f7f2f9b43"
    task.refresh_from_db()
    runner.step_finish(task=task, step=step, actor=None, message="Reply drafted.")
    task.refresh_from_db()
    assert task.status == "completed"


def test_start_refuses_what_cannot_start(people):
    task = TaskFactory(actor=people["member"])
    ok(people["member"], "startTask", {"taskId": task.pk})
    empty = TaskFactory(actor=people["member"], steps=[])

    assert "it is running already" in refused(people["member"], "startTask", {"taskId": task.pk})
    assert "no steps" in refused(people["member"], "startTask", {"taskId": empty.pk})
    assert "Task 99999999 was not found" in refused(people["member"], "startTask", {"taskId": 99999999})


def test_pause_and_resume(people):
    task = TaskFactory(
        actor=people["member"], steps=[{"title": "Wait for it"}, {"title": "Tell", "kind": "notify"}]
    )
    ok(people["member"], "startTask", {"taskId": task.pk})

    paused = ok(people["member"], "pauseTask", {"taskId": task.pk, "reason": "budget freeze"})
    # Finishing the step in hand is recorded, but nothing new starts while paused.
    ok(
        people["member"],
        "moveTaskStepColumn",
        {"taskId": task.pk, "stepId": steps_of(task)[0].pk, "column": "Done"},
    )
    assert steps_of(task)[1].status == "pending"
    resumed = ok(people["member"], "resumeTask", {"taskId": task.pk})

    assert paused["status"] == "paused" and paused["currentRun"]["status"] == "paused"
    assert resumed["status"] == "completed"
    assert TaskEvent.objects.get(task=task, kind="paused").message == "budget freeze"
    assert "only a running task can be paused" in refused(people["member"], "pauseTask", {"taskId": task.pk})
    assert "not paused" in refused(people["member"], "resumeTask", {"taskId": task.pk})


def test_steer_keeps_guidance_for_a_running_task(people):
    task = TaskFactory(actor=people["member"])
    assert "steering guides a task while it runs" in refused(
        people["member"], "steerTask", {"taskId": task.pk, "guidance": "Faster"}
    )
    ok(people["member"], "startTask", {"taskId": task.pk})

    answer = ok(people["admin"], "steerTask", {"taskId": task.pk, "guidance": "Use the new logo."})

    assert answer["guidance"][0]["text"] == "Use the new logo."
    assert answer["guidance"][0]["by"]["email"] == "admin@acme.example"
    assert answer["instructions"] == ""  # steering is not rewriting
    assert "`guidance`" in refused(people["member"], "steerTask", {"taskId": task.pk, "guidance": ""})


def test_rerun_from_the_start_or_from_a_step(people):
    task = TaskFactory(
        actor=people["member"],
        steps=[
            {"title": "One", "kind": "notify"},
            {"title": "Two", "kind": "notify"},
            {"title": "Three", "kind": "notify"},
        ],
    )
    assert "only a completed or failed task runs again" in refused(
        people["member"], "rerunTask", {"taskId": task.pk}
    )
    ok(people["member"], "startTask", {"taskId": task.pk})
    second = steps_of(task)[1]

    again = ok(people["member"], "rerunTask", {"taskId": task.pk, "fromStepId": second.pk})

    assert again["status"] == "completed" and again["runs"] == 2
    run = TaskRun.objects.get(task=task, number=2)
    assert run.trigger == "rerun"
    assert list(
        TaskEvent.objects.filter(run=run, kind="step_done")
        .order_by("id")
        .values_list("step_title", flat=True)
    ) == ["Two", "Three"]
    other = TaskFactory(actor=people["member"])
    assert "is not a step of task" in refused(
        people["member"], "rerunTask", {"taskId": task.pk, "fromStepId": other.steps.first().pk}
    )


def test_skip_a_step(people):
    task = TaskFactory(
        actor=people["member"], steps=[{"title": "Ask legal"}, {"title": "Tell", "kind": "notify"}]
    )
    ok(people["member"], "startTask", {"taskId": task.pk})
    ask = steps_of(task)[0]

    answer = ok(
        people["member"],
        "skipTaskStep",
        {"taskId": task.pk, "stepId": ask.pk, "reason": "not needed this time"},
    )

    assert answer["status"] == "completed"
    ask.refresh_from_db()
    assert (ask.status, ask.column.name, ask.result) == ("skipped", "Done", "not needed this time")
    assert "skipped already" in refused(
        people["member"], "skipTaskStep", {"taskId": task.pk, "stepId": ask.pk}
    )


def test_a_notify_step_nobody_can_receive_fails_the_task(people):
    people["viewer"].is_active = False
    people["viewer"].save()
    task = TaskFactory(
        actor=people["member"], steps=[{"title": "Tell", "kind": "notify", "notify_emails": []}]
    )
    task.steps.update(config={"recipients": [people["viewer"].pk]})

    answer = ok(people["member"], "startTask", {"taskId": task.pk})

    assert answer["status"] == "failed"
    assert steps_of(task)[0].status == "failed"
    assert TaskRun.objects.get(task=task).status == "failed"
    assert ok(people["member"], "rerunTask", {"taskId": task.pk})["runs"] == 2


@pytest.mark.parametrize("name", ["pauseTask", "resumeTask", "steerTask", "rerunTask", "startTask"])
def test_run_tools_refuse_unknown_and_foreign_ids(people, name):
    arguments = {"taskId": 123456789}
    if name == "steerTask":
        arguments["guidance"] = "x"
    assert "was not found" in refused(people["member"], name, arguments)


def test_adding_a_step_to_a_waiting_task_waits_its_turn(people):
    task = TaskFactory(actor=people["member"], steps=[{"title": "First"}])
    ok(people["member"], "startTask", {"taskId": task.pk})

    board = ok(
        people["member"], "addTaskStep", {"taskId": task.pk, "step": {"title": "Later", "kind": "notify"}}
    )

    assert [s["status"] for s in board["steps"]] == ["waiting", "pending"]
