"""Writes about tasks: creating and changing them, their steps, board, checklists, links and
sharing, copies and templates. Running them is apps.tasks.runner; schedules apps.tasks.schedules.

Each function checks the actor's permission and access itself (every door goes through here),
records what happened in the task's history (which tells the task's watchers), and logs ids only.
"""

import logging
from collections.abc import Container
from datetime import datetime
from typing import Any

from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.accounts.models import User, person
from apps.catalogue.kit import shared_state
from apps.catalogue.shapes import aware
from apps.core import clean, search, spending
from apps.core.actors import Actor, can
from apps.core.errors import invalid
from apps.core.kinds import Entity
from apps.core.records import derived_visibility
from apps.core.spending import KeyInfo
from apps.notifications import api as notifications
from apps.tasks import errors, runner, selectors
from apps.tasks.models import (
    ChecklistItem,
    ScheduledTask,
    Task,
    TaskColumn,
    TaskEvent,
    TaskStep,
    TaskStepLink,
)
from apps.tasks.permissions import TasksPerm
from apps.tasks.runner import record, require

logger = logging.getLogger(__name__)

DEFAULT_COLUMNS = ("To do", "In progress", "Done")
MAX_STEPS = 100
MAX_CHECKLIST = 50
MAX_LINKS = 20
TASK_FIELDS = {"title", "description", "priority", "due_at", "visibility"}
CARD_FIELDS = {
    "title",
    "instructions",
    "kind",
    "notes",
    "labels",
    "due_at",
    "assignee_email",
    "notify_emails",
    "file",
}
# What a copy (or a template) takes of its source as it is.
COPIED_TASK_FIELDS = ("description", "instructions", "priority")
COPIED_STEP_FIELDS = ("position", "title", "instructions", "kind", "config", "notes", "labels", "assignee")


def _person_who_may_see_tasks(email: str, field: str, task: Task | None = None) -> User:
    """A person a step is given to or tells: one who may see tasks, and this task when it is
    saved (a private one's steps would otherwise carry its title and words to them)."""
    person = clean.person_by_email(email)
    if not can(person, TasksPerm.VIEW):
        raise invalid(field, _("{email} may not see tasks"), email=person.email)
    if task is not None and task.pk and not selectors.sees(person, task):
        raise invalid(
            field,
            _("{email} may not see this task: share it with them first (shareTask)"),
            email=person.email,
        )
    return person


def _record_changed(task: Task, actor: Actor, kind: str, names: Any, **extra: Any) -> None:
    """Keeps a change of some fields in the task's history, naming the fields."""
    record(task, actor, kind, _("changed %(fields)s") % {"fields": ", ".join(sorted(names))}, **extra)


def _clean_labels(labels: list[str] | None) -> list[str]:
    cleaned: list[str] = []
    for label in labels or []:
        label = search.kept(label)[:40]
        if label and label not in cleaned:
            cleaned.append(label)
    return cleaned[:20]


# --- tasks ----------------------------------------------------------------------------------------


def _agent_key(actor: Actor, owner: Any, key_id: int | None, current_id: int | None = None) -> KeyInfo | None:
    """The API key whose budget pays for a task's agent steps: an active key of the task's owner,
    chosen by the owner (it is their money); None clears it. Keeping the key it has is allowed to
    whoever may change the task (it hands a waiting agent step over again)."""
    if key_id is None:
        return None
    field = "agent_key_id"
    if owner is None:
        raise invalid(field, _("the task has no owner, so no API key can pay for its agent steps"))
    if key_id != current_id and getattr(actor, "pk", None) != owner.pk:
        raise invalid(
            field,
            _("only the task's owner ({email}) chooses which of their API keys pays for its agent steps"),
            email=owner.email,
        )
    key = spending.keys().key_of(key_id=key_id, owner_id=owner.pk)
    if key is None:
        # Another person's key says nothing more about itself than that it is not the owner's.
        raise invalid(
            field,
            _(
                "API key {id} is not one of the task owner's keys; the agent's steps are paid by a key "
                "of the task's owner (Settings → API keys, or GET /api/api-keys, lists them)"
            ),
            id=key_id,
        )
    if not key.active:
        raise invalid(
            field,
            _("API key {id} (“{label}”) is revoked; choose an active key"),
            id=key.id,
            label=key.label,
        )
    return key


