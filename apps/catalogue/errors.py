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
