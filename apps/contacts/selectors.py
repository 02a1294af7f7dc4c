"""Reads about contacts beyond what the access model gives (apps.core.records: who sees a contact
is `Contact.objects.restrict(actor)`, one contact `Contact.objects.fetch(actor, id, "change")`,
what a person may do with it `Contact.access.level(actor, contact)`): the answer of getContact in
one statement, search ranking, health, possible duplicates.
"""

from datetime import timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.postgres.aggregates import JSONBAgg
from django.db.models import (
    Case,
    CharField,
    Exists,
    F,
    IntegerField,
    JSONField,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Value,
    When,
)
from django.db.models.functions import Coalesce, JSONObject, Lower, NullIf
from django.utils import timezone

from apps.contacts.errors import DuplicateNotFound
from apps.contacts.models import Contact, ContactConflict, ContactEvent, ContactShare, KeyContact
from apps.core import customfields, search
from apps.core.actors import Actor
from apps.core.prepared import Prepared

# Relationship health from activity: days since the last interaction -> status.
HEALTH_THRESHOLDS = (
    (30, Contact.Health.HEALTHY),
    (90, Contact.Health.NEEDS_ATTENTION),
    (180, Contact.Health.AT_RISK),
)


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


def _contact_by_id(every: bool, *, contact_id: int, actor_id: int) -> QuerySet[Contact]:
    rows = Contact.objects.filter(pk=contact_id)
    if not every:
        rows = rows.filter(Contact.access.visible_to(Contact, actor_id))
    # With its custom field values, in the same statement (apps.core.customfields).
    return customfields.annotate(annotate_answer_parts(rows), "contacts").select_related("owner").order_by()


# The read behind getContact, the hottest tool: compiled once (apps.core.prepared).
_contact_by_id_prepared = Prepared(_contact_by_id)

# What a contact's answer (shapes.ContactOut) needs besides the contact: its shares with their
# people, and whether it has any open possible duplicate. getContact reads them in the contact's
# own statement (each round trip to the database costs the web process CPU of its own: bench/).
SHARES_READ = "answer_shares"
ANY_OPEN_CONFLICT_READ = "answer_any_open_conflict"
# The fields of a share and of its person that the answer uses (ShareOut, Access.level, PersonRef).
_SHARE_JSON = {"id": "id", "user_id": "user_id", "access": "access"}
_PERSON_JSON = {"email": "user__email", "full_name": "user__full_name"}


def annotate_answer_parts(rows: QuerySet[Contact]) -> QuerySet[Contact]:
    """Annotates each contact with its shares (a JSON list; `answer_parts` makes them model
    instances again) and whether any open possible duplicate names it (`open_conflicts_page`)."""
    shares = (
        ContactShare.objects.filter(item_id=OuterRef("pk"))
        .order_by()
        .values("item_id")
        .annotate(rows=JSONBAgg(JSONObject(**_SHARE_JSON, **_PERSON_JSON)))
        .values("rows")
    )
    return rows.annotate(
        **{
            SHARES_READ: Coalesce(Subquery(shares), Value([], output_field=JSONField())),
            # Cheap to plan and to run (no joins); the page of duplicates, read when it is true,
            # leaves out those of archived contacts.
            ANY_OPEN_CONFLICT_READ: Exists(_open_pairs(OuterRef("pk"))),
        }
    )


def contact_answer(*, actor: Actor, contact_id: int, trash: bool = False) -> Contact:
    """The contact as getContact answers it, in one statement: with its owner, its shares and
    whether it has open possible duplicates (they are not read again if the contact changes
    afterwards). The same rows and errors as `Contact.objects.fetch(actor, contact_id,
    trash=trash)`; the organisation and the contact it was merged into are read when used
    (`contact_refs` reads both in one query)."""
    if not Contact.access.may(actor, "view"):
        raise Contact.access.not_found(Contact, contact_id)
    found = _contact_by_id_prepared(Contact.access.all_rows(actor), contact_id=contact_id, actor_id=actor.pk)
    if not found:
        raise Contact.access.not_found(Contact, contact_id)
    contact: Contact = found[0]  # type: ignore[assignment]  # the prepared query's rows are contacts
    if contact.in_trash and not trash:
        raise Contact.access.in_trash(Contact, contact_id)
    customfields.seen("contacts", contact)
    return contact