def _clean_columns(names: list[str]) -> list[str]:
    cleaned = [" ".join(name.split()) for name in names]
    if len(cleaned) < 2 or any(not name for name in cleaned):
        raise invalid("columns", _("give at least two named columns; the last is where finished steps go"))
    lowered = [name.lower() for name in cleaned]
    if len(set(lowered)) != len(lowered):
        raise invalid("columns", _("each column name once"))
    return cleaned


def _new_task(actor: Actor, fields: dict[str, Any], is_template: bool) -> Task:
    """The task `fields` make, cleaned and checked, not saved yet."""
    agent_key = _agent_key(actor, actor, fields.get("agent_key_id"))
    return Task(
        title=clean.long_text(fields.get("title"), field="title", limit=200, required=True),
        description=clean.long_text(fields.get("description"), field="description", limit=10_000),
        instructions=clean.long_text(fields.get("instructions"), field="instructions", limit=20_000),
        priority=fields.get("priority") or Task.Priority.NORMAL,
        due_at=aware(fields.get("due_at")),
        visibility=fields.get("visibility") or Task.Visibility.WORKSPACE,
        is_template=is_template,
        owner=person(actor),
        created_by=person(actor),
        agent_key_id=agent_key.id if agent_key else None,
    )


def task_check(*, actor: Actor, fields: dict[str, Any]) -> None:
    """Refuses the fields `task_create` would refuse, writing nothing (an imported row's check)."""
    require(actor, TasksPerm.CREATE)
    _new_task(actor, fields, False)


def task_create(
    *,
    actor: Actor,
    fields: dict[str, Any],
    steps: list[dict[str, Any]] | None = None,
    columns: list[str] | None = None,
    is_template: bool = False,
) -> Task:
    require(actor, TasksPerm.CREATE)
    task = _new_task(actor, fields, is_template)
    task.save()
    TaskColumn.objects.bulk_create(
        [
            TaskColumn(task=task, name=name, position=i)
            for i, name in enumerate(_clean_columns(list(columns or DEFAULT_COLUMNS)))
        ]
    )
    for step in steps or []:
        _step_create(actor, task, step)
    record(task, actor, TaskEvent.Kind.CREATED, _("template created") if is_template else _("created"))
    notifications.watch(user=actor, entity=task, added_by=actor)
    logger.info("task %s created by %s", task.pk, actor.pk)
    return task


def task_update(*, actor: Actor, task: Task, fields: dict[str, Any]) -> tuple[Task, list[str]]:
    """Changes the given fields (and, for a draft, the board's columns); returns what changed.
    `agent_key_id` (given, even unchanged) also hands an agent step that waits for a key over
    again."""
    require(actor, TasksPerm.EDIT)
    task = selectors.task_for_change(actor=actor, task_id=task.pk)
    changes: dict[str, list[Any]] = {}
    for name in TASK_FIELDS & set(fields):
        value = aware(fields[name]) if name == "due_at" else fields[name]
        if name in ("title", "description"):
            value = clean.long_text(
                value, field=name, limit=200 if name == "title" else 10_000, required=name == "title"
            )
        elif name in ("priority", "visibility") and value is None:
            value = Task.Priority.NORMAL if name == "priority" else Task.Visibility.WORKSPACE
        before = getattr(task, name)
        if before != value:
            changes[name] = [
                str(before) if before is not None else None,
                str(value) if value is not None else None,
            ]
            setattr(task, name, value)
    if "agent_key_id" in fields:
        key = _agent_key(actor, task.owner, fields["agent_key_id"], task.agent_key_id)
        if task.agent_key_id != (key.id if key else None):
            changes["agent_key_id"] = [task.agent_key_id, key.id if key else None]
            task.agent_key_id = key.id if key else None
    if changes:
        task.save()
    if fields.get("columns") is not None:
        renamed = _columns_set(task, fields["columns"])
        if renamed:
            changes["columns"] = renamed
    if changes:
        _record_changed(task, actor, TaskEvent.Kind.UPDATED, changes, data=changes)
    if "agent_key_id" in fields:
        runner.agent_retry(task=task, actor=actor)
    return task, sorted(changes)


