from django.utils.translation import gettext_lazy as _

from apps.core.permissions import Level, PermissionEnum, register_permissions


@register_permissions
class BrowserPerm(PermissionEnum):
    # The Agent Browser Tab area (SPEC 4.7): a headless browser the service drives for agents.
    VIEW = "browser.view", Level.READ, _("See one's own browser sessions and what they did")
    USE = "browser.use", Level.WRITE, _("Open browser sessions and drive them through the service")
    ADMIN = "browser.admin", Level.ADMIN, _("See and end every browser session of the workspace")
