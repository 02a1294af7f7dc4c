"""Failures of creating and removing workspaces (apps.core.errors)."""

from django.utils.translation import gettext_lazy as _

from apps.core.errors import ValidationFailed


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
