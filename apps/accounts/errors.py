from django.utils.translation import gettext_lazy as _

from apps.core.errors import AppError, Conflict, NotFound, Unauthenticated


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


class RoleInUse(Conflict):
    message = _("People still have this role; give them another one first.")


class PersonNotFound(NotFound):
    data_fields = ("email",)
    msg_format = _("Nobody in this workspace has the e-mail address {email} (or that person is deactivated).")
