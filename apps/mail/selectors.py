"""Reads of the mail app that are more than `restrict`: counts, a folder by role or name, the
search of findAndReadEmail, a thread."""

from typing import Any

from django.db.models import Count, Q
from django.utils.translation import gettext as _

from apps.core.actors import Actor
from apps.core.errors import invalid
from apps.core.search import matching
from apps.mail.models import Draft, Folder, Mailbox, Message

ROLES = {choice.value for choice in Folder.Role if choice.value}


def unread_in_inbox(*, actor: Actor) -> dict[int, int]:
    rows = (
        Message.objects.restrict(actor)
        .filter(folder__role=Folder.Role.INBOX)
        .exclude(flags__contains=["\\Seen"])
        .values("mailbox")
        .annotate(count=Count("id"))
    )
    return {row["mailbox"]: row["count"] for row in rows}


def folders_counted(*, mailbox: Mailbox) -> list[Any]:
    return list(
        Folder.objects.filter(mailbox=mailbox)
        .annotate(
            total=Count("messages"),
            unread=Count("messages", filter=~Q(messages__flags__contains=["\\Seen"])),
        )
        .order_by("name")
    )


def folder_named(*, mailbox: Mailbox, name: str) -> Folder:
    """The folder of a role ("inbox", "sent"...) or of a name; a clear error naming the folders
    there are otherwise."""
    wanted = name.strip()
    rows = Folder.objects.filter(mailbox=mailbox)
    found = rows.filter(role=wanted.lower()).first() if wanted.lower() in ROLES else None
    found = found or rows.filter(name=wanted).first() or rows.filter(name__iexact=wanted).first()
    if found is None:
        names = ", ".join(rows.values_list("name", flat=True)[:30]) or _("none yet (not synchronised)")
        raise invalid(
            "folder",
            _("mailbox {mailbox} has no folder {wanted!r}; it has: {names}"),
            mailbox=mailbox.pk,
            wanted=wanted,
            names=names,
        )
    return found


def message_search(*, actor: Actor, query: str, sender: str, mailbox_id: int | None) -> Any:
    """The messages the actor may read that match, newest first (both empty: the newest)."""
    rows = Message.objects.restrict(actor).select_related("folder")
    if mailbox_id is not None:
        rows = rows.filter(mailbox=Mailbox.objects.fetch(actor, mailbox_id))
    if sender.strip():
        rows = rows.filter(Q(from_address__icontains=sender.strip()) | Q(sender__icontains=sender.strip()))
    rows = matching(rows, query, ("subject", "text", "sender"))
    return rows.order_by("-date", "-id")


def thread_messages(*, actor: Actor, message: Message) -> list[Message]:
    if message.thread_id is None:
        return []
    rows = Message.objects.restrict(actor).filter(thread_id=message.thread_id).exclude(pk=message.pk)
    return list(rows.select_related("folder").order_by("date", "id")[:20])


def default_mailbox(*, actor: Actor) -> Mailbox:
    """The mailbox a new draft goes to when none is named: the actor's own, else the only one
    they may use; a clear error otherwise."""
    rows = Mailbox.objects.restrict(actor)
    own = rows.filter(owner=actor.pk, shared=False).first()
    if own is not None:
        return own
    usable = list(rows[:2])
    if len(usable) == 1:
        return usable[0]
    raise invalid("inbox_id", _("name the mailbox (listInboxes)") if usable else _("you may use no mailbox"))


def folders_changeable(*, actor: Actor, mailbox: Mailbox) -> bool:
    """Whether the actor changes the mailbox's folders: as its folders' declaration says (the rows
    of the mailbox they change, its owner's; the area's administrators, who connect every mailbox,
    are not among them: `admins=False`)."""
    if not Folder.access.may(actor, "change"):
        return False
    rows = Mailbox.objects.filter(pk=mailbox.pk, deleted_at__isnull=True)
    return rows.filter(Mailbox.access.rows(Mailbox, actor.pk, "change")).exists()


def answered(*, draft: Draft) -> Message | None:
    """The message a reply draft answers: the one it names, else the same message found again by
    its Message-ID (moved by another mail program, then copied anew by the sync); None when it is
    gone (the draft's own In-Reply-To and References still thread the reply)."""
    if draft.reply_to is not None or not draft.in_reply_to:
        return draft.reply_to
    rows = Message.objects.filter(mailbox=draft.mailbox_id, message_id=draft.in_reply_to)
    return rows.select_related("folder", "mailbox").order_by("-date", "-id").first()
