"""A draft's copy on the mail server, kept in step as mail programs keep it (Thunderbird, Apple
Mail): a saved draft is APPENDed to the server's Drafts folder (the \\Drafts SPECIAL-USE folder,
else the folder named Drafts, made when there is none) flagged \\Draft and \\Seen; a changed draft
is appended anew and the older copy deleted and expunged by its UID (UIDPLUS's UID EXPUNGE, so
nothing else marked deleted goes with it); a sent, deleted or erased draft has its copy removed.

The server is written only after the change of the draft is committed, as an outbox works: the
transaction that saves, sends or trashes a draft only records that its copy is due (`due`: the
draft marked `server_pending`, its Message-ID fixed) and leaves the IMAP work to its commit
(`transaction.on_commit`). A transaction that rolls back (a later error in the same call, the
catalogue's second run after a deadlock) so leaves nothing on the server and appends nothing
twice. After the commit `keep`, in a short transaction of its own, records how far it got (the
new copy's UID and UIDVALIDITY, the older copies still to remove) and clears `server_pending`, or
leaves it set on a failure: the mailbox's next sync (apps.mail.tasks, each minute) tries again.

Every copy of one draft carries the draft's Message-ID, by which the sync knows the copies for its
own and does not copy them back as messages (apps.mail.sync), and by which a copy is found when the
folder's UIDVALIDITY changed; and the version it holds (`VERSION_HEADER`), by which a try whose
APPEND reached the server but whose UID was not recorded (no APPENDUID, a process stopped) finds
that copy instead of appending a second one.

Nothing about a draft's content is logged: draft and mailbox ids and the error's code only.
"""

import functools
import imaplib
import logging
import re
import time
from typing import Any

from django.db import transaction

from apps.core.errors import AppError
from apps.mail import errors, selectors, sending, servers, sync
from apps.mail.models import Draft, Folder
from apps.mail.sync import quoted, untagged

logger = logging.getLogger(__name__)

FLAGS = "(\\Draft \\Seen)"
APPENDUID = re.compile(rb"APPENDUID (\d+) (\d+)")
DRAFTS = "Drafts"
VERSION_HEADER = "X-Atrium-Draft-Version"
SERVER_FIELDS = (
    "message_id",
    "server_folder",
    "server_uidvalidity",
    "server_uid",
    "server_version",
    "server_stale",
    "server_pending",
)


def wanted(draft: Draft) -> bool:
    """Whether the server should hold a copy: an unsent draft not in the trash."""
    return draft.deleted_at is None and draft.sent_at is None


def in_step(draft: Draft) -> bool:
    """Whether the server holds what it should of the draft (nothing, or this version alone)."""
    if draft.server_stale:
        return False
    if wanted(draft):
        return draft.server_uid is not None and draft.server_version == draft.version
    return draft.server_uid is None


def due(draft: Draft) -> None:
    """In the transaction that changed `draft` (saved, sent, put in or taken out of the trash):
    records that its server copy is due (`server_pending`, the copies' Message-ID fixed before any
    is appended) and has `keep` write it once that transaction commits; nothing when the server
    already holds what it should. `draft` gets the server fields as they are now."""
    row = (
        Draft.objects.filter(pk=draft.pk)
        .values(*SERVER_FIELDS, "deleted_at", "sent_at", "version", "from_address")
        .first()
    )
    if row is None:
        return
    for name, value in row.items():
        setattr(draft, name, value)
    if in_step(draft):
        if draft.server_pending:
            draft.server_pending = False
            Draft.objects.filter(pk=draft.pk).update(server_pending=False)
        return
    if not draft.message_id:
        draft.message_id = sending.new_message_id(draft.from_address)
    draft.server_pending = True
    Draft.objects.filter(pk=draft.pk).update(server_pending=True, message_id=draft.message_id)
    transaction.on_commit(functools.partial(_after_commit, draft))


def _after_commit(draft: Draft) -> None:
    """`keep`, after the commit: whatever fails leaves the draft pending for the next sync."""
    try:
        keep(draft)
    except Exception as error:  # the draft stays pending, tried again each minute
        logger.warning(
            "draft %s: its server copy is left to the next sync (%s)",
            draft.pk,
            getattr(error, "code", type(error).__name__),
        )


