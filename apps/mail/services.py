"""Writes of the mail app: mailboxes, drafts, signatures, and sending (send a draft, reply,
forward, resend, a file as an attachment). Every door (the Email Inbox tools, other areas' mail
tools, the Mail page, Celery) calls these; rows come from `restrict`/`fetch` of the actor."""

import logging
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.accounts.models import person
from apps.core import clean, encryption
from apps.core.actors import Actor, require
from apps.core.errors import AppError, invalid
from apps.mail import addresses, drafts, errors, organize, selectors, sending, sync
from apps.mail.models import Draft, Folder, Mailbox, MailboxMember, Message, Outgoing, Signature
from apps.mail.permissions import MailPerm

logger = logging.getLogger(__name__)
UNSET: Any = object()


# --- mailboxes (the Mail page, administrators) ------------------------------------------------


def mailbox_create(
    *,
    actor: Actor,
    name: str,
    address: str,
    owner: Any,
    shared: bool = False,
    server: str = Mailbox.Server.LOCAL,
    imap_host: str = "",
    imap_port: int = 993,
    imap_security: str = Mailbox.Security.TLS,
    smtp_host: str = "",
    smtp_port: int = 587,
    smtp_security: str = Mailbox.Security.STARTTLS,
    username: str = "",
    password: str = "",
    send_as: list[str] | None = None,
) -> Mailbox:
    """Connects a mailbox (the area's administrators). The password arrives through the Mail
    page only, never a tool argument, and is kept encrypted."""
    require(actor, MailPerm.ADMIN)
    address = addresses.one(address, field="address").lower()
    if Mailbox.objects.filter(address__iexact=address, deleted_at__isnull=True).exists():
        raise invalid("address", _("a mailbox with this address is already connected"))
    if server == Mailbox.Server.IMAP and not (imap_host and smtp_host):
        raise invalid("imap_host", _("an outside mailbox needs its IMAP and SMTP hosts"))
    return Mailbox.objects.create(
        # One line: it is the display name of the From header of every message the mailbox sends.
        name=clean.text(name, field="name", limit=100) or address,
        address=address,
        send_as=[a.lower() for a in addresses.many(send_as or [], field="send_as")],
        owner=owner,
        shared=shared,
        server=server,
        imap_host=imap_host.strip(),
        imap_port=imap_port,
        imap_security=imap_security,
        smtp_host=smtp_host.strip(),
        smtp_port=smtp_port,
        smtp_security=smtp_security,
        username=username.strip(),
        secret=encryption.encrypt(password) if password else "",
        created_by=person(actor),
    )


def mailbox_set_password(*, actor: Actor, mailbox: Mailbox, password: str) -> None:
    require(actor, MailPerm.ADMIN)
    mailbox.secret = encryption.encrypt(password) if password else ""
    mailbox.status, mailbox.problem = Mailbox.Status.NEW, ""
    mailbox.save(update_fields=["secret", "status", "problem", "updated_at"])


def mailbox_set_members(*, actor: Actor, mailbox: Mailbox, members: list[Any]) -> None:
    require(actor, MailPerm.ADMIN)
    with transaction.atomic():
        MailboxMember.objects.filter(mailbox=mailbox).exclude(user__in=members).delete()
        for user in members:
            MailboxMember.objects.get_or_create(mailbox=mailbox, user=user)


def mailbox_sync(*, mailbox: Mailbox) -> int:
    return sync.sync(mailbox)


# --- drafts ----------------------------------------------------------------------------------


