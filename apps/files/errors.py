from typing import Any

from django.utils.translation import gettext as _

from apps.core.errors import AppError, Conflict, Forbidden, NotFound, ValidationFailed


class FileNotFound(NotFound):
    def __init__(self, file_id: Any) -> None:
        super().__init__(
            _("File %(id)s was not found, or you may not see it. listFiles shows the files of a folder.")
            % {"id": file_id}
        )


class FolderNotFound(NotFound):
    def __init__(self, folder_id: Any) -> None:
        super().__init__(
            _("Folder %(id)s was not found, or you may not see it. listFiles shows the folders.")
            % {"id": folder_id}
        )


class InTrash(Conflict):
    code = "IN_TRASH"

    def __init__(self, what: str, item_id: Any) -> None:
        super().__init__(
            _("%(what)s %(id)s is in the trash. Restore it with restoreFile first if it is still needed.")
            % {"what": what, "id": item_id}
        )


class NotInTrash(Conflict):
    code = "NOT_IN_TRASH"


class FileReadOnly(Forbidden):
    def __init__(self, file_id: Any) -> None:
        super().__init__(
            _(
                "You can see file %(id)s but not change it: it is private. Ask its owner to share it "
                "with you with edit access."
            )
            % {"id": file_id}
        )


class FileTooLarge(ValidationFailed):
    code = "FILE_TOO_LARGE"


class BadContent(ValidationFailed):
    code = "BAD_CONTENT"


class StorageFailed(AppError):
    code = "STORAGE_UNAVAILABLE"
    http_status = 503


class CannotExtract(AppError):
    code = "CANNOT_READ_CONTENT"
    http_status = 422


class SendFailed(AppError):
    code = "EMAIL_NOT_SENT"
    http_status = 502
