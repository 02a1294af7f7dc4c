from django.utils.translation import gettext_lazy as _

from apps.core.permissions import Level, PermissionEnum, register_permissions


@register_permissions
class ExtensionsPerm(PermissionEnum):
    # The Extension Builder area (SPEC 4.7): extension projects, their bundle uploads and builds.
    VIEW = "extensions.view", Level.READ, _("See extension projects, their builds and validation reports")
    EDIT = (
        "extensions.edit",
        Level.WRITE,
        _("Propose extensions, set their details, upload and validate bundles"),
    )
    # What reaches the workspace's people: a build published for them to open.
    PUBLISH = "extensions.publish", Level.DELETE, _("Publish approved extension builds to the workspace")
    ADMIN = (
        "extensions.admin",
        Level.ADMIN,
        _("See and change every extension project, private ones included"),
    )
