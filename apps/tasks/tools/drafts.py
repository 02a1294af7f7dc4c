"""Drafts and templates: save a task as a template, make tasks of templates, copy, revert."""

from typing import Annotated

from django.utils.translation import gettext as _
from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import tool
from apps.core.errors import invalid
from apps.tasks import runner, selectors, services
from apps.tasks.permissions import TasksPerm
from apps.tasks.shapes import TaskOut, TaskSummary
from apps.tasks.tools.common import ScheduleIn, TaskId, set_schedule, task_of, task_out

NewTitle = Annotated[str | None, Field(max_length=200, description="Default: the source's")]


@tool("saveTaskAsTemplate", permission=TasksPerm.CREATE, title="Save a task as a template")
def save_task_as_template(ctx: ToolContext, *, task_id: TaskId, title: NewTitle = None) -> TaskOut:
    """Save a copy of a task as a template, without runs or due dates; createTaskFromTemplate uses it."""
    source = task_of(ctx, task_id)
    return task_out(ctx, services.task_copy(actor=ctx.actor, source=source, title=title, as_template=True))


@tool("createTaskFromTemplate", permission=TasksPerm.CREATE, title="Create a task from a template")
def create_task_from_template(
    ctx: ToolContext,
    *,
    template_id: Annotated[int, Field(ge=1, description="From listTasks with kind templates")],
    title: NewTitle = None,
    start: Annotated[bool, Field(description="Start at once (default: stay a draft)")] = False,
    schedule: Annotated[ScheduleIn | None, Field(description="Run a copy of it on this rule")] = None,
) -> TaskOut:
    """Create a task from a template. To copy a task: copyTaskToNewDraft."""
    template = task_of(ctx, template_id)
    if not template.is_template:
        raise invalid(
            "template_id",
            _("task {template_id} is not a template (copyTaskToNewDraft copies a task)"),
            template_id=template_id,
        )
    task = services.task_copy(actor=ctx.actor, source=template, title=title)
    set_schedule(ctx, task, schedule)
    if start:
        runner.task_start(actor=ctx.actor, task=task)
    return task_out(ctx, task)


@tool("copyTaskToNewDraft", permission=TasksPerm.CREATE, title="Copy a task to a new draft")
def copy_task_to_new_draft(ctx: ToolContext, *, task_id: TaskId, title: NewTitle = None) -> TaskOut:
    """Copy a task or template into a new draft, without its runs, to change and run separately."""
    source = task_of(ctx, task_id)
    return task_out(ctx, services.task_copy(actor=ctx.actor, source=source, title=title))


@tool("revertTaskToDraft", permission=TasksPerm.EDIT, title="Revert a task to a draft", idempotent=True)
def revert_task_to_draft(ctx: ToolContext, *, task_id: TaskId) -> TaskOut:
    """Take a task back to a draft: its run ends and every step starts over."""
    task = selectors.task_for_change(actor=ctx.actor, task_id=task_id)
    runner.task_revert_to_draft(actor=ctx.actor, task=task)
    return task_out(ctx, task)


@tool("archiveTask", permission=TasksPerm.EDIT, title="Archive a task")
def archive_task(
    ctx: ToolContext,
    *,
    task_id: TaskId,
    archived: Annotated[bool, Field(description="false: take it back out of the archive")] = True,
) -> TaskSummary:
    """Put a task that is not running away, out of listTasks, kept with its history; or bring it back.

    An archived task never runs; a scheduled one's schedule is disabled first (disableScheduledTask)."""
    task = selectors.task_for_change(actor=ctx.actor, task_id=task_id)
    return TaskSummary.of_record(services.task_archive(actor=ctx.actor, task=task, archived=archived))