def draft_save(
    *,
    actor: Actor,
    mailbox: Mailbox | None = None,
    draft: Draft | None = None,
    to: list[str] | None = None,
    cc: list[str] | None = None,
    bcc: list[str] | None = None,
    subject: str | None = None,
    body: str | None = None,
    reply_to: Message | None = UNSET,
    from_address: str | None = None,
    attachments: list[int] | None = None,
) -> Draft:
    """Writes a new draft (in `mailbox`) or changes `draft` (in its own mailbox: another `mailbox`
    is refused, never ignored): every given field replaces the stored one, all at once (one row,
    one version more), checked before anything is kept."""
    require(actor, MailPerm.EDIT)
    if draft is None:
        assert mailbox is not None
        draft = Draft(
            mailbox=mailbox, author=person(actor), created_by=person(actor), from_address=mailbox.address
        )
        if reply_to is not UNSET and reply_to is not None:
            answer = _answer_of(reply_to)
            # A received subject has no limit; the draft's default keeps what its column holds.
            draft.subject = _reply_subject(reply_to.subject)[:SUBJECT_LIMIT]
            draft.from_address, draft.to = answer.sender, answer.to
    elif draft.sent_at is not None:
        raise errors.AlreadySent(draft=draft.pk)
    elif mailbox is not None and mailbox.pk != draft.mailbox_id:
        raise invalid(
            "inboxId",
            _("draft {draft} is in mailbox {mailbox}, where it stays; write a new draft in the other one"),
            draft=draft.pk,
            mailbox=draft.mailbox_id,
        )
    if from_address is not None:
        sender = addresses.one(from_address, field="from")
        if not draft.mailbox.may_send_as(sender):
            raise errors.NotAllowedSender(address=sender, mailbox=draft.mailbox.pk)
        draft.from_address = sender
    if to is not None:
        draft.to = addresses.many(to, field="to")
    if cc is not None:
        draft.cc = addresses.many(cc, field="cc")
    if bcc is not None:
        draft.bcc = addresses.many(bcc, field="bcc")
    if subject is not None:
        draft.subject = " ".join(subject.split())
    if body is not None:
        draft.body = body
    if reply_to is not UNSET:
        if reply_to is not None and reply_to.mailbox_id != draft.mailbox_id:
            raise invalid("reply_to_message_id", _("the message is in another mailbox than the draft"))
        draft.reply_to = reply_to
        draft.in_reply_to, draft.references = sending.threading_of(reply_to) if reply_to else ("", "")
    if attachments is not None:
        draft.attachments = [file.pk for file in _attachable(actor, attachments)]
    with transaction.atomic():
        if draft.pk:
            draft.version += 1
            # A try that failed was of the old text: the next send makes the message anew.
            draft.outbox.filter(status=Outgoing.Status.FAILED).update(draft=None)
            # Its server fields are apps.mail.drafts' own, kept as they are in the row.
            draft.save(update_fields=DRAFT_FIELDS)
        else:
            draft.save()
        # Its copy in the server's Drafts folder is written once this is committed (pending until).
        drafts.due(draft)
    return draft


SUBJECT_LIMIT = Draft._meta.get_field("subject").max_length or 998
DRAFT_FIELDS = [
    field.name
    for field in Draft._meta.concrete_fields
    if not field.primary_key and field.name not in drafts.SERVER_FIELDS
]


MAX_ATTACHMENTS = 10


def _attachable(actor: Actor, file_ids: list[int]) -> list[Any]:
    """The files (of the Files area) the actor may read, by id, within the size an e-mail carries:
    an id they may not read is "not found" as one that does not exist, its name never said."""
    from apps.files import api as files

    ids = list(dict.fromkeys(file_ids))
    if len(ids) > MAX_ATTACHMENTS:
        raise invalid("attachmentFileIds", _("at most {most} files"), most=MAX_ATTACHMENTS)
    found = [files.file(actor=actor, file_id=pk) for pk in ids]
    # Base64 makes a file a third larger in the message, which is held to ATRIUM_MAIL_MAX_BYTES.
    limit = int(settings.ATRIUM_MAIL_MAX_BYTES) * 3 // 4
    size = sum(int(file.size) for file in found)
    if size > limit:
        raise errors.AttachmentsTooLarge(size=size, limit=limit)
    return found


def _attached(actor: Actor, file_ids: list[int]) -> list[tuple[str, str, bytes]]:
    """The files (name, type, bytes) as the sender reads them now, each a MIME part of its own
    when sent: a draft's (one shared since, or trashed, is refused then) or a reply's."""
    from apps.files import api as files

    return [(file.name, file.mime_type, files.file_bytes(file)) for file in _attachable(actor, file_ids)]


@dataclass
class _Answer:
    sender: str  # the mailbox's address the message was written to
    to: list[str]  # its Reply-To or sender; of a message the mailbox sent, its recipients
    others: list[str]  # its other recipients, for reply-all