def _columns_set(task: Task, names: list[str]) -> list[Any]:
    """A new board for a draft: columns kept by name keep their steps; the steps of columns that go
    move to the first column."""
    if task.status != Task.Status.DRAFT:
        raise errors.BoardLocked(id=task.pk)
    names = _clean_columns(names)
    existing = {column.name.lower(): column for column in runner.columns_of(task)}
    before = [column.name for column in existing.values()]
    if [name.lower() for name in names] == list(existing):
        return []
    kept = []
    for position, name in enumerate(names):
        column = existing.pop(name.lower(), None) or TaskColumn(task=task)
        column.name, column.position = name, position + 1000  # out of the way of the unique names
        column.save()
        kept.append(column)
    first = kept[0]
    TaskStep.objects.filter(task=task, column__in=list(existing.values())).update(column=first)
    TaskColumn.objects.filter(pk__in=[column.pk for column in existing.values()]).delete()
    for position, column in enumerate(kept):
        TaskColumn.objects.filter(pk=column.pk).update(position=position)
    return [before, names]


def task_set_instructions(*, actor: Actor, task: Task, instructions: str, append: bool = False) -> Task:
    require(actor, TasksPerm.EDIT)
    task = selectors.task_for_change(actor=actor, task_id=task.pk)
    text = instructions.strip()
    if append:
        text = f"{task.instructions}\n\n{text}".strip() if task.instructions else text
    if len(text) > 20_000:
        raise invalid("instructions", _("at most 20000 characters in all"))
    before = task.instructions
    task.instructions = text
    task.save(update_fields=["instructions", "updated_at"])
    record(
        task,
        actor,
        TaskEvent.Kind.INSTRUCTIONS_UPDATED,
        _("instructions appended") if append else _("instructions replaced"),
        data={"before": before[:2000]},
    )
    return task


def task_archive(*, actor: Actor, task: Task, archived: bool = True) -> Task:
    """Puts a task away, kept with its history and readable, left out of listTasks unless asked
    for (`archived`), or takes it back out. An archived task never runs: an active one is completed
    or reverted first, and a scheduled one's schedule disabled."""
    require(actor, TasksPerm.EDIT)
    if archived and task.archived_at is not None:
        raise errors.AlreadyArchived(id=task.pk)
    if not archived and task.archived_at is None:
        raise errors.NotArchived(id=task.pk)
    if archived and task.is_active:
        raise errors.ArchiveActive(id=task.pk, status=task.status)
    if archived and ScheduledTask.objects.filter(task=task, enabled=True).exists():
        raise errors.ArchiveScheduled(id=task.pk)
    task.archived_at = timezone.now() if archived else None
    task.save(update_fields=["archived_at", "updated_at"])
    record(task, actor, TaskEvent.Kind.ARCHIVED if archived else TaskEvent.Kind.UNARCHIVED)
    logger.info("task %s %s by %s", task.pk, "archived" if archived else "unarchived", actor.pk)
    return task


def task_shared(actor: Any, task: Task, before: Any) -> None:
    """Keeps a change of who may see a task in its history (shareTask: apps.catalogue.kit)."""
    # People by id: the history stays free of addresses.
    after = shared_state(task)
    record(task, actor, TaskEvent.Kind.SHARED, _("sharing changed"), data={"before": before, "after": after})


# --- copies and templates -------------------------------------------------------------------------


