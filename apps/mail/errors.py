"""What goes wrong with mail, each a clear error naming the problem (never an address the
server quoted, never a body)."""

from django.utils.translation import gettext_lazy as _

from apps.core.errors import AppError, Conflict, Forbidden, ReadOnly, ValidationFailed


class BadAddress(ValidationFailed):
    code = "BAD_ADDRESS"
    msg_format = _("{field}: {address!r} is not an e-mail address that can be written to. Nothing was sent.")


class AddressWithLineBreak(BadAddress):
    msg_format = _(
        "{field}: {address!r} holds a line break or another control character; write each address "
        "alone. Nothing was kept or sent."
    )


class OneAddressOnly(BadAddress):
    msg_format = _("{field}: {address!r} names several addresses where one is expected. Nothing was sent.")


class NotAllowedSender(Forbidden):
    code = "SENDER_NOT_ALLOWED"
    msg_format = _(
        "Mailbox {mailbox} may not send as {address!r}: From must be its address or one of its aliases "
        "(listInboxes)."
    )


class NotSentByMailbox(NotAllowedSender):
    msg_format = _(
        "Only mail this mailbox sent can be resent: message {message} is from {address!r}, not one of "
        "mailbox {mailbox}'s addresses. To pass it on, use forwardEmail."
    )


class MessageTooLarge(ValidationFailed):
    code = "MESSAGE_TOO_LARGE"
    msg_format = _(
        "The message would be {size} bytes; at most {limit} bytes can be sent. Nothing was sent. Leave "
        "out an attachment or share a link instead."
    )


class AttachmentsTooLarge(MessageTooLarge):
    msg_format = _(
        "The files come to {size} bytes; an e-mail carries at most {limit} bytes of files (they grow by a "
        "third when encoded). Nothing was kept. Attach fewer, or share a link instead."
    )


class ServerDown(AppError):
    code = "MAIL_SERVER_UNREACHABLE"
    http_status = 503
    msg_format = _(
        "The {server} server of mailbox {mailbox} does not answer; nothing was sent or changed. Try again "
        "later, or check its settings on the Mail page (openInboxSettings)."
    )


class DraftNotStored(AppError):
    code = "DRAFT_NOT_STORED"
    http_status = 502
    msg_format = _(
        "The IMAP server of mailbox {mailbox} refused to {action} draft {draft} in its folder {folder!r}; "
        "the draft is kept here and its copy there is tried again with the next sync."
    )


class LoginRefused(AppError):
    code = "MAIL_LOGIN_REFUSED"
    http_status = 502
    msg_format = _(
        "The {server} server refused the login of mailbox {mailbox}; nothing was sent or changed. Its "
        "password must be entered again on the Mail page (openInboxSettings)."
    )


class AlreadySent(Conflict):
    code = "ALREADY_SENT"
    msg_format = _("Draft {draft} was already sent; write a new one (updateDraft without draftId).")


class NotConnected(AppError):
    code = "MAIL_NOT_CONFIGURED"
    http_status = 409
    msg_format = _(
        "Mailbox {mailbox} uses the local mail server, which is not running here. An administrator "
        "connects it to a mail server on the Mail page (openInboxSettings)."
    )


class MessageGone(Conflict):
    code = "MESSAGE_GONE"
    msg_format = _(
        "Message {message} is no longer on the mail server (moved or deleted there). Find it again with "
        "getInboxMessages."
    )


class FolderExists(Conflict):
    code = "FOLDER_EXISTS"
    msg_format = _("Mailbox {mailbox} already has a folder {name!r} (getInboxFolders). Nothing was changed.")


class FolderHasRole(Conflict):
    code = "FOLDER_SPECIAL"
    msg_format = _(
        "{name!r} is mailbox {mailbox}'s {role} folder, which mail programs rely on: it is neither renamed "
        "nor deleted. Nothing was changed."
    )


class FolderNotEmpty(Conflict):
    code = "FOLDER_NOT_EMPTY"
    msg_format = _(
        "Folder {name!r} holds {count} messages on the mail server. Move them to another folder first "
        "(manageEmail, action move); nothing was deleted."
    )


class FolderHasSubfolders(FolderNotEmpty):
    msg_format = _(
        "Folder {name!r} has subfolders ({names}); delete or rename them first. Nothing was deleted."
    )


class FolderRefused(Conflict):
    code = "FOLDER_REFUSED"
    msg_format = _(
        "The mail server of mailbox {mailbox} refused to {action} the folder {name!r}; nothing was changed. "
        "Check its folders with getInboxFolders and try another name."
    )


class DraftOfAnother(ReadOnly):
    msg_format = _(
        "Draft {id} is another person's, in a mailbox you share: you may read it but not change it. "
        "Write your own with updateDraft (without draftId)."
    )