def _answer_of(message: Message) -> _Answer:
    """Who a reply to `message` is from and to, whether it is sent at once or drafted first."""
    mailbox = message.mailbox
    own = {mailbox.address.lower(), *(a.lower() for a in mailbox.send_as)}
    written_to = addresses.of_header(", ".join([*message.to, *message.cc]))
    sender = next((a for a in written_to if a in own), mailbox.address)
    if message.from_address in own:
        to = addresses.many(message.to, field="to")
    else:
        to = addresses.many([a for a in message.reply_to[:1] or [message.from_address] if a], field="to")
    taken = own | {a.lower() for a in to}
    return _Answer(sender=sender, to=to, others=[a for a in written_to if a not in taken])


def _reply_subject(subject: str) -> str:
    return subject if subject.lower().startswith("re:") else f"Re: {subject}".strip()


def draft_trash(*, actor: Actor, draft: Draft) -> None:
    require(actor, MailPerm.DELETE)
    if draft.sent_at is not None:
        raise errors.AlreadySent(draft=draft.pk)
    with transaction.atomic():
        draft.trash(actor)
        drafts.due(draft)  # its copy removed from the server's Drafts folder after the commit


def draft_restore(*, actor: Actor, draft: Draft) -> None:
    require(actor, MailPerm.DELETE)
    with transaction.atomic():
        draft.untrash()
        drafts.due(draft)


def drafts_pending(*, mailbox: Mailbox) -> int:
    """The mailbox's drafts whose server copy is behind, tried again (before each sync)."""
    return drafts.keep_pending(mailbox)


def signature_of(*, actor: Actor, mailbox: Mailbox) -> Signature | None:
    return Signature.objects.filter(mailbox=mailbox, user=person(actor)).first()


def signature_set(*, actor: Actor, mailbox: Mailbox, text: str) -> Signature:
    require(actor, MailPerm.EDIT)
    signature, _created = Signature.objects.update_or_create(
        mailbox=mailbox, user=person(actor), defaults={"text": text.strip()}
    )
    return signature


def _signature_text(actor: Actor, mailbox: Mailbox) -> str:
    found = signature_of(actor=actor, mailbox=mailbox)
    return found.text if found else ""


# --- putting messages in order ----------------------------------------------------------------

ORGANIZE = ("read", "unread", "flag", "unflag", "archive", "trash", "move")


def messages_organize(*, actor: Actor, messages: list[Message], action: str, folder: str = "") -> int:
    """Marks messages read or unread, flags or unflags them, or moves them (to the Archive or
    Trash folder by role, or to `folder`), on the server and in the copy; how many changed.
    The target folder is checked in every mailbox before anything is changed."""
    require(actor, MailPerm.EDIT)
    if action == "move" and not folder.strip():
        raise invalid("folder", _("name the folder to move to (getInboxFolders)"))
    by_mailbox: dict[int, list[Message]] = {}
    for message in messages:
        by_mailbox.setdefault(message.mailbox_id, []).append(message)
    targets = {}
    if action in ("archive", "trash", "move"):
        name = folder if action == "move" else action
        targets = {
            pk: selectors.folder_named(mailbox=rows[0].mailbox, name=name) for pk, rows in by_mailbox.items()
        }
    changed = 0
    for pk, rows in by_mailbox.items():
        mailbox = rows[0].mailbox
        if pk in targets:
            changed += organize.move(mailbox, rows, targets[pk])
        else:
            flag = organize.FLAGGED if action in ("flag", "unflag") else organize.SEEN
            changed += organize.set_flag(mailbox, rows, flag, on=action in ("read", "flag"))
    return changed


# --- folders -------------------------------------------------------------------------------------

FOLDER_NAME_LIMIT = 200
SEPARATOR = "/"  # the local server's hierarchy separator (bootstrap.py's Dovecot namespace)


def _folder_name(value: str, *, field: str) -> str:
    """A folder's name as people write it: levels separated by "/", each named, none of IMAP's
    wildcards."""
    name = clean.text(value, field=field, limit=FOLDER_NAME_LIMIT, required=True)
    if "*" in name or "%" in name:
        raise invalid(field, _("a folder's name holds no * or %"))
    levels = [level.strip() for level in name.split(SEPARATOR)]
    if not all(levels):
        raise invalid(field, _("each level of a folder's name, between its slashes, needs a name"))
    return SEPARATOR.join(levels)


