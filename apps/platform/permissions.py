from django.utils.translation import gettext_lazy as _

from apps.core.permissions import Level, PermissionEnum, register_permissions


@register_permissions
class PlatformPerm(PermissionEnum):
    VIEW = (
        "platform.view",
        Level.READ,
        _("Read the workspace, its people and roles, one's API keys; look up reference data"),
    )
    IMPORT = (
        "platform.import",
        Level.WRITE,
        _("Import records from files (each row also needs the area's own permission to create it)"),
    )
    INTEGRATE = (
        "platform.integrate",
        Level.WRITE,
        _("Call the workspace's stored APIs, and connect one's own accounts at other services"),
    )
    FIELDS = (
        "platform.fields",
        Level.WRITE,
        _("Set custom field values on the records one may change (setCustomFieldValues)"),
    )
    ADMIN = (
        "platform.admin",
        Level.ADMIN,
        _(
            "Administer the workspace through tools: invite people, change roles, deactivate people "
            "(each also needs people.manage or roles.manage)"
        ),
    )
    PORTAL_REQUEST = (
        "platform.portal_request",
        Level.WRITE,
        _("See the client portal's users; ask for a contact to be invited (an admin approves)"),
    )
    PORTAL = (
        "platform.portal",
        Level.ADMIN,
        _("Invite contacts to the client portal, approve requests, revoke portal users"),
    )
    AUDIT = (
        "platform.audit",
        Level.ADMIN,
        _("Read everyone's activity: the tool calls and record changes of every person (searchActivityLog)"),
    )
