from django.utils.translation import gettext_lazy as _

from apps.core.permissions import Level, PermissionEnum, register_permissions


@register_permissions
class DocumentsPerm(PermissionEnum):
    VIEW = "documents.view", Level.READ, _("See and read documents and their versions")
    EDIT = "documents.edit", Level.WRITE, _("Write, update and move documents, and make folders")
    SHARE = "documents.share", Level.WRITE, _("Share documents with other people of the workspace")
    EXPORT = "documents.export", Level.WRITE, _("Export documents to PDF files")
    DELETE = "documents.delete", Level.DELETE, _("Put documents in the trash and restore them")
    ADMIN = "documents.admin", Level.ADMIN, _("See and change every document, private ones included")
