from django.utils.translation import gettext_lazy as _

from apps.core.permissions import Level, PermissionEnum, register_permissions


@register_permissions
class ContactsPerm(PermissionEnum):
    VIEW = "contacts.view", Level.READ, _("See contacts, their history, health and linked items")
    CREATE = "contacts.create", Level.WRITE, _("Add contacts")
    EDIT = "contacts.edit", Level.WRITE, _("Change contacts, their health, key contacts and links")
    SHARE = "contacts.share", Level.WRITE, _("Share contacts with other people of the workspace")
    DELETE = "contacts.delete", Level.DELETE, _("Archive and restore contacts")
    MERGE = "contacts.merge", Level.DELETE, _("Merge duplicate contacts")
    TRANSFER = "contacts.transfer", Level.ADMIN, _("Hand contacts over from one owner to another")
    CREDIT_CHECK = "contacts.credit_check", Level.ADMIN, _("Run credit checks on contacts")
    ADMIN = "contacts.admin", Level.ADMIN, _("See and change every contact, private ones included")