def _name_free(mailbox: Mailbox, name: str, *, but: Folder | None = None) -> None:
    taken = Folder.objects.filter(mailbox=mailbox, name__iexact=name)
    if but is not None:
        taken = taken.exclude(pk=but.pk)
    if taken.exists() or name.upper() == "INBOX":
        raise errors.FolderExists(mailbox=mailbox.pk, name=name)


def _ordinary(folder: Folder) -> None:
    """A folder of a SPECIAL-USE role (the inbox, sent, drafts...) stays as it is."""
    if folder.role:
        raise errors.FolderHasRole(
            mailbox=folder.mailbox_id, name=folder.name, role=folder.get_role_display()
        )


def folder_create(*, actor: Actor, mailbox: Mailbox, name: str) -> Folder:
    """A new folder (a label) of the mailbox, on its server first."""
    require(actor, MailPerm.EDIT)
    name = _folder_name(name, field="name")
    _name_free(mailbox, name)
    levels = name.split(SEPARATOR)
    # Its parents are folders of their own, made first where missing (as mail programs make
    # them): the server holds no folder for a level only named on the way (IMAP lists it
    # \Noselect), which could then be neither renamed, nor chosen, nor found here.
    for depth in range(1, len(levels) + 1):
        level = SEPARATOR.join(levels[:depth])
        if depth < len(levels) and Folder.objects.filter(mailbox=mailbox, name__iexact=level).exists():
            continue
        uidvalidity, uidnext = organize.create_folder(mailbox, level)
        folder, _created = Folder.objects.update_or_create(
            mailbox=mailbox, name=level, defaults={"role": "", "uidvalidity": uidvalidity, "uidnext": uidnext}
        )
    return folder


def folder_rename(*, actor: Actor, folder: Folder, new_name: str) -> Folder:
    """Renames a folder and its subfolders, on the server first; their messages stay in them."""
    require(actor, MailPerm.EDIT)
    _ordinary(folder)
    new = _folder_name(new_name, field="newName")
    old = folder.name
    if new == old:
        raise invalid("newName", _("is the folder's name already"))
    if new.lower().startswith(old.lower() + SEPARATOR):
        raise invalid("newName", _("a folder cannot move into itself"))
    _name_free(folder.mailbox, new, but=folder)
    organize.rename_folder(folder.mailbox, old, new)
    with transaction.atomic():
        for child in Folder.objects.filter(mailbox=folder.mailbox_id, name__startswith=old + SEPARATOR):
            Folder.objects.filter(pk=child.pk).update(name=new + child.name[len(old) :])
        folder.name = new
        folder.save(update_fields=["name"])
    return folder


def folder_delete(*, actor: Actor, folder: Folder) -> None:
    """Deletes an empty folder without subfolders, on the server first."""
    require(actor, MailPerm.EDIT)
    _ordinary(folder)
    children = Folder.objects.filter(mailbox=folder.mailbox_id, name__startswith=folder.name + SEPARATOR)
    if children.exists():
        names = ", ".join(children.order_by("name").values_list("name", flat=True)[:10])
        raise errors.FolderHasSubfolders(name=folder.name, names=names)
    organize.delete_folder(folder.mailbox, folder.name)
    folder.delete()


def message_opened(*, message: Message) -> None:
    """A message read through a tool is marked read, as a mail client does; a server out of
    reach leaves it unread (the reading itself never fails for it)."""
    if not message.unread:
        return
    try:
        organize.set_flag(message.mailbox, [message], organize.SEEN, on=True)
    except AppError as error:
        logger.warning("message %s: not marked read (%s)", message.pk, error.code)


# --- sending ---------------------------------------------------------------------------------


