"""A normal call of every Tasks tool, for the catalogue's contract test
(apps/catalogue/tests/test_contract.py). Each creates what it needs as `actor`."""

import uuid
from typing import Any

from apps.catalogue.testing import Sample, sample
from apps.contacts.tests.factories import ContactFactory
from apps.files.tests.factories import FileFactory
from apps.tasks import runner, schedules
from apps.tasks.tests.factories import TaskFactory, TemplateFactory

WEEKLY = "FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;BYMINUTE=0"


def unique(prefix: str = "Task") -> str:
    return f"{prefix}{uuid.uuid4().hex[:10]}"


def _one(actor: Any, arguments: dict[str, Any] | None = None, **fields: Any) -> Sample:
    task = TaskFactory(actor=actor, **fields)
    return Sample({"taskId": task.pk, **(arguments or {})}, private=[task.title])


def _step(actor: Any, arguments: dict[str, Any] | None = None, *, started: bool = False) -> Sample:
    task = TaskFactory(actor=actor)
    if started:
        runner.task_start(actor=actor, task=task)
    step = task.steps.first()
    return Sample({"taskId": task.pk, "stepId": step.pk, **(arguments or {})}, private=[task.title])


def _scheduled(actor: Any, **arguments: Any) -> Sample:
    task = TaskFactory(actor=actor)
    schedule = schedules.schedule_set(actor=actor, task=task, rule=WEEKLY)
    return Sample({"scheduledTaskId": schedule.pk, **arguments}, private=[task.title])


@sample("createTask")
def create_task(actor: Any) -> Sample:
    return Sample({"title": unique(), "steps": [{"title": "Call the supplier", "kind": "manual"}]})


@sample("getTask")
def get_task(actor: Any) -> Sample:
    return _one(actor)


@sample("listTasks")
def list_tasks(actor: Any) -> Sample:
    task = TaskFactory(actor=actor)
    return Sample({"limit": 100}, private=[task.title])


@sample("updateTask")
def update_task(actor: Any) -> Sample:
    return _one(actor, {"changes": {"priority": "high"}})


@sample("updateTaskInstructions")
def update_task_instructions(actor: Any) -> Sample:
    return _one(actor, {"instructions": "Be brief."})


@sample("shareTask")
def share_task(actor: Any) -> Sample:
    domain = actor.email.split("@")[1]
    return _one(actor, {"personEmail": f"member@{domain}", "access": "edit"})


@sample("saveTaskAsTemplate")
def save_task_as_template(actor: Any) -> Sample:
    return _one(actor)


@sample("createTaskFromTemplate")
def create_task_from_template(actor: Any) -> Sample:
    template = TemplateFactory(actor=actor)
    return Sample({"templateId": template.pk}, private=[template.title])


@sample("copyTaskToNewDraft")
def copy_task_to_new_draft(actor: Any) -> Sample:
    return _one(actor)


@sample("revertTaskToDraft")
def revert_task_to_draft(actor: Any) -> Sample:
    task = TaskFactory(actor=actor)
    runner.task_start(actor=actor, task=task)
    return Sample({"taskId": task.pk}, private=[task.title])


@sample("startTask")
def start_task(actor: Any) -> Sample:
    return _one(actor)


@sample("pauseTask")
def pause_task(actor: Any) -> Sample:
    task = TaskFactory(actor=actor)
    runner.task_start(actor=actor, task=task)
    return Sample({"taskId": task.pk, "reason": "waiting for budget"}, private=[task.title])


@sample("resumeTask")
def resume_task(actor: Any) -> Sample:
    task = TaskFactory(actor=actor)
    runner.task_start(actor=actor, task=task)
    runner.task_pause(actor=actor, task=task)
    return Sample({"taskId": task.pk}, private=[task.title])


@sample("steerTask")
def steer_task(actor: Any) -> Sample:
    task = TaskFactory(actor=actor)
    runner.task_start(actor=actor, task=task)
    return Sample({"taskId": task.pk, "guidance": "Use the formal letterhead."}, private=[task.title])


@sample("rerunTask")
def rerun_task(actor: Any) -> Sample:
    task = TaskFactory(actor=actor, steps=[{"title": "Tell the team", "kind": "notify"}])
    runner.task_start(actor=actor, task=task)
    return Sample({"taskId": task.pk}, private=[task.title])


