from django.utils.translation import gettext_lazy as _

from apps.core.permissions import Level, PermissionEnum, register_permissions


@register_permissions
class WebPerm(PermissionEnum):
    # The Agent Web Browser area (SPEC 4.7): web searches and pages read by the service itself.
    VIEW = "web.view", Level.READ, _("See one's own web searches and pages read")
    USE = "web.use", Level.WRITE, _("Search the web and read pages through the service")
    ADMIN = "web.admin", Level.ADMIN, _("See every web search and page read of the workspace")
