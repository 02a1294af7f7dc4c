"""Reads about contacts, filtered to what the actor may see.

A contact is visible to people whose role allows contacts.view when it is visible to everyone,
or when they own it, or it is shared with them; contacts.admin sees every contact. Anything else
is "not found", never "forbidden" (the same answer as an id that does not exist).
"""

from datetime import timedelta
from typing import Any

from django.db.models import (
    Case,
    CharField,
    Exists,
    F,
    IntegerField,
    OuterRef,
    Q,
    QuerySet,
    Value,
    When,
)
from django.db.models.functions import Coalesce, Lower, NullIf
from django.utils import timezone

from apps.accounts.access import can
from apps.contacts import errors
from apps.contacts.models import Contact, ContactConflict, ContactShare
from apps.contacts.permissions import ContactsPerm
from apps.core.prepared import Prepared

# Relationship health from activity: days since the last interaction -> status.
HEALTH_THRESHOLDS = (
    (30, Contact.Health.HEALTHY),
    (90, Contact.Health.NEEDS_ATTENTION),
    (180, Contact.Health.AT_RISK),
)


def is_admin(actor: Any) -> bool:
    return can(actor, ContactsPerm.ADMIN)


def contact_visible(
    *, actor: Any, include_deleted: bool = False, only_deleted: bool = False
) -> QuerySet[Contact]:
    if not can(actor, ContactsPerm.VIEW):
        return Contact.objects.none()
    rows = Contact.objects.all()
    if only_deleted:
        rows = rows.filter(deleted_at__isnull=False)
    elif not include_deleted:
        rows = rows.filter(deleted_at__isnull=True)
    if not is_admin(actor):
        rows = rows.filter(visible_to(actor.pk))
    return rows


def visible_to(actor_id: Any) -> Q:
    """Contacts visible to everyone, owned by the person, or shared with them."""
    shared = ContactShare.objects.filter(contact=OuterRef("pk"), user_id=actor_id)
    return Q(visibility=Contact.Visibility.EVERYONE) | Q(owner_id=actor_id) | Exists(shared)


def with_health(rows: QuerySet[Contact]) -> QuerySet[Contact]:
    """Annotates `effective_health`: the status a person set, or the one activity gives."""
    now = timezone.now()
    last = Coalesce(F("last_contacted_at"), F("created_at"))
    computed = Case(
        *[
            When(**{"last_contacted_at__gte": now - timedelta(days=days)}, then=Value(status.value))
            for days, status in HEALTH_THRESHOLDS
        ],
        When(last_contacted_at__isnull=True, created_at__gte=now - timedelta(days=30), then=Value("healthy")),
        default=Value(Contact.Health.COLD.value),
        output_field=CharField(),
    )
    return rows.annotate(
        last_interaction=last,
        effective_health=Coalesce(NullIf(F("health_status"), Value("")), computed, output_field=CharField()),
    )


def _contact_by_id(admin: bool, *, contact_id: int, actor_id: int) -> QuerySet[Contact]:
    rows = Contact.objects.filter(pk=contact_id)
    if not admin:
        rows = rows.filter(visible_to(actor_id))
    return rows.select_related("owner").order_by()


# The read behind nearly every contact tool: compiled once (apps.core.prepared).
_contact_by_id_prepared = Prepared(_contact_by_id)


def contact_get(*, actor: Any, contact_id: int, include_deleted: bool = False) -> Contact:
    # With its owner; the organisation and the contact it was merged into are loaded when used
    # (`contact_refs` reads both in one query).
    if not can(actor, ContactsPerm.VIEW):
        raise errors.ContactNotFound(contact_id)
    found = _contact_by_id_prepared(is_admin(actor), contact_id=contact_id, actor_id=actor.pk)
    contact = found[0] if found else None
    if contact is None:
        raise errors.ContactNotFound(contact_id)
    if contact.deleted_at is not None and not include_deleted:
        raise errors.ContactArchived(contact_id)
    return contact


def access_of(actor: Any, contact: Contact, shares: list[ContactShare] | None = None) -> str:
    """What `actor` may do with a contact they can see: "admin", "owner", "edit" or "view"
    (`shares`: the contact's shares, when the caller has them already)."""
    if is_admin(actor):
        return "admin"
    if contact.owner_id == actor.pk:
        return "owner"
    if shares is not None:
        share = next((item.access for item in shares if item.user_id == actor.pk), None)
    else:
        share = (
            ContactShare.objects.filter(contact=contact, user=actor).values_list("access", flat=True).first()
        )
    if share == ContactShare.Access.EDIT:
        return "edit"
    if contact.visibility == Contact.Visibility.EVERYONE and can(actor, ContactsPerm.EDIT):
        return "edit"
    return "view"


