"""A task's agent steps done by the gateway's agent (apps.gateway.handover): the step is handed
over as a conversation of the task's owner on the task's API key, the conversation really runs
(Celery eager, on-commit callbacks executed, as in production after the commit), and its end
finishes the step and lets the run go on; without a key, or with one that cannot pay, the step
waits and says what to do."""

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.apikeys.services import api_key_create, api_key_revoke
from apps.apikeys.testing import credentials_for
from apps.catalogue.testing import ok, refused
from apps.contacts.models import Contact
from apps.contacts.tests.factories import ContactFactory
from apps.gateway import handover, services
from apps.gateway.agent import runner as agent_runner
from apps.gateway.models import Conversation
from apps.tasks import agent_steps, runner
from apps.tasks import services as task_services
from apps.tasks.models import Task, TaskEvent, TaskStep
from apps.tasks.tasks import finish_agent_step
from apps.tasks.tests.factories import TaskFactory

pytestmark = pytest.mark.django_db

ADA = "Create a contact Ada Lovelace, email: ada@example.org"


@pytest.fixture(autouse=True)
def _eager_and_no_model(settings):
    from config.celery import app

    previous = app.conf.task_always_eager
    app.conf.task_always_eager = True
    settings.GATEWAY_MODEL_BACKEND = ""
    yield
    app.conf.task_always_eager = previous


def steps_of(task: Task) -> list[TaskStep]:
    return list(TaskStep.objects.filter(task=task).order_by("position"))


def cards(answer: dict) -> list[dict]:
    return sorted(
        (card for column in answer["columns"] for card in column["steps"]), key=lambda c: c["position"]
    )


def agent_task(credentials, *, first: str = ADA, key=True, **fields) -> Task:
    return TaskFactory(
        actor=credentials.user,
        steps=[
            {"title": first, "kind": "agent"},
            {"title": "Welcome her", "assignee_email": credentials.user.email},
        ],
        agent_key_id=credentials.key.pk if key else None,
        **fields,
    )


def test_an_agent_step_is_done_by_the_built_in_agent_and_the_run_goes_on(
    make_credentials, acme_client, django_capture_on_commit_callbacks
):
    mine = make_credentials("member")
    task = agent_task(mine, instructions="Onboard the new analyst.")

    with django_capture_on_commit_callbacks(execute=True):
        started = ok(mine.user, "startTask", {"taskId": task.pk})

    # When startTask answered, the step had been handed over (the agent runs after the commit).
    assert (started["status"], started["waitingOn"]) == ("waiting", "agent")
    assert "Handed to the service's agent: conversation" in started["waitingFor"]
    created = Contact.objects.get(email="ada@example.org")
    assert (created.first_name, created.last_name, created.owner) == ("Ada", "Lovelace", mine.user)
    create, welcome = steps_of(task)
    conversation = Conversation.objects.get(uuid=create.agent_conversation)
    assert (conversation.user, conversation.key, conversation.token_id) == (mine.user, mine.key, None)
    assert conversation.status == "resolved" and conversation.agent == "built-in"
    assert conversation.context == {"entity_type": "task", "entity_id": str(task.pk)}
    assert conversation.metadata == {"task": {"id": task.pk, "step_id": create.pk, "run": 1}}
    # The step is done with the agent's reply; the run went on to the next step.
    assert (create.status, create.column.name, create.finished_by) == ("done", "Done", None)
    assert f"id {created.pk}" in create.result and create.result == handover.reply_of(conversation)
    assert (welcome.status, welcome.waiting_on) == ("waiting", "person")
    done = TaskEvent.objects.get(step=create, kind="step_done")
    assert done.data == {"conversation": str(conversation.uuid)} and done.actor is None
    handed = TaskEvent.objects.get(step=create, kind="step_waiting")
    assert str(conversation.uuid) in handed.message and handed.data == {
        "conversation": str(conversation.uuid)
    }
    answer = ok(mine.user, "getTask", {"taskId": task.pk})
    assert answer["agentKey"] == {"id": mine.key.pk, "label": mine.key.label, "status": "active"}
    assert cards(answer)[0]["agentConversation"] == str(conversation.uuid)
    assert answer["waitingFor"].startswith("Step 2 “Welcome her”")
    # The owner follows the conversation like any other of theirs.
    polled = acme_client.get(f"/api/agent/{conversation.uuid}", **mine.headers())
    assert polled.status_code == 200
    body = polled.json()
    assert body["status"] == "resolved" and body["agent"] == "built-in"
    message = body["turns"][0]["payload"]["message"]
    assert message.startswith(ADA + "\n\n---\n")
    assert "Onboard the new analyst." in message and f"(task {task.pk}, run 1)" in message
    assert body["turns"][-1]["payload"]["content"] == create.result
    # Someone else does not see it.
    other = make_credentials("admin")
    assert acme_client.get(f"/api/agent/{conversation.uuid}", **other.headers()).status_code == 404
    # The task's page shows which key pays and the step's conversation.
    acme_client.force_login(mine.user)
    page = acme_client.get(f"/settings/tasks/{task.pk}/").content.decode()
    assert f"API key “{mine.key.label}” ({mine.key.pk})" in page
    assert f'data-conversation="{conversation.uuid}"' in page


