"""Failures of people, roles and personal access tokens (apps.core.errors)."""

from typing import Any

from django.utils.translation import gettext_lazy as _

from apps.core.errors import AppError, Conflict, Forbidden, NotFound, Unauthenticated, ValidationFailed


class InvalidAccessToken(Unauthenticated):
    """A personal access token that is not one (Unauthenticated's own message)."""


class AccessTokenExpired(Unauthenticated):
    message = _("The access token has expired; create a new one in the workspace settings.")


class AccessTokenRevoked(Unauthenticated):
    message = _("The access token has been revoked.")


class RoleNotAssignable(AppError):
    """The actor may manage people or roles, but not this much."""

    code = "ROLE_NOT_ASSIGNABLE"
    http_status = 403
    message = _("You cannot hand out a role that allows more than your own.")


class LastOwner(Conflict):
    message = _("A workspace keeps at least one active owner.")


class PortalPersonElsewhere(Conflict):
    message = _(
        "This is a client portal user: their access is invited, approved and revoked with the "
        "portal's tools (invitePortalUser, approvePortalUser, revokePortalUser), not as a role."
    )


class CannotDeactivateYourself(Conflict):
    message = _("You cannot deactivate yourself; someone else who manages people can.")


class RoleInUse(Conflict):
    message = _("People still have this role; give them another one first.")


class PersonNotFound(NotFound):
    msg_format = _("Nobody in this workspace has the e-mail address {email} (or that person is deactivated).")


class AlreadyInWorkspace(ValidationFailed):
    message = _("Someone with this e-mail address is already in the workspace.")


class UnknownPermissions(ValidationFailed):
    msg_format = _("Unknown permissions: {codes}")


class RoleNameRequired(ValidationFailed):
    message = _("A role needs a name.")


class RoleNameTaken(ValidationFailed):
    message = _("A role with this name already exists.")


class BuiltInRoleUnchangeable(Forbidden):
    message = _("Built-in roles cannot be changed; create a custom role instead.")


class BuiltInRoleKept(Forbidden):
    message = _("Built-in roles cannot be deleted.")


class TokenNameRequired(ValidationFailed):
    message = _("Give the token a name, so you know later what uses it.")


class TokenNameTooLong(ValidationFailed):
    message = _("Token names are at most 100 characters.")


class ReassignToItself(ValidationFailed):
    field = "reassignTo"
    message = _("Give the role's people another role than the one being deleted.")


class CoreAreaKept(ValidationFailed):
    msg_format = _("{area} is a core area: it is in every workspace and cannot be installed or uninstalled.")


class UnknownArea(ValidationFailed):
    msg_format = _("{area!r} is not an area; the areas to install or uninstall are: {known}.")


class InstallAndUninstall(ValidationFailed):
    msg_format = _("Install or uninstall {areas}, not both at once.")


# --- step-up codes (apps.accounts.otp) --------------------------------------------------------------


class OtpCodeMalformed(ValidationFailed):
    field = "code"
    message = _(
        "A code is 6 digits, from the authenticator app or the e-mail sendOtpCode sent, or one of "
        "the person's recovery codes (10 letters and digits)."
    )


class OtpCodeWrong(AppError):
    """A wrong code: counted towards the lockout even though the call that gave it fails. The
    count is `stands`, run by whoever undid the failed call's own writes (the dispatcher, or a
    page through `apps.accounts.otp.failures_counted`)."""

    code = "OTP_INVALID"
    http_status = 400
    msg_format = _(
        "That code is not right (or it has expired, or was used already); nothing was changed. "
        "{left} more wrong codes in a row lock step-up codes for {minutes} minutes."
    )
    stands: Any = None


class OtpLocked(AppError):
    code = "OTP_LOCKED"
    http_status = 429
    msg_format = _(
        "Too many wrong codes in a row: step-up codes are locked until {until} UTC. No code was "
        "checked; try again after that time."
    )
    # The wrong code that locked them, counted (OtpLockedNow).
    stands: Any = None


class OtpLockedNow(OtpLocked):
    msg_format = _(
        "That code is not right either: after {most} wrong codes in a row, step-up codes are locked "
        "until {until} UTC ({minutes} minutes). Nothing was changed; try again after that time."
    )


class NoOtpCodeWaiting(Conflict):
    code = "OTP_NOT_SENT"
    message = _(
        "No code is waiting to be checked: call sendOtpCode to e-mail one first, or enrol an "
        "authenticator app on your profile page."
    )


class OtpResendTooSoon(AppError):
    code = "OTP_RESEND_LIMIT"
    http_status = 429
    msg_format = _(
        "A code was e-mailed less than {seconds} seconds ago; use that one, or ask for another after "
        "{after} UTC."
    )


class OtpResendTooMany(OtpResendTooSoon):
    msg_format = _(
        "{most} codes were e-mailed within the last hour; use the latest one, or ask for another "
        "after {after} UTC."
    )


class TotpAlreadyEnrolled(Conflict):
    message = _("An authenticator app is already set up; remove it first to set up another.")


class TotpNotEnrolled(Conflict):
    code = "TOTP_NOT_ENROLLED"
    message = _("No authenticator app is set up; set one up on your profile page first.")


class TotpNotStarted(Conflict):
    message = _("Start setting up an authenticator app first (the button on your profile page).")


class StepUpMinutesOutOfRange(ValidationFailed):
    field = "step_up_minutes"
    msg_format = _("A step-up lasts from {least} to {most} minutes.")
