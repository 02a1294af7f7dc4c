"""Customer Service's records as spreadsheets (apps.core.transfer).

- Tickets are exported (the ones the person sees, as searchTickets finds them), never imported:
  a ticket is a conversation with a requester, opened by their e-mail or an agent, its first
  message, SLA clock and notices started then; a row of old tickets would start clocks and write
  to customers for conversations that are over.
- Canned replies are exported (the shared ones and the person's own, as listCannedReplies
  lists them: another person's own canned replies never) and imported, each row made as
  manageCannedReply makes one (`canned_create`): personal unless `shared` (administrators),
  its placeholders checked. Two canned replies are one when they have the same title.
"""

from typing import Any

from django.db.models.functions import Lower
from django.utils.translation import gettext_lazy as _

from apps.core import search, transfer
from apps.core.errors import invalid
from apps.core.records import Visibility
from apps.core.transfer import Column
from apps.support.models import CannedReply, Ticket
from apps.support.permissions import SupportPerm
from apps.support.services import canned_replies

# --- tickets ------------------------------------------------------------------------------------


def _email(user: Any) -> str:
    return user.email if user is not None else ""


transfer.exportable(
    transfer.Exportable(
        kind="ticket",
        label=_("Ticket"),
        permission=SupportPerm.VIEW,
        columns=(
            ("id", lambda ticket: ticket.pk),
            ("subject", lambda ticket: ticket.subject),
            ("status", lambda ticket: ticket.status),
            ("priority", lambda ticket: ticket.priority),
            ("ticketType", lambda ticket: ticket.ticket_type),
            ("channel", lambda ticket: ticket.channel),
            ("requesterName", lambda ticket: ticket.requester_name),
            ("requesterEmail", lambda ticket: ticket.requester_email),
            ("assigneeEmail", lambda ticket: _email(ticket.assignee)),
            ("department", lambda ticket: ticket.department.name if ticket.department else ""),
            ("tags", lambda ticket: "; ".join(ticket.tags or [])),
            ("createdAt", lambda ticket: ticket.created_at),
            ("firstReplyDue", lambda ticket: ticket.first_reply_due),
            ("firstRepliedAt", lambda ticket: ticket.first_replied_at),
            ("resolutionDue", lambda ticket: ticket.resolution_due),
            ("solvedAt", lambda ticket: ticket.solved_at),
            ("closedAt", lambda ticket: ticket.closed_at),
        ),
        rows=lambda actor: (
            Ticket.objects.restrict(actor, "view").select_related("assignee", "department").order_by("id")
        ),
        search=("subject", "requester_name", "requester_email"),
    )
)


# --- canned replies -----------------------------------------------------------------------------

YES = ("true", "yes", "y", "1")
NO = ("false", "no", "n", "0", "")


def _shared(text: str) -> str:
    value = text.strip().lower()
    if value in YES:
        return Visibility.WORKSPACE
    if value in NO:
        return Visibility.PRIVATE
    raise invalid("shared", _("{text!r} is not true or false"), text=text)


def _tags(text: str) -> list[str]:
    return search.tags(text.replace(";", ",").split(","), field="addTags")


CANNED_COLUMNS = (
    Column("title", "title", "a short name"),
    Column("body", "body", "the reply, with placeholders such as {{customer.first_name}}"),
    Column("shared", "visibility", "true: everyone's (administrators); false (the default): yours", _shared),
    Column("setStatus", "set_status", "then set the ticket's status to"),
    Column("setPriority", "set_priority", "then set the ticket's priority to"),
    Column("addTags", "add_tags", "then add these tags, separated by commas or semicolons", _tags),
)


def _canned_check(actor: Any, fields: dict[str, Any]) -> None:
    canned_replies.canned_create_check(actor=actor, fields=fields)


def _canned_create(actor: Any, fields: dict[str, Any]) -> int:
    return canned_replies.canned_create(actor=actor, fields=fields).pk


def _title_key(title: Any) -> str:
    return f"title:{' '.join(str(title).lower().split())}"


def _canned_keys(fields: dict[str, Any]) -> list[str]:
    return [_title_key(fields["title"])] if str(fields.get("title") or "").strip() else []


def _canned_existing(actor: Any, wanted: set[str]) -> dict[str, int]:
    titles = [key.partition(":")[2] for key in wanted if key.startswith("title:")]
    if not titles:
        return {}
    rows = (
        CannedReply.objects.restrict(actor, "view")
        .annotate(lower_title=Lower("title"))
        .filter(lower_title__in=titles)
        .order_by("id")
    )
    found: dict[str, int] = {}
    for pk, title in rows.values_list("pk", "title"):
        found.setdefault(_title_key(title), pk)
    return found


transfer.importable(
    transfer.Importable(
        kind="cannedReply",
        label=_("Canned reply"),
        permission=SupportPerm.EDIT,
        columns=CANNED_COLUMNS,
        check=_canned_check,
        create=_canned_create,
        keys=_canned_keys,
        existing=_canned_existing,
        description="title: a canned reply of the same title that you see (shared or yours)",
    )
)

# The import's columns after the id, then what the area counts.
transfer.exportable(
    transfer.Exportable(
        kind="cannedReply",
        label=_("Canned reply"),
        permission=SupportPerm.VIEW,
        columns=(
            ("id", lambda canned: canned.pk),
            ("title", lambda canned: canned.title),
            ("body", lambda canned: canned.body),
            ("shared", lambda canned: canned.shared),
            ("setStatus", lambda canned: canned.set_status),
            ("setPriority", lambda canned: canned.set_priority),
            ("addTags", lambda canned: "; ".join(canned.add_tags or [])),
            ("ownerEmail", lambda canned: _email(canned.owner)),
            ("uses", lambda canned: canned.uses),
            ("lastUsedAt", lambda canned: canned.last_used_at),
            ("createdAt", lambda canned: canned.created_at),
        ),
        rows=lambda actor: CannedReply.objects.restrict(actor, "view").select_related("owner").order_by("id"),
        search=("title", "body"),
    )
)
