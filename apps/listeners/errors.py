"""The Listeners area's failures (apps.core.errors): each names the problem and what to do next."""

from django.utils.translation import gettext_lazy as _

from apps.core.errors import AppError, Conflict, ValidationFailed


class FlowStepInvalid(ValidationFailed):
    code = "LISTENER_FLOW_INVALID"
    msg_format = _(
        "Step {step} ({tool}): {field}: {problem}. Nothing was saved; fix the step (getListenerHelp "
        "explains steps, mappings and conditions)."
    )


class ListenerStatus(Conflict):
    code = "LISTENER_STATUS"
    msg_format = _("Listener {id} is {status}: {what}.")


class StepsNotApproved(Conflict):
    code = "LISTENER_STEPS_NOT_APPROVED"
    msg_format = _(
        "Listener {id} has steps that act with a confirmation when a person calls them ({steps}); an "
        "unattended run needs each approved: call activateListener again with approveSteps listing them."
    )


class RunNotCancellable(Conflict):
    code = "LISTENER_RUN_FINISHED"
    msg_format = _("Run {id} is {status}: only a queued or running run is cancelled.")


class RunNotRetryable(Conflict):
    code = "LISTENER_RUN_NOT_RETRYABLE"
    msg_format = _("Run {id} is {status}: {why}.")


class WebhookRefused(AppError):
    code = "LISTENER_WEBHOOK_REFUSED"
    http_status = 401
    msg_format = _("The webhook was refused ({problem}); nothing was run.")