def contact_get_for_edit(*, actor: Any, contact_id: int, include_deleted: bool = False) -> Contact:
    contact = contact_get(actor=actor, contact_id=contact_id, include_deleted=include_deleted)
    if access_of(actor, contact) == "view":
        raise errors.ContactReadOnly(contact_id)
    return contact


def contacts_get_many(*, actor: Any, contact_ids: list[int], for_edit: bool = False) -> list[Contact]:
    """The contacts with these ids, in the order asked, each visible (and changeable)."""
    return [
        (contact_get_for_edit if for_edit else contact_get)(actor=actor, contact_id=contact_id)
        for contact_id in contact_ids
    ]


def contact_search(*, actor: Any, query: str, include_deleted: bool = False) -> QuerySet[Contact]:
    """Free-text search over names, e-mail, phone, company, job title, city and tags, ranked:
    exact e-mail first, then names that start with the query, then the rest."""
    rows = contact_visible(actor=actor, include_deleted=include_deleted)
    terms = [term for term in query.split() if term][:8]
    for term in terms:
        digits = "".join(ch for ch in term if ch.isdigit())
        match = (
            Q(first_name__icontains=term)
            | Q(last_name__icontains=term)
            | Q(organisation_name__icontains=term)
            | Q(email__icontains=term)
            | Q(company__icontains=term)
            | Q(job_title__icontains=term)
            | Q(city__icontains=term)
            | Q(tags__contains=[term.lower()])
        )
        if len(digits) >= 4:
            match |= Q(phone__contains=digits) | Q(mobile__contains=digits)
        rows = rows.filter(match)
    whole = query.strip()
    rank = Case(
        When(email__iexact=whole, then=Value(100)),
        When(Q(first_name__istartswith=whole) | Q(last_name__istartswith=whole), then=Value(60)),
        When(organisation_name__istartswith=whole, then=Value(60)),
        When(Q(company__istartswith=whole) | Q(email__istartswith=whole), then=Value(40)),
        default=Value(10),
        output_field=IntegerField(),
    )
    return rows.annotate(rank=rank).order_by(
        "-rank", Lower("last_name"), Lower("first_name"), "organisation_name", "id"
    )


def contact_refs(contact: Contact) -> dict[int, Contact]:
    """The contacts `contact` points at (its organisation, the contact it was merged into), by
    id, in one query; those already loaded are not read again."""
    found: dict[int, Contact] = {}
    missing = []
    for field in ("organisation", "merged_into"):
        pk = getattr(contact, f"{field}_id")
        if pk is None:
            continue
        if Contact._meta.get_field(field).is_cached(contact):
            found[pk] = getattr(contact, field)
        else:
            missing.append(pk)
    if missing:
        found.update((row.pk, row) for row in Contact.objects.filter(pk__in=missing).order_by())
    return found


_any_open_conflict = Prepared(
    lambda *, contact_id: ContactConflict.objects.filter(
        Q(contact_id=contact_id) | Q(other_id=contact_id), status=ContactConflict.Status.OPEN
    ).only("id")[:1]
)


def open_conflicts_page(contact: Contact, limit: int) -> tuple[list[ContactConflict], int]:
    """The first `limit` open possible duplicates of `contact` and how many there are. Most
    contacts have none: that answer costs one small query."""
    if not _any_open_conflict(contact_id=contact.pk):
        return [], 0
    conflicts = list(open_conflicts(contact)[: limit + 1])
    if len(conflicts) <= limit:
        return conflicts, len(conflicts)
    return conflicts[:limit], open_conflicts(contact).count()


def open_conflicts(contact: Contact) -> QuerySet[ContactConflict]:
    return (
        ContactConflict.objects.filter(
            Q(contact=contact) | Q(other=contact), status=ContactConflict.Status.OPEN
        )
        .filter(contact__deleted_at__isnull=True, other__deleted_at__isnull=True)
        .select_related("contact", "other")
    )


def conflict_get(*, actor: Any, conflict_id: int) -> ContactConflict:
    conflict = ContactConflict.objects.select_related("contact", "other").filter(pk=conflict_id).first()
    visible = contact_visible(actor=actor, include_deleted=True)
    if conflict is None or not visible.filter(pk__in=[conflict.contact_id, conflict.other_id]).count() == 2:
        raise errors.AppError(
            f"Possible duplicate {conflict_id} was not found, or you may not see both contacts. "
            "getContact lists a contact's open possible duplicates.",
            code="NOT_FOUND",
            http_status=404,
        )
    return conflict
