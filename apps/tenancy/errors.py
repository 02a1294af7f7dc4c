"""Failures of creating and removing workspaces (apps.core.errors)."""

from django.utils.translation import gettext_lazy as _

from apps.core.errors import RETRY_AFTER_SECONDS, NotFound, ServiceUnavailable, ValidationFailed


class NotAHostName(ValidationFailed):
    msg_format = _("{domain} is not a valid host name.")


class NoDomain(ValidationFailed):
    message = _("A workspace needs at least one domain.")


class DomainsInUse(ValidationFailed):
    msg_format = _("Already in use: {domains}")


class NoName(ValidationFailed):
    message = _("A workspace needs a name.")


class OwnerEmailInvalid(ValidationFailed):
    message = _("The owner's e-mail address is not valid.")


class SchemaNameInvalid(ValidationFailed):
    msg_format = _("{schema} cannot be a schema name (lower-case letters, digits and _).")


class SchemaTaken(ValidationFailed):
    msg_format = _("A workspace with the schema {schema} already exists.")


class PublicSchemaKept(ValidationFailed):
    message = _("The public schema cannot be deleted.")


class ServerUnknown(ValidationFailed):
    msg_format = _("{server} is not a database server of this installation.")


class NoSuchWorkspace(NotFound):
    msg_format = _("There is no workspace with the schema {schema}.")


class AlreadyOnServer(ValidationFailed):
    msg_format = _("The workspace {schema} is on {server} already.")


class MovingElsewhere(ValidationFailed):
    msg_format = _("The workspace {schema} is being moved to {server}; finish that move first.")


class WorkspaceMoving(ServiceUnavailable):
    """Its doors' answer while a workspace is moved between database servers (apps.tenancy.moving)."""

    message = _("This workspace is being moved; try again shortly.")
    default_headers = {"Retry-After": str(RETRY_AFTER_SECONDS)}