def draft_send(*, actor: Actor, draft: Draft) -> Outgoing:
    """Sends a draft once: its outbox row is made on the first call and tried again (the same
    Message-ID) by a later one after a failure; a sent draft is AlreadySent."""
    require(actor, MailPerm.SEND)
    if draft.sent_at is not None:
        raise errors.AlreadySent(draft=draft.pk)
    pending = draft.outbox.exclude(status=Outgoing.Status.SENT).order_by("-id").first()
    if pending is not None and pending.status in (Outgoing.Status.SENDING, Outgoing.Status.UNKNOWN):
        raise errors.AlreadySent(draft=draft.pk)
    if pending is None:
        letter = sending.Letter(
            sender=draft.from_address,
            to=draft.to,
            cc=draft.cc,
            bcc=draft.bcc,
            subject=draft.subject,
            text=draft.body,
            signature=_signature_text(actor, draft.mailbox),
            reply_to=selectors.answered(draft=draft),
            in_reply_to=draft.in_reply_to,
            references=draft.references,
            files=_attached(actor, draft.attachments),
        )
        pending = sending.queue(
            mailbox=draft.mailbox,
            actor=actor,
            message=sending.compose(draft.mailbox, letter),
            recipients=sending.recipients_of(letter),
            kind="reply" if draft.reply_to_id or draft.in_reply_to else "send",
            draft_id=draft.pk,
        )
    row = sending.deliver(pending)
    if row.status == Outgoing.Status.SENT:
        Draft.objects.filter(pk=draft.pk).update(sent_at=row.sent_at)
        draft.sent_at = row.sent_at
        drafts.due(draft)  # a sent draft's copy leaves the server's Drafts folder after the commit
    return row


def message_forward(
    *,
    actor: Actor,
    message: Message,
    to: list[str],
    note: str = "",
    as_attachment: bool = False,
    from_address: str = "",
) -> Outgoing:
    require(actor, MailPerm.SEND)
    mailbox = message.mailbox
    subject = (
        message.subject if message.subject.lower().startswith(("fwd:", "fw:")) else f"Fwd: {message.subject}"
    )
    raw = sending.fetch_raw(message) if as_attachment or message.attachments else None
    letter = sending.Letter(
        sender=from_address or mailbox.address,
        to=addresses.many(to, field="to"),
        subject=subject.strip(),
        text=note,
        signature=_signature_text(actor, mailbox),
        forward=message,
        forward_raw=raw if as_attachment else None,
        # Inline, the original's files go with it, each a part of its own.
        files=sending.attachments_of(raw) if raw is not None and not as_attachment else [],
    )
    return sending.send(mailbox, letter, actor=actor, kind="forward")


def message_resend(*, actor: Actor, message: Message, to: list[str] | None = None) -> Outgoing:
    """The same message again with a new Message-ID and Date: to its recipients, or to `to`."""
    require(actor, MailPerm.SEND)
    mailbox = message.mailbox
    if not message.from_address or not mailbox.may_send_as(message.from_address):
        raise errors.NotSentByMailbox(address=message.from_address, mailbox=mailbox.pk, message=message.pk)
    recipients = addresses.many(to, field="to") if to else addresses.many([*message.to, *message.cc])
    original = sync.parse(sending.fetch_raw(message))
    for header in ("Message-ID", "Date", "Bcc"):
        del original[header]
    original["Date"] = sending.format_datetime(timezone.now())
    original["Message-ID"] = sending.new_message_id(message.from_address)
    row = sending.queue(mailbox=mailbox, actor=actor, message=original, recipients=recipients, kind="resend")
    return sending.deliver(row)


def file_send(
    *,
    actor: Actor,
    mailbox: Mailbox,
    to: list[str],
    subject: str,
    text: str,
    files: list[tuple[str, str, bytes]],
) -> Outgoing:
    """Files as attachments of a new message from `mailbox` (the Files area's door)."""
    return mail_new(actor=actor, mailbox=mailbox, to=to, subject=subject, text=text, files=files, kind="file")


