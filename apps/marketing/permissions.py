from django.utils.translation import gettext_lazy as _

from apps.core.permissions import Level, PermissionEnum, register_permissions


@register_permissions
class MarketingPerm(PermissionEnum):
    # The Marketing area (SPEC 4.7): segments of contacts, e-mail campaigns, consent and the figures.
    VIEW = "marketing.view", Level.READ, _("See campaigns, segments and their figures")
    EDIT = "marketing.edit", Level.WRITE, _("Write segments and campaigns")
    # What reaches people's inboxes, and how far an agent may go alone (Mailchimp's "Manager").
    LAUNCH = (
        "marketing.launch",
        Level.DELETE,
        _("Launch and pause campaigns, set their autonomy, record consent"),
    )
    DELETE = "marketing.delete", Level.DELETE, _("Delete campaigns and segments")
    ADMIN = (
        "marketing.admin",
        Level.ADMIN,
        _("See and change every campaign; the postal address, caps and quiet hours"),
    )
