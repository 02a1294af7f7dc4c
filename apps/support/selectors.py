"""Reads of Customer Service that are more than `restrict`: the queue's counts and breaches, the
ticket search, a requester's own tickets, the canned replies one may use."""

from datetime import datetime
from typing import Any

from django.db.models import Count, F, Q
from django.db.models.functions import Coalesce
from django.db.models.lookups import GreaterThan
from django.utils import timezone

from apps.core.actors import Actor, can
from apps.core.search import matching
from apps.support.models import CannedReply, Escalation, SatisfactionRating, Ticket
from apps.support.services.sla import NEAR

Status = Ticket.Status
LIVE = ~Q(status__in=[Status.SOLVED, Status.CLOSED])


def breached(now: datetime) -> Q:
    """Tickets past a target: the first reply late or missing past due, or not solved in time.
    A ticket's clocks stop when it is solved or closed (a merge closes it): one ended in time
    never breaches later (`Ticket.first_reply_breached`, `resolution_breached`)."""
    first_met = Coalesce("first_replied_at", "solved_at", "closed_at")
    first = Q(first_reply_due__isnull=False) & (
        Q(GreaterThan(first_met, F("first_reply_due")))
        | Q(
            first_replied_at__isnull=True,
            solved_at__isnull=True,
            closed_at__isnull=True,
            paused_at__isnull=True,
            first_reply_due__lt=now,
        )
    )
    resolution = Q(resolution_due__isnull=False) & (
        Q(GreaterThan(Coalesce("solved_at", "closed_at"), F("resolution_due")))
        | Q(solved_at__isnull=True, closed_at__isnull=True, paused_at__isnull=True, resolution_due__lt=now)
    )
    return first | resolution


def near_breach(now: datetime) -> Q:
    soon = now + NEAR
    running = LIVE & Q(paused_at__isnull=True)
    first = Q(first_replied_at__isnull=True, first_reply_due__gte=now, first_reply_due__lt=soon)
    return running & (first | Q(resolution_due__gte=now, resolution_due__lt=soon))


def overview(*, actor: Actor) -> dict[str, Any]:
    now = timezone.now()
    rows = Ticket.objects.restrict(actor)
    by_status = dict(rows.values_list("status").annotate(count=Count("id")).values_list("status", "count"))
    live = rows.filter(LIVE)
    return {
        "by_status": {choice.value: by_status.get(choice.value, 0) for choice in Status},
        "unassigned": live.filter(assignee__isnull=True).count(),
        "mine": live.filter(assignee=actor.pk).count(),
        "breached": live.filter(breached(now)).count(),
        "near_breach": live.filter(near_breach(now)).count(),
        "open_escalations": Escalation.objects.restrict(actor).filter(resolved_at__isnull=True).count(),
        "attention": list(
            live.filter(breached(now) | near_breach(now) | Q(assignee__isnull=True))
            .select_related("assignee")
            .order_by(F("resolution_due").asc(nulls_last=True), "id")[:10]
        ),
    }


def ticket_search(
    *,
    actor: Actor,
    query: str = "",
    statuses: list[str] | None = None,
    priority: str | None = None,
    assignee: Any = None,
    requester_email: str = "",
    breached_only: bool = False,
) -> Any:
    rows = Ticket.objects.restrict(actor).select_related("assignee")
    if statuses:
        rows = rows.filter(status__in=statuses)
    if priority:
        rows = rows.filter(priority=priority)
    if assignee is not None:
        rows = rows.filter(assignee=assignee)
    if requester_email.strip():
        rows = rows.filter(requester_email__iexact=requester_email.strip())
    if breached_only:
        rows = rows.filter(breached(timezone.now()))
    rows = matching(rows, query, ("subject", "requester_name", "requester_email", "comments__body"))
    return rows.distinct().order_by("-created_at", "-id")


def my_ticket(*, actor: Actor, ticket_id: int) -> Ticket:
    """A ticket the actor asked for (its requester address is theirs); "not found" otherwise."""
    email = (getattr(actor, "email", "") or "").strip()
    found = Ticket.objects.filter(
        pk=ticket_id, deleted_at__isnull=True, requester_email__iexact=email
    ).first()
    if not email or found is None:
        raise Ticket.access.not_found(Ticket, ticket_id)
    return found


def rating_of(ticket: Ticket) -> SatisfactionRating | None:
    """The requester's rating of the ticket, if they gave one."""
    try:
        return ticket.satisfaction
    except SatisfactionRating.DoesNotExist:
        return None


def satisfaction(*, actor: Actor) -> dict[str, Any]:
    """The ratings of the tickets the actor sees: how many, good and bad, the percent good."""
    rows = SatisfactionRating.objects.filter(ticket__in=Ticket.objects.restrict(actor))
    counts = rows.aggregate(rated=Count("id"), good=Count("id", filter=Q(good=True)))
    rated, good = counts["rated"] or 0, counts["good"] or 0
    return {
        "rated": rated,
        "good": good,
        "bad": rated - good,
        "score": round(100 * good / rated, 1) if rated else None,
    }


def canned_replies(*, actor: Actor, query: str = "", shared: bool | None = None) -> Any:
    """The canned replies the actor may use: the shared ones and their own, most used first; by
    words of their title and body, shared or personal only."""
    rows = CannedReply.objects.restrict(actor).select_related("owner")
    if shared is not None:
        rows = rows.filter(visibility="workspace" if shared else "private")
    rows = matching(rows, query, ("title", "body"))
    return rows.order_by("-uses", "title", "id")


def workers() -> Any:
    """The active people whose role may work tickets (change them), by name: whom a ticket may be
    given to (services.tickets.works_tickets)."""
    from django.contrib.auth import get_user_model

    from apps.support.permissions import SupportPerm

    people = (
        get_user_model().objects.filter(is_active=True).select_related("role").order_by("full_name", "email")
    )
    return people.filter(pk__in=[someone.pk for someone in people[:1000] if can(someone, SupportPerm.EDIT)])
