"""Personal data in Mail (docs/privacy.md).

A person's mail is that of their own (not shared) mailboxes, their drafts, signatures and what
they sent through the outbox; mail that names them (from, to or cc their address) in any
mailbox of the workspace is theirs too, whoever's mailbox holds it. Export: all of it, without
the raw bytes of outgoing messages (their text is in the export of the Sent copy). Erasure: their
personal mailboxes go (with everything in them); shared mailboxes stay, without them as owner or
member; the messages naming them are removed from the workspace's copy (the mail server's copy
is the mailbox owner's, outside Atrium's erasure: docs/mail.md says so). A suppression-list row of
their address is exported; erasure blanks the address and keeps its digest, so their objection
to campaign mail is still honoured.
"""

from django.db.models import Q, QuerySet
from django.utils import timezone

from apps.core import privacy
from apps.core.privacy import Subject
from apps.mail.models import (
    Draft,
    Folder,
    Mailbox,
    MailboxMember,
    Message,
    Outgoing,
    Signature,
    Suppression,
    Thread,
)
from apps.mail.suppression import digest


def _personal_mailboxes(rows: QuerySet[Mailbox]) -> int:
    return rows.filter(shared=False, deleted_at__isnull=True).update(deleted_at=timezone.now())


def _erase_mailboxes(rows: QuerySet[Mailbox]) -> int:
    kept = rows.filter(shared=True).update(owner=None)
    erased, _per_model = rows.filter(shared=False).delete()
    return kept + erased


def _messages(subject: Subject) -> QuerySet[Message]:
    condition = Q(pk__in=[])
    if subject.email:
        email = subject.email.strip().lower()
        condition = Q(from_address=email) | Q(addresses__contains=[email])
    if subject.user is not None:
        condition |= Q(mailbox__owner=subject.user, mailbox__shared=False)
    return Message._base_manager.filter(condition)


def _threads(subject: Subject) -> QuerySet[Thread]:
    return Thread._base_manager.filter(pk__in=_messages(subject).values("thread"))


def _thread_if_empty(rows: QuerySet[Thread]) -> int:
    # Runs after the messages (order): a thread that still holds others' messages stays.
    return rows.filter(messages__isnull=True).delete()[0]


def _drafts(subject: Subject) -> QuerySet[Draft]:
    condition = Q(pk__in=[])
    if subject.user is not None:
        condition = Q(author=subject.user) | Q(mailbox__owner=subject.user, mailbox__shared=False)
    return Draft._base_manager.filter(condition)


privacy.register(
    Mailbox,
    user="owner",
    exclude=["secret"],
    soft_delete=_personal_mailboxes,
    erase=_erase_mailboxes,
    order=50,
)
privacy.register(MailboxMember, user="user")
privacy.register(Message, find=_messages, order=10)
privacy.register(Thread, find=_threads, erase=_thread_if_empty, order=20)
privacy.register(Draft, find=_drafts, soft_delete="deleted_at")
privacy.register(Signature, user="user")
privacy.register(Outgoing, user="created_by", exclude=["raw"])
privacy.not_personal(Folder, reason="the folder names of a mailbox's server (Inbox, Sent, ...)")


def _suppressions(subject: Subject) -> QuerySet[Suppression]:
    if not subject.email:
        return Suppression.objects.none()
    return Suppression.objects.filter(digest=digest(subject.email))


# Erasure keeps the digest: the person objected to this mail, and must not get it again.
privacy.register(Suppression, find=_suppressions, exclude=["digest"], erase={"address": ""})
