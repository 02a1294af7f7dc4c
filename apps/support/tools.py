"""The Customer Service area of the catalogue (SPEC 4.7): thin doors onto the area's services and
selectors. Tickets are the workspace's own customers' (createSupportTicket is the vendor's)."""

from datetime import datetime
from typing import Annotated, Literal

from django.conf import settings
from django.utils.translation import gettext as _
from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import Marker, tool
from apps.catalogue.shapes import (
    Changes,
    From,
    HistoryOut,
    Limit,
    Offset,
    Out,
    Page,
    PersonRef,
    Tags,
    aware,
    id_field,
    paginate,
)
from apps.core import clean
from apps.core.errors import NothingToChange, invalid
from apps.support import placeholders, selectors
from apps.support.models import CannedReply, Escalation, Priority, SlaPolicy, Ticket, TicketComment
from apps.support.permissions import SupportPerm
from apps.support.services import canned_replies, comments, tickets

TicketId = Annotated[int, id_field("searchTickets")]
StatusName = Literal["new", "open", "pending", "on_hold", "solved", "closed"]
PriorityName = Literal["low", "normal", "high", "urgent"]
TypeName = Literal["question", "incident", "problem", "task"]
Person = Annotated[str, Field(max_length=254, description="A person of the workspace, by e-mail")]
Requester = Annotated[str, Field(max_length=254, description="The customer's e-mail")]
Text = Annotated[str, Field(min_length=1, max_length=20_000, description="Plain text")]


class TicketSummary(Out):
    id: int
    subject: str
    status: str
    priority: str
    requester_email: str
    assignee: PersonRef | None
    first_reply_due: datetime | None
    resolution_due: datetime | None
    breached: bool
    created_at: datetime


class CommentOut(Out):
    id: int
    public: bool
    author_kind: str
    author_name: str = Field(description="The agent's name, or the customer's")
    author_email: str
    body: str
    emailed: bool
    created_at: datetime


class RatingOut(Out):
    good: bool
    comment: str
    created_at: datetime


class TicketOut(TicketSummary):
    channel: str
    type: Annotated[str, From("ticket_type")] = Field(description="Empty: not set")
    tags: list[str]
    department_id: int | None
    follow_up_of_id: int | None
    merged_into_id: int | None
    satisfaction: RatingOut | None = Field(description="The requester's rating once solved")
    comments: list[CommentOut]
    history: list[HistoryOut] = Field(description="Reading one ticket: its changes, oldest first")


class EscalationOut(Out):
    id: int
    ticket_id: int
    level: int
    reason: str
    department_id: int | None
    owner: PersonRef | None
    due_at: datetime | None
    resolution: str
    resolved_at: datetime | None


def _summary(ticket: Ticket) -> TicketSummary:
    return TicketSummary.of_record(
        ticket,
        assignee=PersonRef.of(ticket.assignee),
        breached=ticket.first_reply_breached() or ticket.resolution_breached(),
    )


def _comment(comment: TicketComment) -> CommentOut:
    return CommentOut.of_record(
        comment,
        author_name=comment.author_name,
        author_email=comment.author.email if comment.author is not None else comment.author_email,
        emailed=comment.outgoing_id is not None,
    )


def _ticket(ticket: Ticket, *, public_only: bool = False, with_history: bool = False) -> TicketOut:
    said = ticket.comments.select_related("author", "ticket").order_by("created_at", "id")
    if public_only:
        said = said.filter(public=True)
    return TicketOut.of_record(
        ticket,
        assignee=PersonRef.of(ticket.assignee),
        breached=ticket.first_reply_breached() or ticket.resolution_breached(),
        comments=[_comment(c) for c in said[:100]],
        satisfaction=_rating(ticket),
        history=_history(ticket) if with_history else [],
    )


def _rating(ticket: Ticket) -> RatingOut | None:
    rating = selectors.rating_of(ticket)
    return RatingOut.of_record(rating) if rating is not None else None


def _history(ticket: Ticket) -> list[HistoryOut]:
    """Its status changes and its other changes, in the order they were made."""
    entries = [
        HistoryOut.of_record(
            change,
            kind="status",
            summary=f"{change.old or '-'} -> {change.new}",
            changes={"status": [change.old or None, change.new]},
            actor=PersonRef.of(change.actor),
        )
        for change in ticket.status_changes.select_related("actor")[:100]
    ]
    entries += [
        HistoryOut.of_record(event, actor=PersonRef.of(event.actor))
        for event in ticket.events.select_related("actor").order_by("-at", "-id")[:100]
    ]
    return sorted(entries, key=lambda entry: (entry.at, entry.kind != "status"))


