from apps.core.errors import AppError, Conflict, ValidationFailed


class NotInTrash(Conflict):
    code = "NOT_IN_TRASH"


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
