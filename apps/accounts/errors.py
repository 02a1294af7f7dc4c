"""Failures of people, roles and personal access tokens (apps.core.errors)."""

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