def _person(email: str, field: str) -> object:
    return clean.person_by_email(email, field=field) if email.strip() else None


class OverviewOut(Out):
    by_status: dict[str, int]
    unassigned: int
    mine: int = Field(description="Open and assigned to you")
    breached: int
    near_breach: int = Field(description="Due within the hour")
    open_escalations: int
    attention: list[TicketSummary]


@tool(
    "getCustomerServiceOverview",
    permission=SupportPerm.VIEW,
    title="Customer service overview",
    read_only=True,
)
def get_customer_service_overview(ctx: ToolContext) -> OverviewOut:
    """The ticket queue now: counts by status, SLA breaches, open escalations, what needs attention."""
    found = selectors.overview(actor=ctx.actor)
    return OverviewOut(**{**found, "attention": [_summary(t) for t in found["attention"]]})


class PolicyOut(Out):
    priority: str
    first_reply_hours: float
    resolution_hours: float
    time_zone: str
    workdays: list[int]
    day_starts: str
    day_ends: str
    holidays_country: str


class SatisfactionOut(Out):
    rated: int
    good: int
    bad: int
    score: float | None = Field(description="Percent good of rated; null: none rated")


class SummaryOut(Out):
    mailbox: str | None = Field(description="Support address")
    policies: list[PolicyOut]
    close_after_days: int
    satisfaction: SatisfactionOut = Field(description="Ratings of the tickets you see")


@tool("getSupportSummary", permission=SupportPerm.VIEW, title="Customer service settings", read_only=True)
def get_support_summary(ctx: ToolContext) -> SummaryOut:
    """The support address, SLA targets per priority in business hours, auto-close days, CSAT."""
    mailbox = tickets.support_mailbox()
    policies = SlaPolicy.objects.restrict(ctx.actor)
    return SummaryOut(
        mailbox=mailbox.address if mailbox else None,
        policies=[
            PolicyOut.of_record(p, day_starts=str(p.day_starts)[:5], day_ends=str(p.day_ends)[:5])
            for p in policies
        ],
        close_after_days=int(settings.ATRIUM_SUPPORT_CLOSE_AFTER_DAYS),
        satisfaction=SatisfactionOut(**selectors.satisfaction(actor=ctx.actor)),
    )


@tool("createCustomerServiceTicket", permission=SupportPerm.EDIT, title="Create a ticket")
def create_customer_service_ticket(
    ctx: ToolContext,
    *,
    subject: Annotated[str, Field(min_length=1, max_length=300, description="Their request in a line")],
    text: Annotated[str, Field(min_length=1, max_length=20_000, description="What they asked, in full")],
    requester_email: Requester = "",
    requester_name: Annotated[str, Field(max_length=200, description="The customer's name")] = "",
    priority: Annotated[PriorityName, Field(description="Sets the SLA targets")] = "normal",
    channel: Annotated[
        Literal["phone", "web", "chat", "email", "agent"], Field(description="How they asked")
    ] = "phone",
    assignee_email: Person = "",
    tags: Annotated[Tags, Field(description="Labels")] = [],  # noqa: B006
) -> TicketOut:
    """Log a customer's request as a ticket, with its SLA targets."""
    ticket = tickets.ticket_create(
        actor=ctx.actor,
        subject=subject,
        text=text,
        requester_email=requester_email,
        requester_name=requester_name,
        priority=priority,
        channel=channel,
        assignee=_person(assignee_email, "assigneeEmail"),
        tags=tags,
    )
    return _ticket(ticket)