def task_copy(
    *,
    actor: Actor,
    source: Task,
    title: str | None = None,
    as_template: bool = False,
    due_at: datetime | None = None,
) -> Task:
    """A new draft (or template) with the source's text, board, steps, cards, checklists (unticked)
    and links, no more visible than the source (`derived_visibility`); nothing of its runs. Due
    when the source is, or at `due_at` (a scheduled copy: as far after its occurrence)."""
    require(actor, TasksPerm.CREATE)
    # The key pays for its owner's tasks only: a copy someone else owns has none.
    key = spending.keys().key_of(key_id=source.agent_key_id) if source.agent_key_id else None
    mine = key is not None and key.active and key.owner_id == getattr(actor, "pk", None)
    copy = Task.objects.create(
        **{name: getattr(source, name) for name in COPIED_TASK_FIELDS},
        title=(title or source.title).strip()[:200] or source.title,
        due_at=None if as_template else (due_at or source.due_at),
        is_template=as_template,
        template=source if source.is_template and not as_template else source.template,
        copied_from=source,
        visibility=derived_visibility(source),
        owner=person(actor),
        created_by=person(actor),
        agent_key_id=key.id if key and mine else None,
    )
    columns = {}
    for column in runner.columns_of(source):
        columns[column.pk] = TaskColumn.objects.create(task=copy, name=column.name, position=column.position)
    first = next(iter(columns.values()))
    for step in selectors.steps_of(source).prefetch_related("checklist", "links"):
        new = TaskStep.objects.create(
            **{name: getattr(step, name) for name in COPIED_STEP_FIELDS},
            task=copy,
            column=first,
            due_at=None if as_template else step.due_at,
        )
        ChecklistItem.objects.bulk_create(
            [ChecklistItem(step=new, position=item.position, text=item.text) for item in step.checklist.all()]
        )
        TaskStepLink.objects.bulk_create(
            [
                TaskStepLink(
                    step=new,
                    content_type_id=link.content_type_id,
                    object_id=link.object_id,
                    entity_title=link.entity_title,
                    linked_by=person(actor),
                )
                for link in step.links.all()
            ]
        )
    kind = _("template") if as_template else _("draft")
    record(
        copy,
        actor,
        TaskEvent.Kind.CREATED,
        _("%(kind)s copied from task %(id)s") % {"kind": kind, "id": source.pk},
    )
    notifications.watch(user=actor, entity=copy, added_by=actor)
    logger.info("task %s copied to %s by %s", source.pk, copy.pk, getattr(actor, "pk", None))
    return copy


# --- steps ----------------------------------------------------------------------------------------


def _clean_step(
    actor: Actor, task: Task, fields: dict[str, Any], step: TaskStep | None = None
) -> dict[str, Any]:
    cleaned: dict[str, Any] = {}
    for name, limit in (("title", 200), ("instructions", 10_000), ("notes", 10_000)):
        if name in fields:
            cleaned[name] = clean.long_text(
                fields.get(name), field=name, limit=limit, required=name == "title"
            )
    if "labels" in fields:
        cleaned["labels"] = _clean_labels(fields["labels"])
    if "due_at" in fields:
        cleaned["due_at"] = aware(fields["due_at"])
    if "kind" in fields:
        cleaned["kind"] = fields["kind"] or TaskStep.Kind.MANUAL
    if "assignee_email" in fields:
        email = fields["assignee_email"]
        cleaned["assignee"] = _person_who_may_see_tasks(email, "assignee_email", task) if email else None
    kind = cleaned.get("kind", step.kind if step else TaskStep.Kind.MANUAL)
    config = dict(step.config) if step else {}
    if "notify_emails" in fields:
        emails = fields["notify_emails"] or []
        config["recipients"] = [
            _person_who_may_see_tasks(email, "notify_emails", task).pk for email in emails
        ]
    if "file" in fields:
        from apps.tasks import files

        if fields["file"] is None:
            config.pop("file", None)
        else:
            config["file"] = files.clean_step_file(fields["file"])
    if kind == TaskStep.Kind.WRITE_FILE and not config.get("file"):
        raise invalid("file", _("a write_file step needs the file to write (its name and text)"))
    if config != (step.config if step else {}):
        cleaned["config"] = config
    return cleaned


def _step_create(actor: Actor, task: Task, fields: dict[str, Any], position: int | None = None) -> TaskStep:
    if task.steps.count() >= MAX_STEPS:
        raise invalid("steps", _("a task has at most {n} steps"), n=MAX_STEPS)
    cleaned = _clean_step(actor, task, fields)
    column = _column_named(task, fields["column"]) if fields.get("column") else runner.first_column(task)
    steps = list(selectors.steps_of(task))
    index = len(steps) if position is None else max(0, min(position - 1, len(steps)))
    step = TaskStep(task=task, column=column, position=index, **cleaned)
    if column.pk == runner.done_column(task).pk:
        raise invalid("column", _("a new step cannot start in “{done}”"), done=column.name)
    step.save()
    steps.insert(index, step)
    _renumber(steps)
    items = [text.strip()[:300] for text in fields.get("checklist") or [] if text.strip()]
    if len(items) > MAX_CHECKLIST:
        raise invalid("checklist", _("at most {n} items"), n=MAX_CHECKLIST)
    ChecklistItem.objects.bulk_create(
        [ChecklistItem(step=step, position=i, text=text) for i, text in enumerate(items)]
    )
    return step


def _renumber(steps: list[TaskStep]) -> None:
    for position, step in enumerate(steps):
        step.position = position
    TaskStep.objects.bulk_update(steps, ["position"])


