from django.utils.translation import gettext_lazy as _

from apps.core.permissions import Level, PermissionEnum, register_permissions


@register_permissions
class TravelSearchPerm(PermissionEnum):
    # Provider Travel Search (SPEC 4.7): flights, properties, cars and activities found at providers.
    VIEW = "travelsearch.view", Level.READ, _("See one's own and shared saved travel options")
    SEARCH = "travelsearch.search", Level.WRITE, _("Search travel providers and save options")
    ADMIN = "travelsearch.admin", Level.ADMIN, _("See every search and saved option of the workspace")
