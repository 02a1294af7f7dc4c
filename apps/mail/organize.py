"""Messages and folders put in order on the server, the local copy kept in step: read or unread
(\\Seen), flagged (\\Flagged), moved to another folder (IMAP MOVE, RFC 6851; the Trash and Archive
folders by their role); folders created, renamed and deleted (an empty one only). The server is
changed first and the copy after, per folder: a server that refuses leaves the copy as the server
holds it. A moved message keeps its id here: the new UID comes from
the server's COPYUID answer (UIDPLUS, RFC 4315); without one, the row is dropped and the next
sync copies the message again under a new id.

Nothing about a message is logged: mailbox ids and counts only."""

import imaplib
import logging
import re
from collections import defaultdict
from collections.abc import Iterable

from django.db import transaction

from apps.mail import errors, servers
from apps.mail.models import Folder, Mailbox, Message
from apps.mail.sync import quoted, untagged

logger = logging.getLogger(__name__)

SEEN, FLAGGED = "\\Seen", "\\Flagged"
COPYUID = re.compile(rb"(?:COPYUID )?(\d+) ([\d:,]+) ([\d:,]+)")


def _by_folder(messages: Iterable[Message]) -> dict[Folder, list[Message]]:
    groups: dict[Folder, list[Message]] = defaultdict(list)
    for message in messages:
        groups[message.folder].append(message)
    return groups


def _select(client: imaplib.IMAP4, folder: Folder, message: Message) -> None:
    status, _data = client.select(quoted(folder.name))
    if status != "OK":
        raise errors.MessageGone(message=message.pk)


def set_flag(mailbox: Mailbox, messages: list[Message], flag: str, *, on: bool) -> int:
    """Adds or removes `flag` on the server, then on the copy; how many messages changed."""
    changed = 0
    with servers.imap(mailbox) as client:
        for folder, rows in _by_folder(messages).items():
            _select(client, folder, rows[0])
            uids = ",".join(str(row.uid) for row in rows)
            status, _data = client.uid("STORE", uids, "+FLAGS.SILENT" if on else "-FLAGS.SILENT", f"({flag})")
            if status != "OK":
                raise errors.MessageGone(message=rows[0].pk)
            for row in rows:
                flags = sorted({*row.flags, flag} if on else set(row.flags) - {flag})
                if flags != row.flags:
                    row.flags = flags
                    Message.objects.filter(pk=row.pk).update(flags=flags)
                    changed += 1
    logger.info("mailbox %s: %s messages flagged", mailbox.pk, changed)
    return changed


def _uids(value: bytes) -> list[int]:
    found: list[int] = []
    for part in value.split(b","):
        first, _, last = part.partition(b":")
        found.extend(range(int(first), int(last or first) + 1))
    return found


def move(mailbox: Mailbox, messages: list[Message], target: Folder) -> int:
    """Moves the messages to `target` on the server, then in the copy; how many moved."""
    moved = 0
    with servers.imap(mailbox) as client:
        for folder, rows in _by_folder(messages).items():
            if folder.pk == target.pk:
                continue
            _select(client, folder, rows[0])
            status, _data = client.uid("MOVE", ",".join(str(row.uid) for row in rows), quoted(target.name))
            if status != "OK":
                raise errors.MessageGone(message=rows[0].pk)
            new_uids = _new_uids(client)
            with transaction.atomic():
                for row in rows:
                    if row.uid in new_uids:
                        Message.objects.filter(pk=row.pk).update(folder=target, uid=new_uids[row.uid])
                        row.folder, row.uid = target, new_uids[row.uid]
                    else:
                        Message.objects.filter(pk=row.pk).delete()
                    moved += 1
    logger.info("mailbox %s: %s messages moved", mailbox.pk, moved)
    return moved


def _new_uids(client: imaplib.IMAP4) -> dict[int, int]:
    """The old UID -> new UID of the last MOVE, from the server's COPYUID answer (an untagged OK,
    RFC 6851 section 4.3, which imaplib files under its response code)."""
    answers = client.response("COPYUID")[1] or []
    for answer in answers:
        match = COPYUID.search(answer if isinstance(answer, bytes) else b"")
        if match:
            return dict(zip(_uids(match[2]), _uids(match[3]), strict=False))
    return {}


# --- folders -------------------------------------------------------------------------------------


def _said_ok(status: str, mailbox: Mailbox, action: str, name: str) -> None:
    if status != "OK":
        raise errors.FolderRefused(mailbox=mailbox.pk, action=action, name=name)


def create_folder(mailbox: Mailbox, name: str) -> tuple[int | None, int]:
    """Creates the folder on the server (and subscribes to it, so mail programs show it); its
    UIDVALIDITY and UIDNEXT, the copy's cursor (mail moved into it keeps its id here, and the next
    sync does not take the new folder for a renumbered one)."""
    with servers.imap(mailbox) as client:
        status, _data = client.create(quoted(name))
        _said_ok(status, mailbox, "create", name)
        client.subscribe(quoted(name))
        status, _data = client.select(quoted(name), readonly=True)
        _said_ok(status, mailbox, "create", name)
        cursor = untagged(client, "UIDVALIDITY"), untagged(client, "UIDNEXT") or 1
        client.close()
    logger.info("mailbox %s: a folder created", mailbox.pk)
    return cursor


def rename_folder(mailbox: Mailbox, old: str, new: str) -> None:
    """Renames the folder on the server (its subfolders move with it, RFC 3501 6.3.5)."""
    with servers.imap(mailbox) as client:
        status, _data = client.rename(quoted(old), quoted(new))
        _said_ok(status, mailbox, "rename", old)
        client.unsubscribe(quoted(old))
        client.subscribe(quoted(new))
    logger.info("mailbox %s: a folder renamed", mailbox.pk)


def delete_folder(mailbox: Mailbox, name: str) -> None:
    """Deletes the folder on the server if it holds no message there (IMAP DELETE would take them
    with it): FolderNotEmpty naming how many it holds otherwise."""
    with servers.imap(mailbox) as client:
        status, data = client.select(quoted(name), readonly=True)
        _said_ok(status, mailbox, "delete", name)
        count = int(data[0] or 0) if data and data[0] is not None else 0
        client.close()
        if count:
            raise errors.FolderNotEmpty(name=name, count=count)
        status, _data = client.delete(quoted(name))
        _said_ok(status, mailbox, "delete", name)
        client.unsubscribe(quoted(name))
    logger.info("mailbox %s: a folder deleted", mailbox.pk)
