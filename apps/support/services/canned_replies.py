"""Customer Service's canned replies (macros): written, changed and trashed (a shared one by the
area's administrators alone), and used on a ticket: the body filled in for it, sent as a reply
or kept as a note, with its actions (status, priority, tags), in one transaction."""

import logging
from typing import Any

from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.accounts.models import person
from apps.core import clean, records
from apps.core.actors import Actor, require
from apps.core.errors import invalid
from apps.core.records import Visibility
from apps.core.search import tags as clean_tags
from apps.support import errors, placeholders
from apps.support.models import CannedReply, Priority, Ticket, TicketComment
from apps.support.permissions import SupportPerm
from apps.support.services.comments import email_reply, reply_kept, respond_check
from apps.support.services.sla import SETTABLE
from apps.support.services.tickets import ticket_update

logger = logging.getLogger(__name__)
Status = Ticket.Status


CANNED_FIELDS = ("title", "body", "visibility", "set_status", "set_priority", "add_tags")


def _canned_fields(actor: Actor, canned: CannedReply, fields: dict[str, Any], creating: bool) -> None:
    if "title" in fields or creating:
        canned.title = clean.text(fields.get("title"), field="title", limit=120, required=True)
    if "body" in fields or creating:
        body = clean.long_text(fields.get("body"), field="body", limit=20_000, required=True)
        canned.body = placeholders.check(body)
    if "visibility" in fields or creating:
        visibility = fields.get("visibility") or Visibility.PRIVATE
        if visibility not in Visibility.values:
            raise invalid("shared", _("choose one of {allowed}"), allowed=", ".join(Visibility.values))
        if visibility == Visibility.WORKSPACE and not CannedReply.access.may_share(actor):
            raise errors.SharedCannedReply()
        canned.visibility = visibility
    if "set_status" in fields:
        status = fields["set_status"] or ""
        if status and status not in SETTABLE:
            raise invalid("setStatus", _("choose one of {allowed}"), allowed=", ".join(SETTABLE))
        canned.set_status = status
    if "set_priority" in fields:
        priority = fields["set_priority"] or ""
        if priority and priority not in Priority.values:
            raise invalid("setPriority", _("choose one of {allowed}"), allowed=", ".join(Priority.values))
        canned.set_priority = priority
    if "add_tags" in fields:
        canned.add_tags = clean_tags(fields["add_tags"] or [], field="addTags")


def _known(fields: dict[str, Any]) -> None:
    unknown = set(fields) - set(CANNED_FIELDS)
    if unknown:
        raise invalid(sorted(unknown)[0], _("not a field of a canned reply"))


def canned_create_check(*, actor: Actor, fields: dict[str, Any]) -> None:
    """Everything `canned_create` would refuse, checked without writing (an import's rows)."""
    require(actor, SupportPerm.EDIT)
    _known(fields)
    _canned_fields(actor, CannedReply(owner=person(actor)), fields, True)


def canned_create(*, actor: Actor, fields: dict[str, Any]) -> CannedReply:
    """A canned reply of `actor`'s: personal unless `visibility` is "workspace" (administrators)."""
    _known(fields)
    return records.create(
        CannedReply,
        actor=actor,
        permission=SupportPerm.EDIT,
        fields=fields,
        apply=_canned_fields,
        owner=person(actor),
    )


def canned_update(*, actor: Actor, canned: CannedReply, fields: dict[str, Any]) -> list[str]:
    """Changes a canned reply the actor may change (a shared one: administrators alone)."""
    CannedReply.objects.fetch(actor, canned.pk, "change")
    _known(fields)
    return records.update(
        canned,
        actor=actor,
        permission=SupportPerm.EDIT,
        fields=fields,
        apply=_canned_fields,
        names=CANNED_FIELDS,
    )


def canned_delete(*, actor: Actor, canned: CannedReply) -> CannedReply:
    """Puts a canned reply in the trash (a shared one: administrators alone)."""
    require(actor, SupportPerm.EDIT)
    CannedReply.objects.fetch(actor, canned.pk, "delete")
    canned.trash(actor)
    return canned


def canned_check(
    *, actor: Actor, ticket: Ticket, canned: CannedReply, internal: bool, text: str | None = None
) -> tuple[str, dict[str, Any]]:
    """Everything `canned_use` would refuse, checked without writing: the reply's text (the body
    filled in for the ticket, or `text`, the person's edit of it) and the ticket's changes."""
    if text is None:
        text = placeholders.render(canned.body, ticket=ticket, agent=person(actor))
    respond_check(actor=actor, ticket=ticket, text=text, internal=internal, status=canned.set_status or None)
    changes: dict[str, Any] = {}
    if canned.set_priority:
        changes["priority"] = canned.set_priority
    if canned.add_tags:
        changes["tags"] = clean_tags([*ticket.tags, *canned.add_tags])
    return text, changes


def canned_use(
    *, actor: Actor, ticket: Ticket, canned: CannedReply, internal: bool, text: str | None = None
) -> TicketComment:
    """Applies a canned reply to a ticket: its body, filled in (or `text`), as a reply e-mailed to
    the requester or an internal note, and its actions (status, priority, tags), in one
    transaction with its count of uses; a reply that could not be sent keeps nothing."""
    text, changes = canned_check(actor=actor, ticket=ticket, canned=canned, internal=internal, text=text)
    outgoing = None if internal else email_reply(actor, ticket, text.strip())
    with transaction.atomic():
        if changes:
            ticket_update(actor=actor, ticket=ticket, fields=changes)
        comment = reply_kept(
            actor=actor, ticket=ticket, text=text, status=canned.set_status or None, outgoing=outgoing
        )
        CannedReply.objects.filter(pk=canned.pk).update(uses=F("uses") + 1, last_used_at=timezone.now())
    canned.refresh_from_db(fields=["uses", "last_used_at"])
    logger.info("canned reply %s used on ticket %s", canned.pk, ticket.pk)
    return comment