def test_a_request_the_built_in_agent_cannot_do_fails_the_step_saying_a_model_is_needed(
    make_credentials, django_capture_on_commit_callbacks
):
    mine = make_credentials("member")
    task = agent_task(mine, first="Summarise what our customers wrote to us last week")

    with django_capture_on_commit_callbacks(execute=True):
        ok(mine.user, "startTask", {"taskId": task.pk})

    task.refresh_from_db()
    summarise, welcome = steps_of(task)
    conversation = Conversation.objects.get(uuid=summarise.agent_conversation)
    assert (conversation.status, conversation.error_code) == ("failed", "MODEL_BACKEND_REQUIRED")
    assert (task.status, summarise.status, welcome.status) == ("failed", "failed", "pending")
    assert f"The service's agent could not do it (conversation {conversation.uuid})" in summarise.result
    assert "model backend" in summarise.result and "ATRIUM_GATEWAY_MODEL_BACKEND" in summarise.result
    assert TaskEvent.objects.filter(step=summarise, kind="step_failed").count() == 1


def test_the_message_carries_the_instructions_card_steering_and_linked_records(make_credentials):
    mine = make_credentials("member")
    contact = ContactFactory(actor=mine.user, first_name="Grace", last_name="Hopper")
    task = TaskFactory(
        actor=mine.user,
        instructions="Always write in British English.",
        steps=[
            {
                "title": "Draft a welcome letter",
                "kind": "agent",
                "instructions": "Keep it short.",
                "notes": "She starts on Monday.",
                "labels": ["hr"],
                "checklist": ["greeting", "signature"],
            }
        ],
    )
    step = steps_of(task)[0]
    task_services.step_link(
        actor=mine.user, task=task, step=step, entity=_entity(mine.user, "contact", contact.pk)
    )
    runner.task_start(actor=mine.user, task=task)  # no key yet: it waits
    runner.task_steer(actor=mine.user, task=task, guidance="Mention the parking space.")

    ok(mine.user, "updateTask", {"taskId": task.pk, "changes": {"agentKeyId": mine.key.pk}})

    step.refresh_from_db()
    conversation = Conversation.objects.get(uuid=step.agent_conversation)
    message = conversation.turns.get(position=0).payload["message"]
    request, background = message.split("\n\n---\n")
    assert request == "Draft a welcome letter\nKeep it short."
    for part in (
        "step 1 of 1, “Draft a welcome letter”",
        "Always write in British English.",
        "Notes: She starts on Monday.",
        "Labels: hr",
        "- [ ] greeting",
        "- Mention the parking space.",
        f"- contact {contact.pk}: Grace Hopper",
    ):
        assert part in background, part


def _entity(actor, entity_type: str, entity_id: int):
    from apps.core import kinds

    return kinds.resolve(actor=actor, entity_type=entity_type, entity_id=entity_id)


def test_without_a_key_the_step_waits_and_choosing_one_hands_it_over(
    make_credentials, django_capture_on_commit_callbacks
):
    mine = make_credentials("member")
    task = agent_task(mine, key=False)

    started = ok(mine.user, "startTask", {"taskId": task.pk})

    assert started["waitingOn"] == "agent" and started["agentKey"] is None
    assert (
        "no API key pays for it yet. To hand it over, choose the API key whose budget pays for the agent's "
        "steps: updateTask with agentKeyId" in started["waitingFor"]
    )
    assert not Conversation.objects.filter(user=mine.user).exists()

    with django_capture_on_commit_callbacks(execute=True):
        updated = ok(mine.user, "updateTask", {"taskId": task.pk, "changes": {"agentKeyId": mine.key.pk}})

    assert updated["changed"] == ["agent_key_id"]
    assert Contact.objects.filter(email="ada@example.org", owner=mine.user).exists()
    create, welcome = steps_of(task)
    assert (create.status, welcome.status) == ("done", "waiting")


