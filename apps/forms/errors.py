"""The Form Builder's failures (apps.core.errors): each names the problem and what to do next."""

from django.utils.translation import gettext_lazy as _

from apps.core.errors import AppError, Conflict, ValidationFailed


class FormNotOpen(Conflict):
    code = "FORM_NOT_OPEN"
    msg_format = _(
        "Form {id} is {status}: it takes submissions only while published. Publish it with "
        "manageFormTemplate first."
    )


class FormHasNoFields(Conflict):
    code = "FORM_HAS_NO_FIELDS"
    msg_format = _(
        "Form {id} has no field to answer: add fields (addFieldGroup, generateTextFields) before "
        "publishing it."
    )


class FormStateConflict(Conflict):
    code = "FORM_STATE_CONFLICT"
    msg_format = _("Form {id} is {status}; {action} is not possible from there ({hint}).")


class SubmissionLocked(Conflict):
    code = "FORM_SUBMISSION_LOCKED"
    msg_format = _(
        "Submission {id} was locked at {at} (content hash {hash}); a locked submission is read-only."
    )


class FormModelNotConfigured(AppError):
    code = "FORM_MODEL_NOT_CONFIGURED"
    http_status = 503
    msg_format = _(
        "{tool}: no model is configured ({problem}); an administrator sets one in the service's "
        "environment (ATRIUM_GATEWAY_MODEL_BACKEND, ATRIUM_GATEWAY_MODEL_URL, ATRIUM_GATEWAY_MODEL_NAME). "
        "Nothing was charged or changed."
    )


class FormModelNeedsApiKey(AppError):
    code = "FORM_MODEL_NEEDS_API_KEY"
    http_status = 403
    msg_format = _(
        "{tool} calls a model paid from an API key's budget, and this connection has no API key: connect "
        "with a personal access token and an API key. Nothing was changed."
    )


class FormModelCallFailed(AppError):
    code = "FORM_MODEL_CALL_FAILED"
    http_status = 502
    msg_format = _(
        "{tool}: the model gave no usable answer ({problem}); nothing was changed. Try again later."
    )


class SubmissionInvalid(ValidationFailed):
    """A submission its form's version refuses; `details` names each failing field with its problems."""

    code = "FORM_SUBMISSION_INVALID"
    msg_format = _("The answers do not fit version {version} of form {id}: {problems}")


class UploadRefused(ValidationFailed):
    code = "FORM_UPLOAD_REFUSED"
    msg_format = _("{key}: {name!r} was refused: {problem}.")