@sample("skipTaskStep")
def skip_task_step(actor: Any) -> Sample:
    return _step(actor, {"reason": "not needed"}, started=True)


@sample("getTaskSteps")
def get_task_steps(actor: Any) -> Sample:
    return _one(actor)


@sample("getTaskStepDetail")
def get_task_step_detail(actor: Any) -> Sample:
    return _step(actor)


@sample("addTaskStep")
def add_task_step(actor: Any) -> Sample:
    return _one(actor, {"step": {"title": "Check the reply", "labels": ["follow-up"]}})


@sample("removeTaskStep")
def remove_task_step(actor: Any) -> Sample:
    return _step(actor)


@sample("reorderTaskSteps")
def reorder_task_steps(actor: Any) -> Sample:
    task = TaskFactory(actor=actor)
    ids = list(task.steps.order_by("-position").values_list("pk", flat=True))
    return Sample({"taskId": task.pk, "stepIds": ids}, private=[task.title])


@sample("moveTaskStepColumn")
def move_task_step_column(actor: Any) -> Sample:
    return _step(actor, {"column": "In progress"})


@sample("updateTaskStepCard")
def update_task_step_card(actor: Any) -> Sample:
    return _step(actor, {"changes": {"notes": "Use the new address", "labels": ["post"]}})


@sample("updateTaskStepChecklist")
def update_task_step_checklist(actor: Any) -> Sample:
    task = TaskFactory(actor=actor)
    step = task.steps.first()
    item = step.checklist.first()
    return Sample(
        {"taskId": task.pk, "stepId": step.pk, "check": [item.pk], "add": ["date"]}, private=[task.title]
    )


@sample("linkEntityToTaskStep")
def link_entity_to_task_step(actor: Any) -> Sample:
    contact = ContactFactory(actor=actor)
    task = TaskFactory(actor=actor)
    step = task.steps.first()
    return Sample(
        {"taskId": task.pk, "stepId": step.pk, "entityType": "contact", "entityId": contact.pk},
        private=[task.title, contact.first_name],
    )


@sample("listScheduledTasks")
def list_scheduled_tasks(actor: Any) -> Sample:
    sampled = _scheduled(actor)
    return Sample({"limit": 100}, private=sampled.private)


@sample("getScheduledTask")
def get_scheduled_task(actor: Any) -> Sample:
    return _scheduled(actor)


@sample("getScheduledTaskHistory")
def get_scheduled_task_history(actor: Any) -> Sample:
    return _scheduled(actor)


@sample("enableScheduledTask")
def enable_scheduled_task(actor: Any) -> Sample:
    sampled = _scheduled(actor)
    from apps.tasks.models import ScheduledTask

    schedule = ScheduledTask.objects.get(pk=sampled.arguments["scheduledTaskId"])
    schedules.schedule_enable(actor=actor, schedule=schedule, enabled=False)
    return sampled


@sample("disableScheduledTask")
def disable_scheduled_task(actor: Any) -> Sample:
    return _scheduled(actor)


@sample("deleteScheduledTask")
def delete_scheduled_task(actor: Any) -> Sample:
    return _scheduled(actor)


@sample("writeFile")
def write_file(actor: Any) -> Sample:
    task = TaskFactory(actor=actor)
    step = task.steps.first()
    return Sample(
        {"name": "summary.md", "text": "# Summary", "taskId": task.pk, "stepId": step.pk},
        private=[task.title],
    )


@sample("combineFiles")
def combine_files(actor: Any) -> Sample:
    first, second = FileFactory(actor=actor), FileFactory(actor=actor)
    return Sample({"fileIds": [first.pk, second.pk], "name": "both.txt"}, private=[first.name, second.name])


@sample("completeTask")
def complete_task(actor: Any) -> Sample:
    task = TaskFactory(actor=actor)
    runner.task_start(actor=actor, task=task)
    return Sample({"taskId": task.pk, "note": "Done another way"}, private=[task.title])


@sample("archiveTask")
def archive_task(actor: Any) -> Sample:
    return _one(actor)
