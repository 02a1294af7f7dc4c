"""The Files area's failures (apps.core.errors): each names the problem and what to do next."""

from django.utils.translation import gettext_lazy as _

from apps.core.errors import AppError, Conflict, ValidationFailed


class NotInTrash(Conflict):
    """Something to restore or erase from the trash that is not in it."""

    code = "NOT_IN_TRASH"


class FolderNotInTrash(NotInTrash):
    msg_format = _("Folder {folder} is not in the trash.")


class FolderTrashedWithAnother(NotInTrash):
    msg_format = _("Folder {folder} went to the trash with folder {parent}: restore that one.")


class FolderToEraseNotInTrash(NotInTrash):
    msg_format = _("Folder {folder} is not in the trash: delete it first, then erase it.")


class FileNotInTrash(NotInTrash):
    msg_format = _("File {file} is not in the trash.")


class FileToEraseNotInTrash(NotInTrash):
    msg_format = _("File {file} is not in the trash: delete it first, then erase it.")


class OriginalFolderInTrash(ValidationFailed):
    msg_format = _(
        "It was in folder {folder}, which is in the trash too. Restore that folder first, or pass "
        "`intoFolderId` (or `toRoot`) to restore it somewhere else."
    )


class NoFreeName(ValidationFailed):
    message = _("Too many files of that name in the folder.")


class OneItem(ValidationFailed):
    message = _("Name exactly one item: `fileId` or `folderId`.")


# Content: its size, its form, reading it.


class FileTooLarge(ValidationFailed):
    """More bytes than the workspace keeps in a file."""

    code = "FILE_TOO_LARGE"
    msg_format = _(
        "The file is {size}, over this workspace's limit of {limit} per file. Nothing was saved. Split it, "
        "compress it, or ask an administrator to raise the limit."
    )


class TooLargeToEmail(FileTooLarge):
    msg_format = _(
        "File {file} is {size}; e-mails carry at most {limit}. Nothing was sent. Share a link "
        "(downloadFileEntity) instead."
    )


class TooLargeInline(ValidationFailed):
    msg_format = _("File {file} is {size} bytes, over the {limit} bytes given inline. Use mode link.")


class ContentTwice(ValidationFailed):
    message = _("Give the content either as `text` or as `contentBase64` (exactly one).")


class NotBase64(ValidationFailed):
    message = _("`contentBase64` is not valid base64; nothing was saved.")


class StorageFailed(AppError):
    """The file storage did not answer, or lost a file's bytes."""

    code = "STORAGE_UNAVAILABLE"
    http_status = 503
    message = _("The storage did not answer; try again shortly.")


class NotStored(StorageFailed):
    message = _(
        "The file could not be stored (the storage did not answer); nothing was saved. Try again shortly."
    )


class ContentMissing(StorageFailed):
    message = _("The file's content is missing from the storage. Tell an administrator; do not retry.")


class CannotExtract(AppError):
    """A file whose text cannot be read (apps.files.extract)."""

    code = "CANNOT_READ_CONTENT"
    http_status = 422


class NoTextToRead(CannotExtract):
    msg_format = _(
        "Files of type {mime_type} have no text to read (text, PDF, Word .docx, Excel .xlsx and "
        "PowerPoint .pptx files do). Use downloadFileEntity for the bytes."
    )


class PdfLocked(CannotExtract):
    message = _("The PDF is protected by a password, so its text cannot be read.")


class PdfDamaged(CannotExtract):
    """`kind`: the kind of error the PDF reader raised."""

    msg_format = _("The PDF could not be read ({kind}); it may be damaged.")


class NotWhatItSays(CannotExtract):
    msg_format = _(
        "The file says it is {mime_type} but could not be read as one ({kind}); it may be damaged or "
        "mislabelled."
    )


# E-mailing a file.


class NoRecipient(ValidationFailed):
    message = _("Give at least one address to send to.")


class TooManyRecipients(ValidationFailed):
    msg_format = _("At most {most} recipients.")


class NotAnAddress(ValidationFailed):
    msg_format = _("{address!r} is not an e-mail address; nothing was sent.")
