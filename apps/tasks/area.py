"""The Tasks area, as the rest of the service knows it (apps.core.areas)."""

from celery.schedules import crontab
from django.utils.translation import gettext_lazy as _

from apps.core import agents, areas
from apps.core.kinds import Kind
from apps.core.navigation import NavItem
from apps.tasks import agent_steps
from apps.tasks.permissions import TasksPerm

area = areas.declare(
    title=_("Tasks"),
    group=areas.Group.WORK,
    description=_("Work written down as steps on a board, run step by step, on a schedule too"),
    words="task to-do todo job chore errand workflow step checklist card board column template run",
    hints={
        "createTask": "new to-do job chore with steps",
        "listTasks": "my to-dos all tasks open jobs",
        "getTask": "status progress of a task, who it is shared with, what it is waiting on",
        "updateTask": "change a task's title due date priority",
        "addTaskStep": "insert add a new step card to a task",
        "removeTaskStep": "take out drop a step",
        "reorderTaskSteps": "change the order of steps before after first",
        "skipTaskStep": "pass over skip a step go to the next",
        "rerunTask": "run again redo a finished task from a step",
        "startTask": "run kick off begin a task",
        "pauseTask": "hold stop a running task for now",
        "resumeTask": "continue a paused task",
        "steerTask": "guide tell a running task what to focus on guidance",
        "saveTaskAsTemplate": "turn a task into a template reuse for next time",
        "createTaskFromTemplate": "start a new task from a template",
        "copyTaskToNewDraft": "duplicate a task as a new draft",
        "revertTaskToDraft": "back to draft stop and edit",
        "listScheduledTasks": "recurring repeating jobs on a schedule",
        "getScheduledTask": "when a recurring job runs next",
        "getScheduledTaskHistory": "past runs of a recurring job history",
        "enableScheduledTask": "turn a schedule back on reactivate switch on",
        "disableScheduledTask": "turn off switch off a schedule stop it repeating",
        "deleteScheduledTask": "remove a schedule for good",
        "getTaskSteps": "board cards checklist progress of every step",
        "getTaskStepDetail": "one step card in detail, what it is waiting for",
        "moveTaskStepColumn": "move a card to another column on the board",
        "updateTaskStepCard": "notes labels of a step card",
        "updateTaskStepChecklist": "tick check off checklist items",
        "updateTaskInstructions": "instructions for the agent running the task",
        "linkEntityToTaskStep": "attach a contact document record to a step",
        "shareTask": "give a colleague access to a task",
        "writeFile": "save a file a task produced, recorded on the task",
        "combineFiles": "join merge several files into one",
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
        ),
    },
    nav=[NavItem("tasks", _("Tasks"), "tasks:list", TasksPerm.VIEW, order=50)],
    kinds=[Kind("task", "tasks.Task", carries=("file", "document"))],
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