# The parts of an answer for a contact read without them, compiled once.
_answer_parts_of = Prepared(
    lambda *, contact_id: annotate_answer_parts(Contact.objects.filter(pk=contact_id)).only("id").order_by()
)


def answer_parts(contact: Contact) -> tuple[list[ContactShare], bool]:
    """The contact's shares (each with its person, `user`) and whether any open possible
    duplicate names it: those read with the contact (`contact_answer`), or both read now, in one
    statement."""
    source: Any = contact
    if not hasattr(contact, SHARES_READ):
        found = _answer_parts_of(contact_id=contact.pk) if contact.pk else []
        if not found:
            return [], False
        source = found[0]
    using = contact._state.db or "default"
    shares = []
    for row in getattr(source, SHARES_READ):
        share = _loaded(
            ContactShare,
            using,
            {"id": row["id"], "item_id": contact.pk, "user_id": row["user_id"], "access": row["access"]},
        )
        # Rebuilt with only the fields the answer uses; any other would be read when used.
        share.user = _loaded(
            get_user_model(),
            using,
            {"id": row["user_id"], "email": row["email"], "full_name": row["full_name"]},
        )
        shares.append(share)
    return shares, getattr(source, ANY_OPEN_CONFLICT_READ)


def _loaded(model: Any, using: str, values: dict[str, Any]) -> Any:
    """An instance of `model` as the database gave it, with only `values` loaded (by attname)."""
    names = [field.attname for field in model._meta.concrete_fields if field.attname in values]
    return model.from_db(using, names, [values[name] for name in names])


def contact_search(*, actor: Actor, query: str, include_deleted: bool = False) -> QuerySet[Contact]:
    """Free-text search over names, e-mail, phone, company, job title, city and tags, ranked:
    exact e-mail first, then names that start with the query, then the rest."""
    rows = Contact.objects.restrict(actor, trash="include" if include_deleted else "exclude")
    for term in search.words(query):
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
        if field in contact._state.fields_cache:
            found[pk] = getattr(contact, field)
        else:
            missing.append(pk)
    if missing:
        found.update((row.pk, row) for row in Contact.objects.filter(pk__in=missing).order_by())
    return found


def _open_pairs(contact: Any) -> QuerySet[ContactConflict]:
    """The open possible duplicates naming `contact` (an id, or an OuterRef), archived or not."""
    return ContactConflict.objects.filter(
        Q(contact_id=contact) | Q(other_id=contact), status=ContactConflict.Status.OPEN
    )


def open_conflicts_page(
    contact: Contact, limit: int, any_open: bool, reader: Actor
) -> tuple[list[ContactConflict], int]:
    """The first `limit` open possible duplicates of `contact` (`read_by` the reader) and how
    many there are. Most contacts have none, which `any_open` (whether any open one names the
    contact, from `answer_parts`) says without a query."""
    if not any_open:
        return [], 0
    conflicts = list(read_by(open_conflicts(contact), reader)[: limit + 1])
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


def read_by(conflicts: QuerySet[ContactConflict], reader: Actor) -> QuerySet[ContactConflict]:
    """The possible duplicates with whether `reader` may see each side (`contact_seen`,
    `other_seen`), in the same statement."""
    visible = Contact.objects.restrict(reader, trash="include")
    return conflicts.select_related("contact", "other").annotate(
        contact_seen=Exists(visible.filter(pk=OuterRef("contact_id"))),
        other_seen=Exists(visible.filter(pk=OuterRef("other_id"))),
    )


