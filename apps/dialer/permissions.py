from django.utils.translation import gettext_lazy as _

from apps.core.permissions import Level, PermissionEnum, register_permissions


@register_permissions
class DialerPerm(PermissionEnum):
    # The Agent Dialer area (SPEC 4.7): phone calls and text messages placed by agents.
    VIEW = "dialer.view", Level.READ, _("See one's own calls and text messages, the do-not-call list")
    CALL = "dialer.call", Level.WRITE, _("Place calls, leave voicemails and send text messages")
    MANAGE = "dialer.manage", Level.WRITE, _("Change the do-not-call list and the pronunciations")
    ADMIN = "dialer.admin", Level.ADMIN, _("See every call and text message of the workspace")
