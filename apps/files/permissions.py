from django.utils.translation import gettext_lazy as _

from apps.core.permissions import Level, PermissionEnum, register_permissions


@register_permissions
class FilesPerm(PermissionEnum):
    VIEW = "files.view", Level.READ, _("See files and folders, read and download them")
    EDIT = "files.edit", Level.WRITE, _("Add, copy, move, rename and attach files and folders")
    SHARE = "files.share", Level.WRITE, _("Share files with other people of the workspace")
    EMAIL = "files.email", Level.WRITE, _("Send files out of the workspace by e-mail")
    DELETE = "files.delete", Level.DELETE, _("Put files and folders in the trash, restore them, erase them")
    ADMIN = "files.admin", Level.ADMIN, _("See and change every file, private ones included")
