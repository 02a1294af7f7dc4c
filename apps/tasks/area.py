"""The Tasks area, as the rest of the service knows it (apps.core.areas)."""

from celery.schedules import crontab
from django.utils.translation import gettext_lazy as _

from apps.core import areas
from apps.core.kinds import Kind
from apps.core.navigation import NavItem
from apps.tasks.permissions import TasksPerm

area = areas.declare(
    title=_("Tasks"),
    description=_("Work written down as steps on a board, run step by step, on a schedule too"),
    words="task to-do todo job chore errand workflow step checklist card board column template run",
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
        # did not answer) are finished by this sweeper (apps.tasks.agents).
        "finish-ended-agent-steps": areas.Periodic(
            "apps.tasks.tasks.finish_ended_agent_steps", crontab(minute="*")
        ),
    },
)
