from typing import Any

from django.utils.translation import gettext as _

from apps.core.errors import Conflict, Forbidden, NotFound, ValidationFailed


class TaskNotFound(NotFound):
    def __init__(self, task_id: Any) -> None:
        super().__init__(
            _("Task %(id)s was not found, or you may not see it. listTasks gives the ids.") % {"id": task_id}
        )


class StepNotFound(NotFound):
    def __init__(self, step_id: Any, task_id: Any) -> None:
        super().__init__(
            _("Step %(step)s is not a step of task %(task)s. getTaskSteps lists its steps.")
            % {"step": step_id, "task": task_id}
        )


class ScheduleNotFound(NotFound):
    def __init__(self, schedule_id: Any) -> None:
        super().__init__(
            _("Scheduled task %(id)s was not found, or you may not see it. listScheduledTasks gives the ids.")
            % {"id": schedule_id}
        )


class TaskReadOnly(Forbidden):
    def __init__(self, task_id: Any) -> None:
        super().__init__(
            _(
                "You can see task %(id)s but not change or run it. Ask its owner to share it with you with "
                "edit access."
            )
            % {"id": task_id}
        )


class InvalidTask(ValidationFailed):
    """A value a task, a step or a schedule cannot take; `details` names the field."""

    @classmethod
    def on(cls, field: str, problem: str) -> "InvalidTask":
        return cls(f"{field}: {problem}.", details={field: [problem]})


class WrongState(Conflict):
    """The task is not in a state that allows this (a draft cannot be paused, a template never runs)."""

    code = "WRONG_STATE"