def outbox_sweep() -> int:
    """Celery beat: rows queued but never tried (their process stopped between the two) are sent;
    rows left `sending` are marked as possibly sent, never sent again. Returns how many went."""
    sending.stale_sending()
    sent = 0
    cutoff = timezone.now() - timedelta(minutes=1)
    for row in Outgoing.objects.filter(status=Outgoing.Status.QUEUED, attempts=0, created_at__lt=cutoff):
        try:
            done = sending.deliver(row)
        except AppError as error:
            # Recorded on the row (failed, with its problem); the other rows go on.
            logger.warning("outgoing %s not sent by the sweep (%s)", row.pk, error.code)
            continue
        if done.status == Outgoing.Status.SENT:
            sent += 1
            if done.draft_id:
                with transaction.atomic():
                    Draft.objects.filter(pk=done.draft_id).update(sent_at=done.sent_at)
                    drafts.due(Draft(pk=done.draft_id))
    return sent


def message_reply(
    *,
    actor: Actor,
    message: Message,
    body: str,
    reply_all: bool = False,
    attachments: list[int] | None = None,
) -> Outgoing:
    """Answers `message` at once (no draft kept): to its Reply-To or sender (a message the mailbox
    sent: to its recipients), with reply_all also to its other recipients but the mailbox's own
    addresses; from the address of the mailbox it was written to; In-Reply-To and References set,
    the signature once above the quote; stored in Sent. `attachments`: files of the Files area by
    id, as a draft's (`draft_save`): the same limits, the same "not found", a MIME part apiece."""
    require(actor, MailPerm.SEND)
    files = _attached(actor, attachments) if attachments else []
    mailbox = message.mailbox
    answer = _answer_of(message)
    letter = sending.Letter(
        sender=answer.sender,
        to=answer.to,
        cc=addresses.many(answer.others if reply_all else [], field="cc"),
        subject=_reply_subject(message.subject),
        text=body,
        signature=_signature_text(actor, mailbox),
        reply_to=message,
        files=files,
    )
    return sending.send(mailbox, letter, actor=actor, kind="reply")


def letter_send(
    *,
    mailbox: Mailbox,
    to: str,
    subject: str,
    text: str,
    headers: dict[str, str],
    on_queued: Any = None,
    html: str = "",
) -> Outgoing:
    """A message the service sends by itself from `mailbox` (a reachout campaign's step: no
    person acts, so no permission is asked; the caller checked the campaign's), with an HTML
    alternative when `html` is given (a marketing campaign's). `on_queued(row)`
    runs in the transaction that keeps the outbox row, before anything is sent: the caller's
    record of the message is kept with it, so it is never sent twice."""
    letter = sending.Letter(
        sender=mailbox.address, to=[addresses.one(to)], subject=subject, text=text, html=html, headers=headers
    )
    return sending.send(mailbox, letter, actor=None, kind="campaign", on_queued=on_queued)


def reply_send(
    *,
    actor: Actor | None,
    mailbox: Mailbox,
    to: str,
    subject: str,
    text: str,
    reply_to: Message | None,
    earlier: list[str] | None = None,
) -> Outgoing:
    """A reply sent at once from `mailbox` for another area, which checked its own permission (a
    ticket's agent): to `reply_to` (quoted, with In-Reply-To and References), or, with no message
    of theirs to answer (a phone ticket), threaded on the Message-IDs sent before (`earlier`)."""
    to = addresses.one(to)
    letter = sending.Letter(sender=mailbox.address, to=[to], subject=subject, text=text, reply_to=reply_to)
    composed = sending.compose(mailbox, letter)
    if reply_to is None and earlier:
        composed["In-Reply-To"] = earlier[-1]
        composed["References"] = " ".join(earlier[-20:])
    row = sending.queue(mailbox=mailbox, actor=actor, message=composed, recipients=[to], kind="reply")
    return sending.deliver(row)


def mail_new(
    *,
    actor: Actor,
    mailbox: Mailbox,
    to: list[str],
    subject: str,
    text: str,
    files: list[tuple[str, str, bytes]] | None = None,
    kind: str = "send",
) -> Outgoing:
    """A new message from `mailbox` sent at once (no draft kept), the signature once; stored in Sent.
    `files` go as its attachments (name, type, bytes); `kind` is the outbox row's."""
    require(actor, MailPerm.SEND)
    letter = sending.Letter(
        sender=mailbox.address,
        to=addresses.many(to, field="to"),
        subject=subject,
        text=text,
        signature=_signature_text(actor, mailbox),
        files=files or [],
    )
    return sending.send(mailbox, letter, actor=actor, kind=kind)