def test_a_revoked_key_or_a_spent_budget_makes_the_step_wait_saying_why(make_credentials):
    mine = make_credentials("member")
    spent = api_key_create(user=mine.user, label="spent", budget_usd_cents=0, budget_period="total").key
    task = agent_task(mine)
    Task.objects.filter(pk=task.pk).update(agent_key=spent)
    task.refresh_from_db()

    answer = ok(mine.user, "startTask", {"taskId": task.pk})

    assert (
        f"API key {spent.pk} (“spent”) cannot pay for it: The API key's total budget" in answer["waitingFor"]
    )
    assert "updateTask with agentKeyId" in answer["waitingFor"]
    assert steps_of(task)[0].agent_conversation is None
    assert not Conversation.objects.filter(key=spent).exists()

    # Revoked after it was chosen: choosing it again is refused, and the step says so.
    api_key_revoke(actor=mine.user, key=mine.key)
    message = refused(mine.user, "updateTask", {"taskId": task.pk, "changes": {"agentKeyId": mine.key.pk}})
    assert f"API key {mine.key.pk}" in message and "is revoked; choose an active key" in message
    Task.objects.filter(pk=task.pk).update(agent_key=mine.key)
    task.refresh_from_db()
    assert runner.agent_retry(task=task, actor=mine.user) is False
    step = steps_of(task)[0]
    assert "The API key has been revoked" in step.result and step.agent_conversation is None


def test_the_key_must_be_an_active_key_of_the_tasks_owner(people, make_credentials):
    mine = make_credentials("member")
    theirs = credentials_for(people["admin"])
    task = agent_task(mine, key=False)

    message = refused(mine.user, "updateTask", {"taskId": task.pk, "changes": {"agentKeyId": theirs.key.pk}})
    assert f"`agentKeyId`: API key {theirs.key.pk} is not one of the task owner's keys" in message
    message = refused(
        mine.user,
        "createTask",
        {"title": "Onboarding", "agentKeyId": theirs.key.pk, "steps": [{"title": "x"}]},
    )
    assert "is not one of the task owner's keys" in message
    assert "is not one of the task owner's keys" in refused(
        mine.user, "updateTask", {"taskId": task.pk, "changes": {"agentKeyId": 99999999}}
    )
    # Someone who may change the task but does not own it does not choose whose money pays.
    message = refused(
        people["admin"], "updateTask", {"taskId": task.pk, "changes": {"agentKeyId": mine.key.pk}}
    )
    assert "only the task's owner (member@acme.example) chooses" in message
    task.refresh_from_db()
    assert task.agent_key is None
    assert not TaskEvent.objects.filter(task=task, kind="updated").exists()
    # The owner's own key, and clearing it.
    ok(mine.user, "updateTask", {"taskId": task.pk, "changes": {"agentKeyId": mine.key.pk}})
    cleared = ok(mine.user, "updateTask", {"taskId": task.pk, "changes": {"agentKeyId": None}})
    assert cleared["task"]["agentKey"] is None and cleared["changed"] == ["agent_key_id"]


def test_finishing_twice_is_harmless_and_a_stale_conversation_finishes_nothing(
    make_credentials, django_capture_on_commit_callbacks
):
    mine = make_credentials("member")
    task = agent_task(mine)
    with django_capture_on_commit_callbacks(execute=True):
        ok(mine.user, "startTask", {"taskId": task.pk})
    create = steps_of(task)[0]
    conversation = Conversation.objects.get(uuid=create.agent_conversation)
    events = TaskEvent.objects.filter(task=task).count()

    # The same end reported again: by the signal's task, by the receiver, and by the sweeper.
    again = finish_agent_step.apply(
        kwargs={
            "task_id": task.pk,
            "step_id": create.pk,
            "reference": str(conversation.uuid),
            "done": True,
            "text": "again",
            "schema_name": "acme",
        }
    ).get()
    with django_capture_on_commit_callbacks(execute=True):
        handover.on_conversation_finished(
            Conversation, conversation=conversation, status="resolved", reply="again", schema_name="acme"
        )
    assert runner.agent_steps_sweep() == 0

    assert again is False
    assert TaskEvent.objects.filter(task=task).count() == events
    create.refresh_from_db()
    assert create.result != "again" and create.status == "done"
    # A conversation that is not the step's (another one, or one sent through POST /api/agent with
    # the same metadata) finishes nothing.
    assert (
        runner.agent_finished(
            task_id=task.pk,
            step_id=steps_of(task)[1].pk,
            reference=str(conversation.uuid),
            done=True,
            text="x",
        )
        is False
    )
    assert steps_of(task)[1].status == "waiting"