def keep(draft: Draft) -> bool:
    """Brings the server's Drafts folder in step with `draft` (its row locked meanwhile, so two
    saves never leave two copies); True when it is, False when the server failed (the draft is
    then marked pending, and kept as it is). `draft` gets the server fields as they are now."""
    with transaction.atomic():
        row = (
            Draft.objects.select_for_update(of=("self",))
            .select_related("mailbox", "reply_to")
            .filter(pk=draft.pk)
            .first()
        )
        if row is None:
            return True
        done = in_step(row)
        if not done:
            try:
                with servers.imap(row.mailbox) as client:
                    _bring_in_step(client, row)
                done = True
            except (AppError, imaplib.IMAP4.error, OSError) as error:
                logger.warning(
                    "draft %s of mailbox %s: the server copy is pending (%s)",
                    row.pk,
                    row.mailbox_id,
                    getattr(error, "code", "IMAP_ERROR"),
                )
        row.server_pending = not done
        Draft.objects.filter(pk=row.pk).update(**{name: getattr(row, name) for name in SERVER_FIELDS})
    for name in SERVER_FIELDS:
        setattr(draft, name, getattr(row, name))
    return done


def keep_pending(mailbox: Any) -> int:
    """The mailbox's drafts whose server copy is behind, tried again; how many are in step now."""
    done = 0
    for draft in Draft.objects.filter(mailbox=mailbox, server_pending=True).order_by("id"):
        done += keep(draft)
    return done


def _bring_in_step(client: imaplib.IMAP4, draft: Draft) -> None:
    """Appends the draft's version when the server lacks it (a copy of it an earlier try appended
    without its UID being recorded is taken instead), then removes the older copies. The draft's
    fields follow each step as it is done, so a failure half-way loses track of nothing."""
    if wanted(draft) and (draft.server_uid is None or draft.server_version != draft.version):
        folder = _drafts_folder(client, draft)
        if not draft.message_id:
            draft.message_id = sending.new_message_id(draft.from_address)
        uidvalidity, uid = _copy_of_version(client, folder, draft)
        if uid is None:
            answer = client.append(
                quoted(folder), FLAGS, imaplib.Time2Internaldate(time.time()), _message(draft)
            )
            status, data = answer[0], answer[1]
            if status != "OK":
                raise _refused(draft, "store", folder)
            uidvalidity, uid = _appended(client, data, folder, draft)
        if draft.server_uid is not None:
            draft.server_stale = [*draft.server_stale, _where(draft)]
        draft.server_folder, draft.server_uidvalidity, draft.server_uid = folder, uidvalidity, uid
        draft.server_version = draft.version
    elif not wanted(draft) and draft.server_uid is not None:
        draft.server_stale = [*draft.server_stale, _where(draft)]
        draft.server_folder, draft.server_uidvalidity, draft.server_uid = "", None, None
    for folder in dict.fromkeys(entry[0] for entry in draft.server_stale):
        _remove(client, draft, folder)


def _refused(draft: Draft, action: str, folder: str) -> errors.DraftNotStored:
    return errors.DraftNotStored(mailbox=draft.mailbox_id, action=action, draft=draft.pk, folder=folder)


def _where(draft: Draft) -> list[Any]:
    return [draft.server_folder, draft.server_uidvalidity, draft.server_uid]


def _drafts_folder(client: imaplib.IMAP4, draft: Draft) -> str:
    """The server's Drafts folder: its \\Drafts SPECIAL-USE folder, else the one named Drafts
    (case aside), else a new Drafts folder (as a mail program makes it)."""
    found = sync.folders(client)
    name = next((name for name, role in found if role == Folder.Role.DRAFTS), None)
    name = name or next((name for name, _role in found if name.lower() == DRAFTS.lower()), None)
    if name is None:
        status, _data = client.create(quoted(DRAFTS))
        if status != "OK":
            raise _refused(draft, "store", DRAFTS)
        client.subscribe(quoted(DRAFTS))
        name = DRAFTS
    return name


