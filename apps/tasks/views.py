"""The settings pages where people see tasks: the list (tasks, templates, schedules) and a
task's board with its runs and history. What agents do through the tools shows here."""

from typing import Any

from django.http import HttpResponse
from django.shortcuts import render

from apps.accounts.requests import AuthenticatedHttpRequest
from apps.core.pages import READ, chosen, page, paged
from apps.tasks import runner
from apps.tasks.models import ScheduledTask, Task, TaskEvent
from apps.tasks.permissions import TasksPerm
from apps.tasks.shapes import ScheduleOut, board_of, counted_steps, waiting_for

SHOWS = ("tasks", "templates", "scheduled")


@page(TasksPerm.VIEW, methods=READ)
def task_list(request: AuthenticatedHttpRequest) -> HttpResponse:
    show = chosen(request, "show", SHOWS, "tasks")
    status = chosen(request, "status", Task.Status.values)
    context: dict[str, Any] = {
        "nav": "tasks",
        "show": show,
        "shows": SHOWS,
        "status": status,
        "statuses": Task.Status.choices,
    }
    if show == "scheduled":
        schedules = (
            ScheduledTask.objects.restrict(request.user)
            .select_related("task", "created_by")
            .order_by("next_run_at", "id")
        )
        context["schedules"] = [ScheduleOut.of(schedule) for schedule in schedules[:200]]
    else:
        rows = Task.objects.restrict(request.user).filter(is_template=show == "templates")
        if status:
            rows = rows.filter(status=status)
        context |= paged(request, rows.select_related("owner").order_by("-updated_at", "-id"))
    return render(request, "tasks/list.html", context)


@page(methods=READ)
def task_board(request: AuthenticatedHttpRequest, task_id: int) -> HttpResponse:
    task = Task.objects.select_related("owner").fetch(request.user, task_id)
    steps = counted_steps(task)
    schedule = ScheduledTask.objects.filter(task=task).first()
    return render(
        request,
        "tasks/board.html",
        {
            "nav": "tasks",
            "task": task,
            "waiting_for": waiting_for(task, steps),
            "columns": board_of(task, steps),
            "run": runner.current_run(task),
            "runs": task.runs.select_related("started_by")[:20],
            "events": TaskEvent.objects.filter(task=task).select_related("actor", "run")[:100],
            "schedule": ScheduleOut.of(schedule) if schedule else None,
            "schedule_runs": schedule.runs.select_related("task")[:20] if schedule else [],
        },
    )
