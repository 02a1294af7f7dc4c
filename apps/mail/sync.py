"""A mailbox's copy of its server: folders by SPECIAL-USE role (RFC 6154), messages by UID from
a cursor per folder (UIDVALIDITY and the next UID), flags refreshed and expunged messages removed,
and threads by Message-ID / In-Reply-To / References. Celery beat runs `sync` for every mailbox
each minute (apps.mail.tasks); the Mail page and the tests run it at once.

Nothing about a message (addresses, subjects, bodies) is logged: mailbox ids and counts only.
"""

import base64
import email
import email.policy
import imaplib
import logging
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import parsedate_to_datetime
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from apps.core import clean
from apps.core.errors import AppError
from apps.mail import addresses, content, reports, servers
from apps.mail.models import Draft, Folder, Mailbox, Message, Thread

logger = logging.getLogger(__name__)

ROLES = {
    "\\sent": Folder.Role.SENT,
    "\\drafts": Folder.Role.DRAFTS,
    "\\trash": Folder.Role.TRASH,
    "\\archive": Folder.Role.ARCHIVE,
    "\\all": Folder.Role.ARCHIVE,
    "\\junk": Folder.Role.JUNK,
}
LIST_LINE = re.compile(rb'\((?P<flags>[^)]*)\) (?P<separator>"[^"]*"|NIL) (?P<name>.+)$')
FETCH_HEAD = re.compile(rb"UID (\d+)")
FLAGS = re.compile(rb"FLAGS \(([^)]*)\)")
MESSAGE_IDS = re.compile(r"<[^<>\s]+>")
BATCH = 50
# Folders of the mailbox's own messages: a delivery report found there is not one it received.
NOT_RECEIVED = (Folder.Role.SENT, Folder.Role.DRAFTS)


def quoted(name: str) -> str:
    """A folder's name as an IMAP command writes it: in modified UTF-7, quoted."""
    name = utf7_encode(name)
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


MUTF7_RUN = re.compile(r"&([A-Za-z0-9+,]*)-")


def utf7_encode(name: str) -> str:
    """A folder's name in IMAP's modified UTF-7 (RFC 3501 section 5.1.3): printable ASCII as it is
    ("&" as "&-"), every other run of characters as "&" + its UTF-16 in base64 (',' for '/') + "-"."""
    out: list[str] = []
    run: list[str] = []

    def flush() -> None:
        if run:
            data = base64.b64encode("".join(run).encode("utf-16-be")).decode("ascii")
            out.append("&" + data.rstrip("=").replace("/", ",") + "-")
            run.clear()

    for char in name:
        if 0x20 <= ord(char) <= 0x7E:
            flush()
            out.append("&-" if char == "&" else char)
        else:
            run.append(char)
    flush()
    return "".join(out)


def utf7_decode(name: str) -> str:
    """A folder's name as the server lists it (modified UTF-7), as people read it."""

    def one(match: re.Match[str]) -> str:
        if not match[1]:
            return "&"
        data = match[1].replace(",", "/")
        try:
            return base64.b64decode(data + "=" * (-len(data) % 4)).decode("utf-16-be")
        except (ValueError, UnicodeDecodeError):
            return match[0]

    return MUTF7_RUN.sub(one, name)


def folders(client: imaplib.IMAP4) -> list[tuple[str, str]]:
    """(name, role) of every selectable folder of the server."""
    status, lines = client.list()
    found = []
    for line in lines if status == "OK" else []:
        if not isinstance(line, bytes):
            continue
        match = LIST_LINE.match(line)
        if not match:
            continue
        flags = match["flags"].decode("ascii", "replace").lower().split()
        if "\\noselect" in flags or "\\nonexistent" in flags:
            continue
        name = match["name"].decode("utf-8", "replace").strip()
        if name.startswith('"') and name.endswith('"'):
            name = name[1:-1].replace('\\"', '"').replace("\\\\", "\\")
        name = utf7_decode(name)
        role = next((ROLES[flag] for flag in flags if flag in ROLES), "")
        if name.upper() == "INBOX":
            name, role = "INBOX", Folder.Role.INBOX
        found.append((name, role))
    return found