def _message(draft: Draft) -> bytes:
    """The draft as a message, as it would be sent (a reply quoting its message) but for the
    signature and the files, which are added when it is sent; its Bcc kept, as mail programs do."""
    letter = sending.Letter(
        sender=draft.from_address,
        to=list(draft.to),
        cc=list(draft.cc),
        subject=draft.subject,
        text=draft.body,
        reply_to=selectors.answered(draft=draft),
        in_reply_to=draft.in_reply_to,
        references=draft.references,
    )
    message = sending.compose(draft.mailbox, letter)
    del message["Message-ID"]
    message["Message-ID"] = draft.message_id
    if draft.bcc:
        message["Bcc"] = ", ".join(draft.bcc)
    message[VERSION_HEADER] = _version_mark(draft)
    return message.as_bytes(policy=message.policy.clone(linesep="\r\n"))


def _appended(client: imaplib.IMAP4, data: Any, folder: str, draft: Draft) -> tuple[int | None, int | None]:
    """UIDVALIDITY and UID of the copy just appended: from the server's APPENDUID answer (UIDPLUS,
    RFC 4315), else found by the draft's Message-ID and version."""
    for line in data or []:
        match = APPENDUID.search(line if isinstance(line, bytes) else b"")
        if match:
            return int(match[1]), int(match[2])
    return _copy_of_version(client, folder, draft)


def _version_mark(draft: Draft) -> str:
    # In angle brackets: IMAP's SEARCH HEADER matches a substring, and "<1>" is none of "<11>".
    return f"<{draft.version}>"


def _copy_of_version(client: imaplib.IMAP4, folder: str, draft: Draft) -> tuple[int | None, int | None]:
    """UIDVALIDITY and UID of a copy of the draft's present version in `folder` (the newest), one
    an earlier try appended without its UID being recorded; (UIDVALIDITY, None) when there is none."""
    status, _data = client.select(quoted(folder), readonly=True)
    if status != "OK":
        return None, None
    uidvalidity = untagged(client, "UIDVALIDITY")
    status, data = client.uid(
        "SEARCH",
        "HEADER",
        "Message-ID",
        f'"{draft.message_id}"',
        "HEADER",
        VERSION_HEADER,
        f'"{_version_mark(draft)}"',
    )
    found = {int(uid) for uid in (data[0] or b"").split()} if status == "OK" and data else set()
    found -= {int(entry[2]) for entry in draft.server_stale if entry[0] == folder and entry[1] == uidvalidity}
    return uidvalidity, max(found) if found else None


def _with_message_id(client: imaplib.IMAP4, draft: Draft) -> list[int]:
    status, data = client.uid("SEARCH", "HEADER", "Message-ID", f'"{draft.message_id}"')
    return [int(uid) for uid in (data[0] or b"").split()] if status == "OK" and data else []


def _remove(client: imaplib.IMAP4, draft: Draft, folder: str) -> None:
    """Deletes and expunges the draft's older copies in `folder` by their UIDs; when the folder
    was renumbered since (another UIDVALIDITY), every copy with its Message-ID but the current."""
    entries = [entry for entry in draft.server_stale if entry[0] == folder]
    status, _data = client.select(quoted(folder))
    if status == "OK":
        uidvalidity = untagged(client, "UIDVALIDITY")
        uids = {int(entry[2]) for entry in entries if entry[2] is not None and entry[1] == uidvalidity}
        if any(entry[1] != uidvalidity or entry[2] is None for entry in entries) and draft.message_id:
            uids.update(_with_message_id(client, draft))
        if folder == draft.server_folder and draft.server_uid is not None:
            uids.discard(int(draft.server_uid))
        if uids:
            listed = ",".join(str(uid) for uid in sorted(uids))
            status, _data = client.uid("STORE", listed, "+FLAGS.SILENT", "(\\Deleted)")
            if status != "OK":
                raise _refused(draft, "remove", folder)
            status, _data = client.uid("EXPUNGE", listed)
            if status != "OK":
                raise _refused(draft, "remove", folder)
        # No CLOSE: it would expunge whatever else is marked deleted there too.
    # A folder gone from the server holds no copy any more.
    draft.server_stale = [entry for entry in draft.server_stale if entry[0] != folder]