def conflicts_read_by(conflicts: list[ContactConflict], reader: Actor) -> list[ContactConflict]:
    """These possible duplicates (just opened), `read_by` the reader."""
    return list(
        read_by(ContactConflict.objects.filter(pk__in=[c.pk for c in conflicts]), reader).order_by("id")
    )


def conflict_get(*, actor: Actor, conflict_id: int) -> ContactConflict:
    """A possible duplicate, if the actor may see both its contacts (archived or not)."""
    conflict = ContactConflict.objects.select_related("contact", "other").filter(pk=conflict_id).first()
    visible = Contact.objects.restrict(actor, trash="include")
    if conflict is None or not visible.filter(pk__in=[conflict.contact_id, conflict.other_id]).count() == 2:
        raise DuplicateNotFound(conflict=conflict_id)
    return conflict


# --- the settings pages -------------------------------------------------------------------------


def contact_list(
    *, actor: Actor, query: str = "", kind: str = "", stage: str = "", archived: bool = False
) -> QuerySet[Contact]:
    """The Contacts page's list: the contacts the actor may see (the archived ones alone with
    `archived`), ranked as searchContacts ranks them for a query, by name as listContacts sorts
    them without one; `kind` and `stage` narrow it when given."""
    if search.words(query):
        rows = contact_search(actor=actor, query=query, include_deleted=archived)
        if archived:
            rows = rows.filter(deleted_at__isnull=False)
    else:
        rows = Contact.objects.restrict(actor, trash="only" if archived else "exclude").order_by(
            "last_name", "first_name", "organisation_name", "id"
        )
    if kind:
        rows = rows.filter(kind=kind)
    if stage:
        rows = rows.filter(lifecycle_stage=stage)
    return rows.select_related("owner", "organisation")


def contact_history(*, contact: Contact) -> QuerySet[ContactEvent]:
    """The contact's history, newest first, with who did each thing (the contact: one the reader
    may see, `contact_answer`)."""
    return ContactEvent.objects.filter(contact=contact).select_related("actor")


def contact_relations(*, actor: Actor, contact: Contact) -> dict[str, Any]:
    """The contacts a contact is linked to, those the actor may see: its organisation's people
    (for an organisation), its key contacts and the organisations it is one for, the contact it
    was merged into and those merged into it, and its open possible duplicates."""
    visible = Contact.objects.restrict(actor, trash="include")
    refs = contact_refs(contact)
    organisation = refs.get(contact.organisation_id) if contact.organisation_id else None
    merged_into = refs.get(contact.merged_into_id) if contact.merged_into_id else None
    shown = set(visible.filter(pk__in=list(refs)).values_list("pk", flat=True))
    pairs = [
        (conflict, conflict.other if conflict.contact_id == contact.pk else conflict.contact)
        for conflict in open_conflicts(contact)[:50]
    ]
    seen = set(visible.filter(pk__in=[other.pk for _conflict, other in pairs]).values_list("pk", flat=True))
    conflicts = [{"conflict": conflict, "other": other} for conflict, other in pairs if other.pk in seen]
    return {
        "organisation": organisation if organisation is not None and organisation.pk in shown else None,
        "merged_into": merged_into if merged_into is not None and merged_into.pk in shown else None,
        "people": list(
            Contact.objects.restrict(actor)
            .filter(organisation=contact)
            .order_by("last_name", "first_name", "id")[:100]
        )
        if contact.kind == Contact.Kind.ORGANISATION
        else [],
        "key_contacts": list(
            KeyContact.objects.filter(
                organisation=contact, person__in=visible.filter(deleted_at__isnull=True)
            ).select_related("person")[:50]
        ),
        "key_for": list(
            KeyContact.objects.filter(
                person=contact, organisation__in=visible.filter(deleted_at__isnull=True)
            ).select_related("organisation")[:50]
        ),
        "merged_from": list(visible.filter(merged_into=contact).order_by("id")[:50]),
        "conflicts": conflicts,
    }