def _column_named(task: Task, name: str) -> TaskColumn:
    columns = runner.columns_of(task)
    wanted = " ".join(name.split()).lower()
    column = next((column for column in columns if column.name.lower() == wanted), None)
    if column is None:
        raise invalid(
            "column",
            _("task {id} has no column {name!r}; its columns are {names}"),
            id=task.pk,
            name=name,
            names=", ".join(f"“{c.name}”" for c in columns),
        )
    return column


def step_add(*, actor: Actor, task: Task, fields: dict[str, Any], position: int | None = None) -> TaskStep:
    require(actor, TasksPerm.EDIT)
    task = selectors.task_for_change(actor=actor, task_id=task.pk)
    step = _step_create(actor, task, fields, position)
    record(
        task, actor, TaskEvent.Kind.STEP_ADDED, _("at position %(n)s") % {"n": step.position + 1}, step=step
    )
    runner.advance(task=task, actor=actor)
    return step


def step_remove(*, actor: Actor, task: Task, step: TaskStep) -> None:
    require(actor, TasksPerm.EDIT)
    task = selectors.task_for_change(actor=actor, task_id=task.pk)
    if task.steps.count() == 1 and task.status != Task.Status.DRAFT:
        raise errors.LastStep(id=step.pk)
    title = step.title
    record(task, actor, TaskEvent.Kind.STEP_REMOVED, title, step=step, data={"step_id": step.pk})
    step.delete()
    _renumber(list(selectors.steps_of(task)))
    runner.advance(task=task, actor=actor)


def _check_known(named: list[int], known: Container[int], *, field: str, problem: Any, id: int) -> None:
    """`problem` (naming the parent's `id` and the unknown `ids`) about `field`, unless every id
    `named` is `known`."""
    unknown = [pk for pk in named if pk not in known]
    if unknown:
        raise invalid(field, problem, id=id, ids=", ".join(map(str, unknown)))


def steps_reorder(*, actor: Actor, task: Task, step_ids: list[int]) -> list[TaskStep]:
    require(actor, TasksPerm.EDIT)
    task = selectors.task_for_change(actor=actor, task_id=task.pk)
    steps = {step.pk: step for step in selectors.steps_of(task)}
    _check_known(step_ids, steps, field="step_ids", problem=_("not steps of task {id}: {ids}"), id=task.pk)
    if len(set(step_ids)) != len(step_ids) or set(step_ids) != set(steps):
        raise invalid("step_ids", _("name every step of the task once (it has {n})"), n=len(steps))
    ordered = [steps[pk] for pk in step_ids]
    _renumber(ordered)
    record(task, actor, TaskEvent.Kind.STEPS_REORDERED, data={"order": step_ids})
    runner.advance(task=task, actor=actor)
    return ordered


def step_move(*, actor: Actor, task: Task, step: TaskStep, column_name: str) -> TaskStep:
    """Moves a step's card to another column. Into the last column: the step is done (the run
    goes on); into a middle column: in progress; out of the last column: reopened."""
    require(actor, TasksPerm.EDIT)
    task = selectors.task_for_change(actor=actor, task_id=task.pk)
    step = selectors.step_get(task=task, step_id=step.pk)
    column = _column_named(task, column_name)
    if column.pk == step.column_id:
        return step
    before = step.column.name
    done = runner.done_column(task)
    if column.pk == done.pk:
        if step.status == TaskStep.Status.FAILED:
            raise errors.StepFailed(id=step.pk)
        runner.step_finish(task=task, step=step, actor=actor, message=_("done"))
        return step
    if step.is_finished:
        runner.step_reopen(actor=actor, task=task, step=step, column=column)
    elif column.pk != runner.first_column(task).pk and step.status in (
        TaskStep.Status.PENDING,
        TaskStep.Status.WAITING,
    ):
        step.status = TaskStep.Status.IN_PROGRESS
        step.started_at = step.started_at or timezone.now()
    step.column = column
    step.save(update_fields=["column", "status", "started_at"])
    record(
        task,
        actor,
        TaskEvent.Kind.STEP_MOVED,
        f"{before} → {column.name}",
        step=step,
        data={"from": before, "to": column.name},
    )
    runner.advance(task=task, actor=actor)
    return step