@tool("searchTickets", permission=SupportPerm.VIEW, title="Search tickets", read_only=True)
def search_tickets(
    ctx: ToolContext,
    *,
    query: Annotated[str, Field(max_length=200, description="Words of subject, requester, comments")] = "",
    status: Annotated[list[StatusName], Field(max_length=6, description="Any of these")] = [],  # noqa: B006
    priority: Annotated[PriorityName | None, Field(description="Only this one")] = None,
    assignee_email: Person = "",
    requester_email: Requester = "",
    breached: Annotated[bool, Field(description="Only past an SLA target")] = False,
    ticket_id: Annotated[int | None, Field(ge=1, le=2**63 - 1, description="Read this one")] = None,
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[TicketOut]:
    """Find tickets by words, status, priority, people or SLA breach; with ticketId, read its thread."""
    if ticket_id is not None:
        ticket = Ticket.objects.select_related("assignee").fetch(ctx.actor, ticket_id)
        return paginate([ticket], limit=1, offset=0, item=lambda t: _ticket(t, with_history=True))
    rows = selectors.ticket_search(
        actor=ctx.actor,
        query=query,
        statuses=list(status),
        priority=priority,
        assignee=_person(assignee_email, "assigneeEmail"),
        requester_email=requester_email,
        breached_only=breached,
    )
    return paginate(rows, limit=limit, offset=offset, item=lambda t: _ticket(t, public_only=False))


def _reply_goes_out(
    ctx: ToolContext, *, ticket_id: int, text: str, internal: bool, status: str | None
) -> bool:
    """respondToTicket's confirmation: for a reply that is e-mailed, once it is known that it can
    be (an internal note is never sent, so it is not asked about)."""
    ticket = Ticket.objects.select_related("mailbox").fetch(ctx.actor, ticket_id, "change")
    comments.respond_check(actor=ctx.actor, ticket=ticket, text=text, internal=internal, status=status)
    return not internal


@tool(
    "respondToTicket",
    permission=SupportPerm.REPLY,
    title="Reply to a ticket",
    markers=Marker.HIGH_RISK,
    open_world=True,
    confirm_if=_reply_goes_out,
)
def respond_to_ticket(
    ctx: ToolContext,
    *,
    ticket_id: TicketId,
    text: Text,
    internal: Annotated[bool, Field(description="A note, never e-mailed")] = False,
    status: Annotated[StatusName | None, Field(description="Then; reply default: pending")] = None,
) -> TicketOut:
    """E-mail the requester a reply in the ticket's thread (status then pending), or add a note."""
    ticket = Ticket.objects.select_related("mailbox", "policy").fetch(ctx.actor, ticket_id, "change")
    comments.ticket_respond(actor=ctx.actor, ticket=ticket, text=text, internal=internal, status=status)
    return _ticket(ticket)


class TicketChanges(Changes):
    priority: PriorityName | None = None
    assignee_email: Annotated[str, Field(max_length=254, description='"": nobody')] = ""
    tags: Tags | None = None
    type: TypeName | None = None


@tool("updateTicket", permission=SupportPerm.EDIT, title="Update a ticket")
def update_ticket(
    ctx: ToolContext,
    *,
    ticket_id: TicketId,
    changes: Annotated[TicketChanges, Field(description="Only the fields to change")],
) -> TicketOut:
    """Change a ticket's priority, assignee, tags or type, each kept in its history."""
    ticket = Ticket.objects.select_related("assignee", "policy").fetch(ctx.actor, ticket_id, "change")
    given = changes.given(required=True)
    fields: dict[str, object] = {}
    if "priority" in given:
        if given["priority"] is None:
            raise invalid(
                "priority",
                _("a ticket always has a priority: choose one of {allowed}"),
                allowed=", ".join(Priority.values),
            )
        fields["priority"] = given["priority"]
    if "assignee_email" in given:
        email = (given["assignee_email"] or "").strip()
        fields["assignee"] = clean.person_by_email(email, field="assigneeEmail") if email else None
    if "tags" in given:
        fields["tags"] = given["tags"] or []
    if "type" in given:
        fields["ticket_type"] = given["type"] or ""
    tickets.ticket_update(actor=ctx.actor, ticket=ticket, fields=fields)
    return _ticket(ticket, with_history=True)


def _merge_checked(ctx: ToolContext, *, ticket_id: int, into_ticket_id: int, across_customers: bool) -> bool:
    """mergeTickets' confirmation, asked once the merge is known to be possible."""
    ticket, into = _merging(ctx, ticket_id, into_ticket_id)
    tickets.merge_check(actor=ctx.actor, ticket=ticket, into=into, across_customers=across_customers)
    return True


def _merging(ctx: ToolContext, ticket_id: int, into_ticket_id: int) -> tuple[Ticket, Ticket]:
    rows = Ticket.objects.select_related("policy", "assignee")
    return rows.fetch(ctx.actor, ticket_id, "change"), rows.fetch(ctx.actor, into_ticket_id, "change")


@tool(
    "mergeTickets",
    permission=SupportPerm.EDIT,
    title="Merge two tickets",
    markers=Marker.DESTRUCTIVE,
    confirm_if=_merge_checked,
)
def merge_tickets(
    ctx: ToolContext,
    *,
    ticket_id: Annotated[int, id_field("searchTickets", description="Closes, into the other")],
    into_ticket_id: Annotated[int, id_field("searchTickets", description="The one kept")],
    across_customers: Annotated[bool, Field(description="Allow different requesters")] = False,
) -> TicketOut:
    """Merge a duplicate ticket into another: its thread moves there and it closes, linked to it."""
    ticket, into = _merging(ctx, ticket_id, into_ticket_id)
    kept = tickets.ticket_merge(actor=ctx.actor, ticket=ticket, into=into, across_customers=across_customers)
    return _ticket(kept, with_history=True)


@tool("addMyTicketComment", permission=SupportPerm.REQUEST, title="Comment on my ticket")
def add_my_ticket_comment(
    ctx: ToolContext,
    *,
    ticket_id: TicketId,
    text: Text,
    satisfied: Annotated[bool | None, Field(description="Rate a solved ticket")] = None,
) -> TicketOut:
    """As its requester, comment on a ticket you asked for, or rate it once solved."""
    ticket = selectors.my_ticket(actor=ctx.actor, ticket_id=ticket_id)
    comments.requester_comment(actor=ctx.actor, ticket=ticket, text=text, satisfied=satisfied)
    return _ticket(ticket, public_only=True)


def _escalation(escalation: Escalation) -> EscalationOut:
    return EscalationOut.of_record(escalation, owner=PersonRef.of(escalation.owner))


@tool("escalateTicket", permission=SupportPerm.EDIT, title="Escalate a ticket")
def escalate_ticket(
    ctx: ToolContext,
    *,
    ticket_id: TicketId,
    reason: Annotated[str, Field(min_length=1, max_length=5000, description="Why, for its owner")],
    department_id: Annotated[int | None, id_field("listDepartments")] = None,
    owner_email: Person = "",
    due_at: Annotated[datetime | None, Field(description="Default: resolution due")] = None,
) -> EscalationOut:
    """Escalate a ticket to a department and/or a person, with a reason and a due time."""
    from apps.departments import api as departments

    ticket = Ticket.objects.select_related("policy").fetch(ctx.actor, ticket_id, "change")
    department = None
    if department_id is not None:
        department = departments.visible_department(ctx.actor, department_id)
        if department is None:
            raise departments.not_found(department_id)
    escalation = tickets.ticket_escalate(
        actor=ctx.actor,
        ticket=ticket,
        reason=reason,
        department=department,
        owner=_person(owner_email, "ownerEmail"),
        due_at=aware(due_at),
    )
    return _escalation(escalation)


@tool("resolveEscalation", permission=SupportPerm.EDIT, title="Resolve an escalation")
def resolve_escalation(
    ctx: ToolContext,
    *,
    escalation_id: Annotated[int, id_field("escalateTicket")],
    resolution: Annotated[str, Field(min_length=1, max_length=5000, description="What was done")],
) -> EscalationOut:
    """Record how an escalation was resolved; the ticket stays as it is."""
    escalation = Escalation.objects.select_related("owner").fetch(ctx.actor, escalation_id, "change")
    return _escalation(
        tickets.escalation_resolve(actor=ctx.actor, escalation=escalation, resolution=resolution)
    )


@tool("closeTicket", permission=SupportPerm.EDIT, title="Close a ticket")
def close_ticket(ctx: ToolContext, *, ticket_id: TicketId) -> TicketSummary:
    """Close a ticket for good; a later message from the customer opens a follow-up."""
    ticket = Ticket.objects.select_related("policy", "assignee").fetch(ctx.actor, ticket_id, "change")
    return _summary(tickets.ticket_close(actor=ctx.actor, ticket=ticket))


# --- canned replies ------------------------------------------------------------------------------

CannedReplyId = Annotated[int, id_field("listCannedReplies")]


class CannedReplyOut(Out):
    id: int
    title: str
    body: str = Field(description="With its {{placeholders}}")
    shared: bool = Field(description="Everyone in support's; false: yours alone")
    owner: PersonRef | None
    set_status: str = Field(description="Applied: the ticket's status then; empty: as a reply sets it")
    set_priority: str = Field(description="Empty: unchanged")
    add_tags: list[str]
    uses: int
    last_used_at: datetime | None


def _canned(canned: CannedReply) -> CannedReplyOut:
    return CannedReplyOut.of_record(canned, owner=PersonRef.of(canned.owner))


@tool("listCannedReplies", permission=SupportPerm.VIEW, title="List canned replies", read_only=True)
def list_canned_replies(
    ctx: ToolContext,
    *,
    query: Annotated[str, Field(max_length=200, description="Words of title or body")] = "",
    shared: Annotated[bool | None, Field(description="Only shared (true) or your own (false)")] = None,
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[CannedReplyOut]:
    """Find the canned replies (macros) you may use, shared and your own; applyCannedReply uses one."""
    rows = selectors.canned_replies(actor=ctx.actor, query=query, shared=shared)
    return paginate(rows, limit=limit, offset=offset, item=_canned)


PLACEHOLDERS_TOLD = "Placeholders: " + ", ".join("{{" + name + "}}" for name in placeholders.NAMES)


@tool("manageCannedReply", permission=SupportPerm.EDIT, title="Create, change or delete a canned reply")
def manage_canned_reply(
    ctx: ToolContext,
    *,
    action: Annotated[Literal["create", "update", "delete"], Field(description="delete: to the trash")],
    canned_reply_id: Annotated[
        int | None, id_field("listCannedReplies", description="update, delete")
    ] = None,
    title: Annotated[str | None, Field(max_length=120, description="A short name")] = None,
    body: Annotated[str | None, Field(max_length=20_000, description=PLACEHOLDERS_TOLD)] = None,
    shared: Annotated[bool | None, Field(description="Everyone's (administrators); default: yours")] = None,
    set_status: Annotated[
        str | None, Field(max_length=10, description='Then; "": as a reply sets it')
    ] = None,
    set_priority: Annotated[str | None, Field(max_length=10, description='Then; "": unchanged')] = None,
    add_tags: Annotated[Tags | None, Field(description="Added to the ticket")] = None,
) -> CannedReplyOut:
    """Create, change or delete a canned reply (a macro) that listCannedReplies finds."""
    given = {
        "title": title,
        "body": body,
        "visibility": None if shared is None else ("workspace" if shared else "private"),
        "set_status": set_status,
        "set_priority": set_priority,
        "add_tags": add_tags,
    }
    fields = {name: value for name, value in given.items() if value is not None}
    if action == "create":
        return _canned(canned_replies.canned_create(actor=ctx.actor, fields=fields))
    if canned_reply_id is None:
        raise invalid("cannedReplyId", _("name the canned reply to {action}"), action=action)
    canned = CannedReply.objects.select_related("owner").fetch(ctx.actor, canned_reply_id, "change")
    if action == "delete":
        return _canned(canned_replies.canned_delete(actor=ctx.actor, canned=canned))
    if not fields:
        raise NothingToChange()
    canned_replies.canned_update(actor=ctx.actor, canned=canned, fields=fields)
    return _canned(canned)


def _canned_goes_out(ctx: ToolContext, *, ticket_id: int, canned_reply_id: int, internal: bool) -> bool:
    """applyCannedReply's confirmation, as respondToTicket's: for a reply that is e-mailed, once it
    is known that it can be."""
    ticket, canned = _applying(ctx, ticket_id, canned_reply_id)
    canned_replies.canned_check(actor=ctx.actor, ticket=ticket, canned=canned, internal=internal)
    return not internal


def _applying(ctx: ToolContext, ticket_id: int, canned_reply_id: int) -> tuple[Ticket, CannedReply]:
    ticket = Ticket.objects.select_related("mailbox", "policy", "assignee").fetch(
        ctx.actor, ticket_id, "change"
    )
    return ticket, CannedReply.objects.fetch(ctx.actor, canned_reply_id)


@tool(
    "applyCannedReply",
    permission=SupportPerm.REPLY,
    title="Apply a canned reply to a ticket",
    markers=Marker.HIGH_RISK,
    open_world=True,
    confirm_if=_canned_goes_out,
)
def apply_canned_reply(
    ctx: ToolContext,
    *,
    ticket_id: TicketId,
    canned_reply_id: CannedReplyId,
    internal: Annotated[bool, Field(description="As a note, never e-mailed")] = False,
) -> TicketOut:
    """Answer a ticket with a canned reply, filled in, and apply its actions.
    respondToTicket writes a reply of one's own. As a note (internal), nothing is e-mailed."""
    ticket, canned = _applying(ctx, ticket_id, canned_reply_id)
    canned_replies.canned_use(actor=ctx.actor, ticket=ticket, canned=canned, internal=internal)
    return _ticket(ticket, with_history=True)
