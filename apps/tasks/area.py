"""The Tasks area, as the rest of the service knows it (apps.core.areas)."""

from celery.schedules import crontab
from django.utils.translation import gettext_lazy as _

from apps.core import agents, areas
from apps.core.kinds import Kind, page
from apps.core.navigation import NavItem
from apps.tasks import agent_steps
from apps.tasks.permissions import TasksPerm

area = areas.declare(
    title=_("Tasks"),
    group=areas.Group.WORK,
    description=_("Work written down as steps on a board, run step by step, on a schedule too"),
    words="task to-do todo job chore errand workflow step checklist card board column template run",
    hints={
        "completeTask": "mark a task as complete, close it off, tick it off, finished with it",
        "archiveTask": "archive, hide a task from the task list, put old tasks away, unarchive",
        "createTask": "new to-do job chore piece of work with steps for people the agent or a notification",
        "listTasks": (
            "my to-dos all tasks open jobs, templates drafts running waiting on me, what tasks do we have"
        ),
        "getTask": (
            "status progress of a task, is it finished done yet, what the agent is doing on it now, who it "
            "is shared with, what it is waiting on, its run and schedule"
        ),
        "updateTask": (
            "change a task's title due date priority, rename it, schedule it to repeat run every day week "
            "month, the api key that pays for the agent"
        ),
        "addTaskStep": (
            "insert add a new step card to a task, a step for a person the agent or that writes a file"
        ),
        "removeTaskStep": "take out drop delete a step",
        "reorderTaskSteps": "change the order of steps, put a step before after another, first last one",
        "skipTaskStep": "pass over skip a step go to the next",
        "rerunTask": "run again redo retry a finished or failed task from a step",
        "startTask": "run kick off begin launch a task",
        "pauseTask": "hold stop a running task for now",
        "resumeTask": "continue carry on with a paused task",
        "steerTask": "guide tell the agent of a running task what to focus on guidance",
        "saveTaskAsTemplate": "turn a task into a template reuse for next time",
        "createTaskFromTemplate": "start a new task from a template, spin up the usual checklist",
        "copyTaskToNewDraft": "duplicate clone a task as a new draft",
        "revertTaskToDraft": "back to draft, stop the run and edit, reset every step",
        "listScheduledTasks": (
            "recurring repeating jobs on a schedule, what runs automatically and when next"
        ),
        "getScheduledTask": "when a recurring job runs next, its repeat rule and time zone, is it on",
        "getScheduledTaskHistory": (
            "past runs of a recurring job history, did it run, why it failed, what the last run produced"
        ),
        "enableScheduledTask": "turn a schedule back on reactivate switch on",
        "disableScheduledTask": "turn off switch off pause a schedule stop it repeating",
        "deleteScheduledTask": "remove a schedule for good",
        "getTaskSteps": "board columns cards checklist progress of every step, which column each step is in",
        "getTaskStepDetail": (
            "one step card in detail, its instructions result checklist linked records, what the agent "
            "wrote replied produced in the step, its output, what it is waiting for"
        ),
        "moveTaskStepColumn": (
            "move a card to another column on the board, in progress, finish a step mark it done, reopen it"
        ),
        "updateTaskStepCard": "notes labels due date assignee of a step card, assign a step to someone",
        "updateTaskStepChecklist": "tick check off add checklist items of a step",
        "updateTaskInstructions": "instructions brief for the people and agent doing the task",
        "linkEntityToTaskStep": "attach link a contact document deal or other record to a step",
        "shareTask": "give a colleague access to a task, let someone see or edit it, make it private",
        "writeFile": "save the output a task produced as a file in our files",
        "combineFiles": "join merge concatenate several files pdfs into one",
    },
    profiles={
        "essentials": ("listTasks", "getTask", "createTask", "updateTask", "startTask"),
        "operations": (
            "listTasks",
            "getTask",
            "createTask",
            "updateTask",
            "createTaskFromTemplate",
            "saveTaskAsTemplate",
            "startTask",
            "getTaskSteps",
            "addTaskStep",
            "updateTaskStepCard",
            "updateTaskStepChecklist",
            "moveTaskStepColumn",
            "shareTask",
            "listScheduledTasks",
            "getScheduledTaskHistory",
            "enableScheduledTask",
            "disableScheduledTask",
        ),
        "people": ("listTasks", "createTask", "getTask"),
        "automation": (
            "combineFiles",
            "copyTaskToNewDraft",
            "deleteScheduledTask",
            "getScheduledTask",
            "getTaskStepDetail",
            "linkEntityToTaskStep",
            "pauseTask",
            "removeTaskStep",
            "reorderTaskSteps",
            "rerunTask",
            "resumeTask",
            "revertTaskToDraft",
            "skipTaskStep",
            "steerTask",
            "updateTaskInstructions",
            "writeFile",
            "listScheduledTasks",
            "enableScheduledTask",
            "disableScheduledTask",
            "getScheduledTaskHistory",
            "createTask",
            "getTask",
            "listTasks",
            "startTask",
            "updateTask",
            "getTaskSteps",
            "addTaskStep",
            "completeTask",
            "archiveTask",
        ),
    },
    nav=[NavItem("tasks", _("Tasks"), "tasks:list", TasksPerm.VIEW, order=50)],
    kinds=[
        Kind(
            "task",
            "tasks.Task",
            carries=("file", "document"),
            url=page("tasks:board", "task_id"),
            search=("title", "description"),
        )
    ],
    not_kinds={"tasks.ScheduledTask": "the schedule of a task (its rule), reached through the task"},
    periodic={
        # Scheduled tasks are rows with a due time (`next_run_at`); this sweeper runs the due
        # ones of every workspace each minute (so a rule fires at most every 15 minutes:
        # apps.tasks.schedules).
        "run-due-scheduled-tasks": areas.Periodic(
            "apps.tasks.tasks.run_due_scheduled_tasks", crontab(minute="*")
        ),
        # Agent steps whose conversation ended without the end reaching the task (a broker that
        # did not answer) are finished by this sweeper (apps.tasks.agent_steps).
        "finish-ended-agent-steps": areas.Periodic(
            "apps.tasks.tasks.finish_ended_agent_steps", crontab(minute="*")
        ),
    },
)

# The end of the agent's work on a step comes back here, whichever door runs the agent.
agents.on_finished(agent_steps.finished)
