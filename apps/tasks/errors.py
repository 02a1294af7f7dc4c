from django.utils.translation import gettext_lazy as _

from apps.core.errors import Conflict, NotFound, ValidationFailed


class StepNotFound(NotFound):
    data_fields = ("step", "task")
    msg_format = _("Step {step} is not a step of task {task}. getTaskSteps lists its steps.")


class InvalidTask(ValidationFailed):
    """A value a task, a step or a schedule cannot take; `details` names the field."""

    @classmethod
    def on(cls, field: str, problem: str) -> "InvalidTask":
        return cls(f"{field}: {problem}.", details={field: [problem]})


class WrongState(Conflict):
    """The task is not in a state that allows this (a draft cannot be paused, a template never runs)."""

    code = "WRONG_STATE"
