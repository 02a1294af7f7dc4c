from django.utils.translation import gettext_lazy as _

from apps.core.permissions import Level, PermissionEnum, register_area, register_permissions

register_area("catalogue", _("Tool catalogue"), _("Finding tools, and the log of tool calls"), core=True)


@register_permissions
class CataloguePerm(PermissionEnum):
    DISCOVER = "catalogue.discover", Level.READ, _("Search the tool catalogue and read tool descriptions")
    AUDIT = "catalogue.audit", Level.ADMIN, _("See the log of tool calls made by agents")
