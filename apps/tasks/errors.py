"""The Tasks area's failures (apps.core.errors): each names the problem and what to do next."""

from django.utils.translation import gettext_lazy as _

from apps.core.errors import Conflict, NotFound


class StepNotFound(NotFound):
    msg_format = _("Step {step} is not a step of task {task}. getTaskSteps lists its steps.")


class WrongState(Conflict):
    """The task is not in a state that allows this (a draft cannot be paused, a template never runs)."""

    code = "WRONG_STATE"


class TemplateNotRun(WrongState):
    msg_format = _(
        "Task {id} is a template: templates are not run. createTaskFromTemplate makes a task of it."
    )


class NotADraft(WrongState):
    """`hint`: what to call instead, for the task's state."""

    msg_format = _("Task {id} is {status}, not a draft: {hint}.")


class AlreadyDraft(WrongState):
    msg_format = _("Task {id} is a draft already.")


class BoardLocked(WrongState):
    msg_format = _("The board of task {id} can change only while it is a draft (revertTaskToDraft).")


class NotRunning(WrongState):
    msg_format = _("Task {id} is {status}; only a running task can be paused.")


class NotPaused(WrongState):
    msg_format = _("Task {id} is {status}, not paused.")


class NotSteerable(WrongState):
    msg_format = _(
        "Task {id} is {status}: steering guides a task while it runs. To change what a draft will do, use "
        "updateTaskInstructions; to run a finished one again, rerunTask."
    )


class NotRerunnable(WrongState):
    msg_format = _(
        "Task {id} is {status}: only a completed or failed task runs again (startTask starts a draft)."
    )


class AlreadyCompleted(WrongState):
    msg_format = _("Task {id} is completed already; rerunTask runs it again.")


class TaskArchived(WrongState):
    msg_format = _("Task {id} is archived: archiveTask with archived false brings it back first.")


class AlreadyArchived(WrongState):
    msg_format = _("Task {id} is archived already; archiveTask with archived false brings it back.")


class NotArchived(WrongState):
    msg_format = _("Task {id} is not archived.")


class ArchiveActive(WrongState):
    msg_format = _(
        "Task {id} is {status}: complete it (completeTask) or revert it to a draft (revertTaskToDraft) "
        "before archiving it."
    )


class ArchiveScheduled(WrongState):
    msg_format = _(
        "Task {id} runs on a schedule: disable it first (disableScheduledTask), so that an archived task "
        "never runs."
    )


class TaskCompleted(WrongState):
    msg_format = _("Task {id} is completed, so its steps stay done; rerunTask runs it again from a step.")


class LastStep(WrongState):
    msg_format = _("Step {id} is the last step of a task that has run; revert it to a draft first.")


class StepFailed(WrongState):
    msg_format = _("Step {id} failed; rerunTask runs it again.")


class StepStarted(WrongState):
    msg_format = _("Step {id} has started; its kind cannot change now.")


class StepFinished(WrongState):
    msg_format = _("Step {id} is {status} already.")


class NoMoreOccurrences(WrongState):
    msg_format = _("Scheduled task {id} has no more occurrences; give the task a new rule with updateTask.")
