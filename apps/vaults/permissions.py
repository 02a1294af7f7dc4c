from django.utils.translation import gettext_lazy as _

from apps.core.permissions import Level, PermissionEnum, register_permissions


@register_permissions
class VaultsPerm(PermissionEnum):
    # Credential Vaults (SPEC 4.7): secrets kept encrypted, named to agents by reference only.
    VIEW = "vaults.view", Level.READ, _("See the vault items shared with you, and refer tools to them")
    EDIT = "vaults.edit", Level.WRITE, _("Keep secrets of your own in the vault and share them with roles")
    ADMIN = "vaults.admin", Level.ADMIN, _("See and change every vault item, and keep the workspace's")
