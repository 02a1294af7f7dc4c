"""Grievances: filed by anyone who may see HR, seen and handled by hr.grievances alone; every
read is recorded (`grievances_read`) and every change kept (`GrievanceEvent`). Logs name ids
only: a grievance's words are special-category data."""

import logging
import re
from collections.abc import Iterable
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import CharField, F, Q, Value
from django.utils.translation import gettext as _

from apps.accounts.models import person
from apps.core import clean
from apps.core.actors import Actor, require
from apps.core.errors import invalid
from apps.core.origin import current
from apps.hr.errors import GrievanceClosed
from apps.hr.models import Employee, Grievance, GrievanceEvent, GrievanceRead
from apps.hr.permissions import HrPerm

logger = logging.getLogger(__name__)
Status = Grievance.Status
# Where a grievance may go from each status (closed is final: a new concern is a new case).
NEXT = {
    Status.OPEN: {Status.INVESTIGATING, Status.RESOLVED, Status.CLOSED},
    Status.INVESTIGATING: {Status.OPEN, Status.RESOLVED, Status.CLOSED},
    Status.RESOLVED: {Status.INVESTIGATING, Status.CLOSED},
    Status.CLOSED: set(),
}


@transaction.atomic
def grievance_file(*, actor: Actor, category: str, description: str, about: str = "") -> Grievance:
    require(actor, HrPerm.VIEW)
    grievance = Grievance.objects.create(
        filed_by=person(actor),
        created_by=person(actor),
        category=clean.text(category, field="category", limit=60, required=True),
        description=clean.long_text(description, field="description", limit=20_000, required=True),
        about=clean.text(about, field="about", limit=200),
    )
    grievance.about_people.set(_people_named(grievance.about))
    GrievanceEvent.objects.create(grievance=grievance, by=person(actor), change="filed")
    logger.info("grievance %s filed", grievance.pk)
    return grievance


def _people_named(about: str) -> list[Any]:
    """The people of the workspace that a grievance's `about` names: by e-mail address, by full
    name (as a person or as an employee linked to one)."""
    if not about:
        return []
    text = about.casefold()
    addresses = {word.strip("<>()[],;:") for word in text.split() if "@" in word}
    # The database finds whose name the text holds; a whole-word check drops "Ann" in "Annual".
    said = Value(about, output_field=CharField())
    people = get_user_model()._default_manager.filter(is_active=True).annotate(said=said)
    named: dict[Any, Any] = {
        user.pk: user
        for user in people.filter(
            Q(email__in=addresses) | Q(~Q(full_name=""), said__icontains=F("full_name"))
        )
        if user.email.casefold() in addresses or _names(user.full_name.casefold(), text)
    }
    employees = Employee.objects.filter(user__is_active=True).annotate(said=said)
    for employee in employees.filter(~Q(full_name=""), said__icontains=F("full_name")).select_related("user"):
        user = employee.user
        if user is not None and _names(employee.full_name.casefold(), text):
            named.setdefault(user.pk, user)
    return list(named.values())


def _names(full_name: str, text: str) -> bool:
    """Whether `text` names the person by their whole name (not a part of another word)."""
    return re.search(rf"(?<!\w){re.escape(full_name)}(?!\w)", text) is not None


def door() -> str:
    origin = current()
    return f"{origin.door}:{origin.tool}"[:60] if origin else "page"


def grievances_read(*, actor: Actor, grievances: Iterable[Grievance]) -> int:
    """Records that the actor read these grievances (the audit trail)."""
    rows = [GrievanceRead(grievance=g, reader=person(actor), door=door()) for g in grievances]
    with transaction.atomic():
        GrievanceRead.objects.bulk_create(rows)
    return len(rows)


@transaction.atomic
def grievance_update(*, actor: Actor, grievance: Grievance, fields: dict[str, Any]) -> list[str]:
    """Changes status, handler or outcome, with a note; returns what changed."""
    require(actor, HrPerm.GRIEVANCES)
    grievance = Grievance.objects.fetch(actor, grievance.pk, "change", lock=True)
    if grievance.status == Status.CLOSED:
        raise GrievanceClosed(reference=grievance.reference, details={"grievanceId": ["closed"]})
    changes: list[str] = []
    note = clean.long_text(fields.get("note"), field="note", limit=5000)
    if "outcome" in fields and fields["outcome"] is not None:
        grievance.outcome = clean.long_text(fields["outcome"], field="outcome", limit=5000)
        changes.append("outcome recorded")
    if fields.get("handler_email"):
        handler = clean.able(
            clean.person_by_email(fields["handler_email"], field="handlerEmail"),
            HrPerm.GRIEVANCES,
            field="handlerEmail",
        )
        if handler.pk == grievance.filed_by_id:
            raise invalid("handlerEmail", _("the person who filed it cannot handle it"))
        if grievance.about_people.filter(pk=handler.pk).exists():
            raise invalid("handlerEmail", _("the person it is about cannot handle it"))
        grievance.handler = handler
        changes.append(f"handler: person {handler.pk}")
    status = fields.get("status")
    if status and status != grievance.status:
        if status not in NEXT[Status(grievance.status)]:
            raise invalid(
                "status",
                _("a grievance {status} cannot become {wanted}"),
                status=grievance.status,
                wanted=status,
            )
        if status in (Status.RESOLVED, Status.CLOSED) and not grievance.outcome:
            raise invalid("outcome", _("say the outcome before the grievance is {status}"), status=status)
        changes.append(f"status: {grievance.status} -> {status}")
        grievance.status = status
    if not changes and not note:
        raise invalid("status", _("say what to change: status, handlerEmail, outcome or a note"))
    grievance.save()
    GrievanceEvent.objects.create(
        grievance=grievance, by=person(actor), change="; ".join(changes)[:200] or "note", note=note
    )
    logger.info("grievance %s updated", grievance.pk)
    return changes