def test_a_task_paused_meanwhile_records_the_step_but_does_not_go_on(
    make_credentials, django_capture_on_commit_callbacks
):
    mine = make_credentials("member")
    task = agent_task(mine)
    ok(mine.user, "startTask", {"taskId": task.pk})  # handed over; its run waits for the commit
    create = steps_of(task)[0]
    ok(mine.user, "pauseTask", {"taskId": task.pk})

    with django_capture_on_commit_callbacks(execute=True):
        agent_runner.run_conversation(Conversation.objects.get(uuid=create.agent_conversation).pk)

    task.refresh_from_db()
    create, welcome = steps_of(task)
    assert task.status == "paused"
    assert (create.status, welcome.status) == ("done", "pending")
    resumed = ok(mine.user, "resumeTask", {"taskId": task.pk})
    assert resumed["status"] == "waiting" and steps_of(task)[1].status == "waiting"


def test_a_task_reverted_to_draft_meanwhile_is_left_alone(
    make_credentials, django_capture_on_commit_callbacks
):
    mine = make_credentials("member")
    task = agent_task(mine)
    ok(mine.user, "startTask", {"taskId": task.pk})
    reference = steps_of(task)[0].agent_conversation
    ok(mine.user, "revertTaskToDraft", {"taskId": task.pk})

    with django_capture_on_commit_callbacks(execute=True):
        agent_runner.run_conversation(Conversation.objects.get(uuid=reference).pk)

    task.refresh_from_db()
    assert task.status == "draft"
    assert [(s.status, s.agent_conversation) for s in steps_of(task)] == [
        ("pending", None),
        ("pending", None),
    ]


def test_cancelling_the_conversation_fails_the_step(make_credentials, django_capture_on_commit_callbacks):
    mine = make_credentials("member")
    task = agent_task(mine)
    ok(mine.user, "startTask", {"taskId": task.pk})
    conversation = Conversation.objects.get(uuid=steps_of(task)[0].agent_conversation)

    with django_capture_on_commit_callbacks(execute=True):
        services.conversation_cancel(conversation=conversation)

    task.refresh_from_db()
    create = steps_of(task)[0]
    assert (task.status, create.status) == ("failed", "failed")
    assert "The conversation was cancelled by the caller." in create.result


def test_an_expired_conversation_fails_the_step(make_credentials, django_capture_on_commit_callbacks):
    mine = make_credentials("member")
    task = agent_task(mine)
    ok(mine.user, "startTask", {"taskId": task.pk})
    reference = steps_of(task)[0].agent_conversation
    Conversation.objects.filter(uuid=reference).update(expires_at=timezone.now() - timedelta(seconds=1))

    with django_capture_on_commit_callbacks(execute=True):
        assert services.conversations_remove_expired() == 1

    create = steps_of(task)[0]
    assert create.status == "failed" and "expired" in create.result
    assert not Conversation.objects.filter(uuid=reference).exists()


def test_the_sweeper_finishes_a_step_whose_end_was_not_reported(make_credentials):
    mine = make_credentials("member")
    task = agent_task(mine)
    ok(mine.user, "startTask", {"taskId": task.pk})
    create = steps_of(task)[0]
    # The conversation runs, but its end never reaches the task (on-commit callbacks not run: the
    # broker did not answer).
    agent_runner.run_conversation(Conversation.objects.get(uuid=create.agent_conversation).pk)
    assert steps_of(task)[0].status == "waiting"

    assert runner.agent_steps_sweep() == 1
    assert runner.agent_steps_sweep() == 0

    create, welcome = steps_of(task)
    assert create.status == "done" and "Ada Lovelace" in create.result
    assert welcome.status == "waiting"


def test_a_copy_keeps_the_key_only_for_its_owner(people, make_credentials):
    mine = make_credentials("member")
    task = agent_task(mine)

    own = task_services.task_copy(actor=mine.user, source=task)
    theirs = task_services.task_copy(actor=people["admin"], source=task)

    assert own.agent_key == mine.key and theirs.agent_key is None


def test_a_long_brief_is_cut_to_the_gateways_limit_background_first(make_credentials, settings):
    mine = make_credentials("member")
    task = TaskFactory(
        actor=mine.user,
        instructions="Be thorough. " * 1500,
        steps=[{"title": "Draft the report", "kind": "agent", "instructions": "Use the figures. " * 100}],
    )
    step = steps_of(task)[0]

    message = handover.compose(agent_steps.brief_of(task=task, step=step, run=None, reader=mine.user))

    assert len(message) <= settings.GATEWAY_MESSAGE_MAX_CHARS
    request, background = message.split("\n\n---\n")
    assert request == "Draft the report\n" + ("Use the figures. " * 100).strip()
    assert background.startswith("The request above is step 1 of 1") and background.endswith("… (cut)")
