from django.utils.translation import gettext_lazy as _

from apps.core.permissions import Level, PermissionEnum, register_permissions


@register_permissions
class TravelPerm(PermissionEnum):
    # Flights and Stays (SPEC 4.7): offers found at a travel provider, bookmarked, held or quoted.
    VIEW = "travel.view", Level.READ, _("See one's own travel offers and bookings")
    BOOK = "travel.book", Level.WRITE, _("Search, bookmark and prepare travel bookings")
    ADMIN = "travel.admin", Level.ADMIN, _("See every booking of the workspace, travellers' identity data")