def sync(mailbox: Mailbox) -> int:
    """Copies what is new on the server; returns how many messages were added. On a failure the
    mailbox is marked failing (with the kind of problem) and the error raised."""
    try:
        with servers.imap(mailbox) as client:
            added = 0
            seen = []
            for name, role in folders(client):
                folder, _created = Folder.objects.get_or_create(
                    mailbox=mailbox, name=name, defaults={"role": role}
                )
                if folder.role != role:
                    Folder.objects.filter(pk=folder.pk).update(role=role)
                seen.append(folder.pk)
                added += _sync_folder(client, mailbox, folder)
            Folder.objects.filter(mailbox=mailbox).exclude(pk__in=seen).delete()
    except AppError as error:
        Mailbox.objects.filter(pk=mailbox.pk).update(
            status=Mailbox.Status.FAILING, problem=str(error.message)[:300]
        )
        logger.warning("mailbox %s: sync failed (%s)", mailbox.pk, error.code)
        raise
    Mailbox.objects.filter(pk=mailbox.pk).update(
        status=Mailbox.Status.OK, problem="", synced_at=timezone.now()
    )
    logger.info("mailbox %s: %s new messages", mailbox.pk, added)
    return added


def untagged(client: imaplib.IMAP4, name: str) -> int | None:
    _typ, data = client.response(name)
    try:
        return int(data[0]) if data and data[0] is not None else None
    except (TypeError, ValueError):
        return None


def _sync_folder(client: imaplib.IMAP4, mailbox: Mailbox, folder: Folder) -> int:
    status, _data = client.select(quoted(folder.name), readonly=True)
    if status != "OK":
        return 0
    uidvalidity = untagged(client, "UIDVALIDITY")
    if uidvalidity is not None and folder.uidvalidity != uidvalidity:
        # The server renumbered the folder: what we hold of it is no longer addressable.
        Message.objects.filter(folder=folder).delete()
        folder.uidvalidity, folder.uidnext = uidvalidity, 1
    status, data = client.uid("SEARCH", "ALL")
    on_server = [int(uid) for uid in (data[0] or b"").split()] if status == "OK" else []
    known = dict(Message.objects.filter(folder=folder).values_list("uid", "id"))
    gone = [known[uid] for uid in set(known) - set(on_server)]
    if gone:
        Message.objects.filter(pk__in=gone).delete()
    _refresh_flags(client, folder, [uid for uid in on_server if uid in known])
    new = [uid for uid in on_server if uid >= folder.uidnext and uid not in known]
    if folder.uidnext == 1:
        new = new[-int(settings.ATRIUM_MAIL_SYNC_FIRST) :]
    drafts = _drafts_kept(mailbox, folder, uidvalidity)
    added = 0
    for start in range(0, len(new), BATCH):
        batch = [uid for uid in new[start : start + BATCH] if uid not in drafts.uids]
        if not batch:
            continue
        status, data = client.uid("FETCH", ",".join(map(str, batch)), "(UID FLAGS BODY.PEEK[])")
        if status != "OK":
            break
        for item in data:
            if isinstance(item, tuple) and len(item) == 2:
                added += _store(mailbox, folder, item[0], item[1], drafts=drafts.message_ids)
    folder.uidnext = max([folder.uidnext, *(uid + 1 for uid in on_server)])
    folder.synced_at = timezone.now()
    folder.save(update_fields=["uidvalidity", "uidnext", "synced_at"])
    return added


@dataclass(frozen=True)
class _Kept:
    uids: frozenset[int] = frozenset()
    message_ids: frozenset[str] = frozenset()


def _drafts_kept(mailbox: Mailbox, folder: Folder, uidvalidity: int | None) -> _Kept:
    """The copies of the service's own drafts in a Drafts folder (apps.mail.drafts), by UID and
    by Message-ID: they are drafts here already, never copied back as messages."""
    if folder.role != Folder.Role.DRAFTS and folder.name.lower() != "drafts":
        return _Kept()
    rows = Draft.objects.filter(mailbox=mailbox).exclude(message_id="")
    uids = rows.filter(server_folder=folder.name, server_uidvalidity=uidvalidity, server_uid__isnull=False)
    return _Kept(
        uids=frozenset(uid for uid in uids.values_list("server_uid", flat=True) if uid is not None),
        message_ids=frozenset(rows.values_list("message_id", flat=True)),
    )


def _refresh_flags(client: imaplib.IMAP4, folder: Folder, uids: list[int]) -> None:
    if not uids:
        return
    status, data = client.uid("FETCH", f"{min(uids)}:{max(uids)}", "(UID FLAGS)")
    if status != "OK":
        return
    flags_of = {}
    for item in data:
        line = item[0] if isinstance(item, tuple) else item
        if isinstance(line, bytes):
            uid, flags = FETCH_HEAD.search(line), FLAGS.search(line)
            if uid and flags:
                flags_of[int(uid[1])] = sorted(flags[1].decode("ascii", "replace").split())
    for message in Message.objects.filter(folder=folder, uid__in=list(flags_of)).only("id", "uid", "flags"):
        if message.flags != flags_of[message.uid]:
            Message.objects.filter(pk=message.pk).update(flags=flags_of[message.uid])


