"""Personal data in Customer Service (docs/privacy.md).

A requester is found by e-mail address: their tickets (with every comment, status change,
escalation and rating) are exported, soft-deleted in the first phase and erased. A person of the
workspace who worked tickets (an agent) keeps nothing personal there but their name on rows: the
tickets stay, without them as author, escalation owner or who-changed-it (assignee and the like
are emptied when their user row goes); their own requester-side comments (addMyTicketComment) go
with the tickets they asked for. Their canned replies are exported; their personal ones are
erased, their shared ones (the team's words) stay without them as owner.
"""

from django.db.models import Q, QuerySet
from django.utils import timezone

from apps.core import privacy
from apps.core.privacy import Subject
from apps.support.models import (
    CannedReply,
    Escalation,
    SatisfactionRating,
    SlaPolicy,
    StatusChange,
    SupportMailbox,
    SupportMailboxChange,
    Ticket,
    TicketComment,
    TicketEvent,
)


def _comments(subject: Subject) -> QuerySet[TicketComment]:
    condition = Q(pk__in=[])
    if subject.email:
        condition |= Q(author_email__iexact=subject.email) | Q(ticket__requester_email__iexact=subject.email)
    if subject.user is not None:
        condition |= Q(author=subject.user)
    return TicketComment._base_manager.filter(condition)


def _erase_comments(rows: QuerySet[TicketComment]) -> int:
    # Runs before the tickets (order): an agent's words on someone else's ticket stay, unsigned.
    kept = rows.filter(author_kind=TicketComment.Author.AGENT).update(author=None)
    erased, _per_model = rows.exclude(author_kind=TicketComment.Author.AGENT).delete()
    return kept + erased


def _set_aside_canned(rows: QuerySet[CannedReply]) -> int:
    # The first phase: their personal ones to the trash; the shared ones stay in use.
    return rows.filter(visibility="private", deleted_at__isnull=True).update(deleted_at=timezone.now())


def _erase_canned(rows: QuerySet[CannedReply]) -> int:
    kept = rows.filter(visibility="workspace").update(owner=None, created_by=None, deleted_by=None)
    erased, _per_model = rows.exclude(visibility="workspace").delete()
    return kept + erased


privacy.register(CannedReply, user="owner", soft_delete=_set_aside_canned, erase=_erase_canned)
privacy.register(TicketComment, find=_comments, erase=_erase_comments, order=10)
privacy.register(StatusChange, user="actor", erase={"actor": None})
privacy.register(TicketEvent, user="actor", erase={"actor": None})
privacy.register(SupportMailboxChange, user="actor", erase={"actor": None})
privacy.register(Escalation, user="owner", erase={"owner": None, "created_by": None, "resolved_by": None})
privacy.register(SatisfactionRating, email="ticket__requester_email", order=10)
privacy.register(Ticket, email="requester_email", soft_delete="deleted_at", order=20)
privacy.not_personal(SlaPolicy, reason="the workspace's SLA targets and working hours")
privacy.not_personal(SupportMailbox, reason="which mailbox of the mail app takes support mail")
