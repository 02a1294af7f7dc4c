"""The catalogue's failures (apps.core.errors): each names the problem and what to do next."""

from django.utils.translation import gettext_lazy as _

from apps.core.errors import AppError, NotFound, ValidationFailed


class SecureInputUnavailable(AppError):
    """A value the person enters themselves, asked on a connection that cannot send them to the
    page for it (apps.catalogue.secure_input)."""

    code = "SECURE_INPUT_UNAVAILABLE"
    http_status = 409
    msg_format = _(
        "This needs a value the person must enter themselves ({label}), and this connection cannot send "
        "them to the page for it. Nothing was done: connect through the MCP endpoint and call the tool "
        "again."
    )


class NoSuchTool(NotFound):
    msg_format = _("No tool named {name!r} is available to you. Use searchTools to find the right name.")


class CallToolItself(ValidationFailed):
    msg_format = _(
        "callTool cannot run {name}: give the name of the tool to run, and its arguments in `arguments`. "
        "Nothing was done."
    )


class OutcomeUnknown(AppError):
    """A change whose commit went to PostgreSQL, and whose answer did not come back (the connection
    was lost at that moment, the server restarting): whether it was saved cannot be told yet, and
    saying "failed, nothing was changed" could be false (apps.catalogue.dispatch, `_run`)."""

    code = "OUTCOME_UNKNOWN"
    http_status = 503
    msg_format = _(
        "{tool} may or may not have been done: the connection to the database was lost while its "
        "change was being saved, and whether it was saved cannot be told yet. Do not simply call it "
        "again: read what it would have changed first (in a few seconds), and repeat it only if the "
        "change is not there."
    )


class SentButNotSaved(AppError):
    """A tool that sent something out of the service (an e-mail, a request to another service) and
    then lost its transaction to a concurrent one: running it again, as a tool that only writes is,
    would send it twice (apps.catalogue.dispatch, `_run`)."""

    code = "SENT_BUT_NOT_SAVED"
    http_status = 409
    msg_format = _(
        "{tool} reached outside the service ({sent}), then its record could not be saved because "
        "another change was saved at the same moment; it was not run again, so that nothing is sent "
        "twice. What was sent may have arrived: check with its recipient before calling {tool} again."
    )


class StepUpRequired(AppError):
    """The workspace asks a fresh step-up code before HIGH RISK tools (apps.accounts.otp), and
    this person, credential and session have none."""

    code = "STEP_UP_REQUIRED"
    http_status = 403
    msg_format = _(
        "{tool} is HIGH RISK, and this workspace requires a fresh step-up code before it runs. Nothing "
        "was done. Ask the user for the 6-digit code of their authenticator app and call checkOtpCode "
        "with it (or call sendOtpCode to e-mail them a code first), then call {tool} again; a code "
        "stays good for {minutes} minutes on this connection."
    )


class StepUpNotOnGateway(StepUpRequired):
    msg_format = _(
        "{tool} is HIGH RISK, and this workspace requires a fresh step-up code before it runs, which "
        "the message gateway cannot take: checkOtpCode and sendOtpCode work over an MCP connection, "
        "where the person gives the code. Nothing was done; tell the user to do this through an MCP "
        "client or in the workspace."
    )
