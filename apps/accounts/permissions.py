from django.utils.translation import gettext_lazy as _

from apps.core.permissions import Level, PermissionEnum, register_area, register_permissions

register_area("people", _("People"), _("Who belongs to the workspace"), core=True)
register_area("roles", _("Roles"), _("What each role may do"), core=True)
register_area("workspace", _("Workspace"), _("The workspace's own settings"), core=True)


@register_permissions
class PeoplePerm(PermissionEnum):
    VIEW = "people.view", Level.READ, _("See who is in the workspace")
    MANAGE = "people.manage", Level.ADMIN, _("Add people, change their roles, deactivate them")


@register_permissions
class RolesPerm(PermissionEnum):
    VIEW = "roles.view", Level.READ, _("See the roles and what they allow")
    MANAGE = "roles.manage", Level.ADMIN, _("Create, change and delete custom roles")


@register_permissions
class WorkspacePerm(PermissionEnum):
    MANAGE = "workspace.manage", Level.ADMIN, _("Change the workspace's settings")
    OWN = "workspace.own", Level.OWNER, _("Hand out the owner role; act as the workspace's owner")
