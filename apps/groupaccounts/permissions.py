from django.utils.translation import gettext_lazy as _

from apps.core.permissions import Level, PermissionEnum, register_permissions


@register_permissions
class GroupAccountsPerm(PermissionEnum):
    VIEW = "groupaccounts.view", Level.READ, _("See group accounts, their contacts, events and e-mails")
    EDIT = "groupaccounts.edit", Level.WRITE, _("Create and change group accounts and their links")
    DELETE = "groupaccounts.delete", Level.DELETE, _("Archive group accounts and restore them")
    BILLING = "groupaccounts.billing", Level.ADMIN, _("See the workspace's own usage and spend")