def step_update_card(
    *, actor: Actor, task: Task, step: TaskStep, fields: dict[str, Any]
) -> tuple[TaskStep, list[str]]:
    require(actor, TasksPerm.EDIT)
    task = selectors.task_for_change(actor=actor, task_id=task.pk)
    step = selectors.step_get(task=task, step_id=step.pk)
    if "kind" in fields and step.status != TaskStep.Status.PENDING and fields["kind"] != step.kind:
        raise errors.StepStarted(id=step.pk)
    cleaned = _clean_step(actor, task, fields, step)
    changed = []
    for name, value in cleaned.items():
        if getattr(step, name) != value:
            setattr(step, name, value)
            changed.append("assignee_email" if name == "assignee" else name)
    if changed:
        step.save()
        _record_changed(task, actor, TaskEvent.Kind.CARD_UPDATED, changed, step=step)
    return step, sorted(changed)


def checklist_update(
    *,
    actor: Actor,
    task: Task,
    step: TaskStep,
    add: list[str],
    check: list[int],
    uncheck: list[int],
    remove: list[int],
) -> list[ChecklistItem]:
    require(actor, TasksPerm.EDIT)
    task = selectors.task_for_change(actor=actor, task_id=task.pk)
    step = selectors.step_get(task=task, step_id=step.pk)
    items = {item.pk: item for item in step.checklist.all()}
    named = [*check, *uncheck, *remove]
    _check_known(
        named, items, field="items", problem=_("not items of step {id}'s checklist: {ids}"), id=step.pk
    )
    if len(set(named)) != len(named):
        raise invalid("items", _("each item in one list only"))
    now = timezone.now()
    for pk in check:
        if not items[pk].done:
            items[pk].done, items[pk].done_by, items[pk].done_at = True, person(actor), now
            items[pk].save(update_fields=["done", "done_by", "done_at"])
    for pk in uncheck:
        if items[pk].done:
            items[pk].done, items[pk].done_by, items[pk].done_at = False, None, None
            items[pk].save(update_fields=["done", "done_by", "done_at"])
    ChecklistItem.objects.filter(pk__in=remove).delete()
    texts = [text.strip()[:300] for text in add if text.strip()]
    if len(items) - len(remove) + len(texts) > MAX_CHECKLIST:
        raise invalid("add", _("a checklist has at most {n} items"), n=MAX_CHECKLIST)
    last = step.checklist.aggregate(last=Max("position"))["last"]
    start = 0 if last is None else last + 1
    ChecklistItem.objects.bulk_create(
        [ChecklistItem(step=step, position=start + i, text=text) for i, text in enumerate(texts)]
    )
    summary = ", ".join(
        part
        for part in (
            _("%(n)s added") % {"n": len(texts)} if texts else "",
            _("%(n)s ticked") % {"n": len(check)} if check else "",
            _("%(n)s unticked") % {"n": len(uncheck)} if uncheck else "",
            _("%(n)s removed") % {"n": len(remove)} if remove else "",
        )
        if part
    )
    if summary:
        record(task, actor, TaskEvent.Kind.CHECKLIST_UPDATED, summary, step=step)
    return list(step.checklist.all())


def step_link(*, actor: Actor, task: Task, step: TaskStep, entity: Entity, remove: bool = False) -> bool:
    """Links (or unlinks) a record of any area to a step; True when something changed."""
    require(actor, TasksPerm.EDIT)
    task = selectors.task_for_change(actor=actor, task_id=task.pk)
    step = selectors.step_get(task=task, step_id=step.pk)
    content_type = entity.kind.content_type()
    existing = TaskStepLink.objects.filter(step=step, content_type=content_type, object_id=entity.id).first()
    # The record's title stays out of the history: it may name a person.
    label = f"{entity.type} {entity.id}"
    if remove:
        if existing is None:
            return False
        existing.delete()
        record(
            task,
            actor,
            TaskEvent.Kind.UNLINKED,
            label,
            step=step,
            data={"type": entity.type, "id": entity.id},
        )
        return True
    if existing is not None:
        return False
    if step.links.count() >= MAX_LINKS:
        raise invalid("entity_id", _("a step links at most {n} records"), n=MAX_LINKS)
    link = TaskStepLink(step=step, linked_by=person(actor))
    link.link_to(entity)
    link.save()
    record(task, actor, TaskEvent.Kind.LINKED, label, step=step, data={"type": entity.type, "id": entity.id})
    return True
