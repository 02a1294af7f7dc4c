from django.utils.translation import gettext_lazy as _

from apps.core.permissions import Level, PermissionEnum, register_permissions


@register_permissions
class FormsPerm(PermissionEnum):
    # The Form Builder area (SPEC 4.7): forms, their published versions and their submissions.
    VIEW = "forms.view", Level.READ, _("See forms and the submissions to the forms one may see")
    EDIT = "forms.edit", Level.WRITE, _("Make and change forms and their fields, submit forms")
    # What reaches the public, and what cannot be undone: publishing versions, locking submissions.
    PUBLISH = (
        "forms.publish",
        Level.DELETE,
        _("Publish, close and archive forms, lock submissions and export them as PDF"),
    )
    ADMIN = "forms.admin", Level.ADMIN, _("See and change every form, private ones included")
