from django.utils.translation import gettext_lazy as _

from apps.core.permissions import Level, PermissionEnum, register_permissions


@register_permissions
class PlatformPerm(PermissionEnum):
    VIEW = (
        "platform.view",
        Level.READ,
        _("Look up reference data: countries, bank formats, tax ids, holidays"),
    )