def parse(raw: bytes) -> EmailMessage:
    return email.message_from_bytes(raw, policy=email.policy.default)


def _header(message: EmailMessage, name: str) -> str:
    return content.header(message, name)


def automatic(message: EmailMessage) -> bool:
    """Whether a program answered with it, by the headers auto-responders set: RFC 3834's
    Auto-Submitted (anything but "no"), `Precedence: auto_reply`, and the older X-Autoreply and
    X-Autorespond of vacation responders. (Not `Precedence: list` or `bulk`: a group address such
    as a shared inbox relays people's own words with them.)"""
    submitted = _header(message, "Auto-Submitted").split(";")[0].strip().lower()
    if submitted and submitted != "no":
        return True
    if _header(message, "Precedence").strip().lower() == "auto_reply":
        return True
    return bool(_header(message, "X-Autoreply") or _header(message, "X-Autorespond"))


def _date(message: EmailMessage) -> datetime:
    """Its Date header, or the time it is copied when that says nothing or an impossible time: a
    date far out of the years mail is written in (9999-12-31 west of UTC is in the year 10000 in
    UTC, which no Python date holds) would fail every later read of the mailbox's messages."""
    try:
        value = parsedate_to_datetime(_header(message, "Date"))
        value = (value if value.tzinfo else value.replace(tzinfo=UTC)).astimezone(UTC)
    except (TypeError, ValueError, IndexError, OverflowError):
        return timezone.now()
    return value if clean.within_years(value.year) else timezone.now()


def message_ids(value: str) -> list[str]:
    return MESSAGE_IDS.findall(value)


@transaction.atomic
def _store(
    mailbox: Mailbox, folder: Folder, head: Any, raw: Any, *, drafts: frozenset[str] = frozenset()
) -> int:
    match = FETCH_HEAD.search(head) if isinstance(head, bytes) else None
    if not match or not isinstance(raw, bytes):
        return 0
    uid = int(match[1])
    flags = FLAGS.search(head)
    parsed = parse(raw)
    if drafts and next(iter(message_ids(_header(parsed, "Message-ID"))), "") in drafts:
        return 0  # a copy of one of the service's own drafts
    body = content.body_of(parsed)
    to, cc = addresses.of_header(_header(parsed, "To")), addresses.of_header(_header(parsed, "Cc"))
    sender = _header(parsed, "From")
    from_address = next(iter(addresses.of_header(sender)), "")
    message = Message(
        mailbox=mailbox,
        folder=folder,
        uid=uid,
        message_id=next(iter(message_ids(_header(parsed, "Message-ID"))), "")[:998],
        in_reply_to=next(iter(message_ids(_header(parsed, "In-Reply-To"))), "")[:998],
        references=" ".join(message_ids(_header(parsed, "References"))),
        subject=_header(parsed, "Subject"),
        sender=sender[:500],
        from_address=from_address[:254],
        to=to,
        cc=cc,
        reply_to=addresses.of_header(_header(parsed, "Reply-To")),
        addresses=sorted({a for a in [from_address, *to, *cc] if a}),
        date=_date(parsed),
        flags=sorted(flags[1].decode("ascii", "replace").split()) if flags else [],
        size=len(raw),
        text=body.text,
        html=body.html,
        blocked_images=body.blocked,
        attachments=body.attachments,
        automatic=automatic(parsed),
    )
    message.thread = thread_of(mailbox, message)
    message.save()
    if message.thread.last_message_at < message.date:
        Thread.objects.filter(pk=message.thread.pk).update(last_message_at=message.date)
    if folder.role not in NOT_RECEIVED:
        reports.received(parsed, mailbox_id=mailbox.pk)  # a bounce or a complaint, to its handlers
    return 1


def thread_of(mailbox: Mailbox, message: Message) -> Thread:
    """The thread a message belongs to: that of a message it answers or refers to, or of one
    that answered it and arrived first (the same message in another folder counts too); else
    a new one."""
    related = [*message_ids(message.references), message.in_reply_to, message.message_id]
    related = [value for value in related if value]
    rows = Message.objects.filter(mailbox=mailbox, thread__isnull=False)
    found = rows.filter(message_id__in=related).order_by("-date").first()
    if found is None and message.message_id:
        found = (
            rows.filter(in_reply_to=message.message_id).first()
            or rows.filter(references__contains=message.message_id).first()
        )
    if found is not None and found.thread is not None:
        return found.thread
    subject = re.sub(r"^((re|fwd?|aw|wg|tr)\s*:\s*)+", "", message.subject, flags=re.IGNORECASE)
    return Thread.objects.create(mailbox=mailbox, subject=subject[:500], last_message_at=message.date)
