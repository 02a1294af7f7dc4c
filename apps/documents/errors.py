from typing import Any

from django.utils.translation import gettext as _

from apps.core.errors import Conflict, Forbidden, NotFound


class DocumentNotFound(NotFound):
    def __init__(self, document_id: Any) -> None:
        super().__init__(
            _("Document %(id)s was not found, or you may not see it. listDocuments finds documents.")
            % {"id": document_id}
        )


class DocumentFolderNotFound(NotFound):
    def __init__(self, folder_id: Any) -> None:
        super().__init__(
            _("Document folder %(id)s was not found, or you may not see it. listDocuments shows the folders.")
            % {"id": folder_id}
        )


class DocumentInTrash(Conflict):
    code = "IN_TRASH"

    def __init__(self, document_id: Any) -> None:
        super().__init__(
            _("Document %(id)s is in the trash; an administrator can restore it from the Documents page.")
            % {"id": document_id}
        )


class DocumentReadOnly(Forbidden):
    def __init__(self, document_id: Any) -> None:
        super().__init__(
            _(
                "You can read document %(id)s but not change it: it is private. Ask its owner to share it "
                "with you with edit access."
            )
            % {"id": document_id}
        )


class VersionConflict(Conflict):
    code = "VERSION_CONFLICT"


class VersionNotFound(NotFound):
    pass
