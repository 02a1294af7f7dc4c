"""What the contact tools answer (camelCase JSON; apps.catalogue.shapes.Out)."""

from datetime import date, datetime
from typing import Annotated, Any

from django.utils import timezone
from pydantic import Field

from apps.catalogue.shapes import From, Out, PersonRef, ShareOut
from apps.contacts import selectors
from apps.contacts.models import (
    Contact,
    ContactConflict,
    KeyContact,
)

# The possible duplicates a contact answer lists; the count says how many there are.
OPEN_CONFLICTS_SHOWN = 20


class ContactRef(Out):
    id: int
    kind: str
    display_name: str

    @classmethod
    def among(cls, contacts: dict[int, Contact], pk: int | None) -> "ContactRef | None":
        """The reference to contact `pk` of `contacts` (read by id), None when there is none."""
        found = contacts.get(pk) if pk is not None else None
        return cls.of_record(found) if found is not None else None

    @classmethod
    def shown(cls, contact: Contact, seen: bool) -> "ContactRef":
        """The contact, or, to a reader who may not see it, a reference that says there is one
        and not which (id 0, no kind, no name)."""
        return cls.of_record(contact) if seen else cls(id=0, kind="", display_name="")


class Address(Out):
    street: str
    city: str
    region: str
    postal_code: str
    country: str = Field(description="ISO alpha-2")


class ContactSummary(Out):
    id: int
    kind: str
    display_name: str
    email: str
    phone: str
    company: str
    job_title: str
    lifecycle_stage: str
    tags: list[str]
    owner: PersonRef | None
    archived: bool
    updated_at: datetime

    @classmethod
    def of(cls, contact: Contact) -> "ContactSummary":
        organisation = contact.organisation if contact.organisation_id else None
        return cls.of_record(
            contact,
            phone=contact.phone or contact.mobile,
            company=organisation.organisation_name if organisation else contact.company,
            archived=contact.in_trash,
        )


class HealthOut(Out):
    contact_id: int
    status: str = Field(description="healthy, needs_attention, at_risk or cold")
    score: int = Field(description="0-100")
    basis: str = Field(description="manual or activity")
    note: str
    set_by: PersonRef | None
    set_at: datetime | None
    last_interaction_at: datetime | None
    days_since_last_interaction: int | None
    factors: list[str]


class ConflictOut(Out):
    id: int
    contact: ContactRef
    other: ContactRef
    reason: str = Field(description="same_email, same_phone or same_name")
    status: str
    resolution: str
    note: str
    created_at: datetime
    resolved_at: datetime | None

    @classmethod
    def of(cls, conflict: ContactConflict) -> "ConflictOut":
        """A possible duplicate `read_by` its reader (apps.contacts.selectors): a look-alike they
        may not see is there, unnamed (a warning about a private contact says there is one,
        never whose)."""
        return cls.of_record(
            conflict,
            contact=ContactRef.shown(conflict.contact, conflict.contact_seen),  # type: ignore[attr-defined]
            other=ContactRef.shown(conflict.other, conflict.other_seen),  # type: ignore[attr-defined]
        )


class KeyContactOut(Out):
    contact: Annotated[ContactRef, From("person")]
    role: str
    position: int


class ContactOut(Out):
    id: int
    kind: str
    display_name: str
    first_name: str
    last_name: str
    organisation_name: str
    email: str
    phone: str = Field(description="E.164")
    mobile: str = Field(description="E.164")
    job_title: str
    company: str
    organisation: ContactRef | None
    website: str
    address: Address
    birthday: date | None
    notes: str
    tags: list[str]
    lifecycle_stage: str
    source: str
    owner: PersonRef | None
    visibility: str
    your_access: str
    shared_with: list[ShareOut]
    last_contacted_at: datetime | None
    health: str
    data: dict[str, Any]
    key_contacts: list[KeyContactOut]
    open_conflicts: list[ConflictOut] = Field(
        description=f"Possible duplicates (first {OPEN_CONFLICTS_SHOWN})"
    )
    open_conflict_count: int
    created_at: datetime
    updated_at: datetime
    archived_at: datetime | None
    merged_into: ContactRef | None

    @classmethod
    def of(cls, contact: Contact, actor: Any) -> "ContactOut":
        # Each related list is read once (a read tool's speed is mostly its round trips): the
        # shares, and whether there is any open possible duplicate, come with the contact when it
        # was read with them (getContact), or in one statement. (ShareOut sorts the shares by
        # e-mail address.)
        shares, any_open = selectors.answer_parts(contact)
        # A contact with many look-alikes must not make every answer about it grow without bound.
        conflicts, count = selectors.open_conflicts_page(contact, OPEN_CONFLICTS_SHOWN, any_open, actor)
        refs = selectors.contact_refs(contact)
        keys = (
            list(
                KeyContact.objects.filter(
                    organisation=contact, person__deleted_at__isnull=True
                ).select_related("person")
            )
            if contact.kind == Contact.Kind.ORGANISATION
            else []
        )
        return cls.of_record(
            contact,
            organisation=ContactRef.among(refs, contact.organisation_id),
            address=Address.of_record(contact),
            your_access=Contact.access.level(actor, contact, shares),
            shared_with=ShareOut.many(shares),
            health=health_status(contact),
            data=contact.data or {},
            key_contacts=[KeyContactOut.of_record(key) for key in keys],
            open_conflicts=[ConflictOut.of(conflict) for conflict in conflicts],
            open_conflict_count=count,
            archived_at=contact.deleted_at,
            merged_into=ContactRef.among(refs, contact.merged_into_id),
        )


def health_of(contact: Contact, conflicts: int | None = None) -> HealthOut:
    """The relationship's health: what a person set, or what the activity says (`conflicts`:
    the number of open possible duplicates, when the caller counted them already)."""
    now = timezone.now()
    last = contact.last_contacted_at
    days = (now - last).days if last else None
    factors = []
    if last is None:
        factors.append("no interaction recorded yet")
    else:
        factors.append(f"last interaction {days} days ago")
    if not contact.email and not contact.phone and not contact.mobile:
        factors.append("no e-mail address or phone number")
    if conflicts is None:
        conflicts = selectors.open_conflicts(contact).count() if contact.pk else 0
    if conflicts:
        factors.append(f"{conflicts} possible duplicate(s) open")
    status = health_status(contact, now)
    if contact.health_status:
        score = contact.health_score if contact.health_score is not None else _score_for_status(status)
        basis = "manual"
    else:
        score = max(0, min(100, round(100 - _age(contact, now) * 100 / 200)))
        if not contact.email and not contact.phone and not contact.mobile:
            score = max(0, score - 10)
        score = max(0, score - 5 * conflicts)
        basis = "activity"
    return HealthOut(
        contact_id=contact.pk,
        status=status,
        score=score,
        basis=basis,
        note=contact.health_note,
        set_by=PersonRef.of(contact.health_set_by) if contact.health_set_by_id else None,
        set_at=contact.health_set_at,
        last_interaction_at=last,
        days_since_last_interaction=days,
        factors=factors,
    )


def health_status(contact: Contact, now: datetime | None = None) -> str:
    """The status `health_of` answers, alone: what a person set, or what the activity says."""
    if contact.health_status:
        return str(contact.health_status)
    age = _age(contact, now or timezone.now())
    return str(
        next((value for limit, value in selectors.HEALTH_THRESHOLDS if age <= limit), Contact.Health.COLD)
    )


def _age(contact: Contact, now: datetime) -> int:
    """Days since the last interaction; with none, since the contact was added, and past a month
    without any it counts as long gone (181 days)."""
    last = contact.last_contacted_at
    age = (now - last).days if last else (now - contact.created_at).days if contact.created_at else 0
    return max(age, 181) if last is None and age > 30 else age


def _score_for_status(status: str) -> int:
    return {"healthy": 85, "needs_attention": 60, "at_risk": 35, "cold": 10}.get(status, 50)


class OwnershipOut(Out):
    changed_at: datetime
    previous_owner: PersonRef | None
    new_owner: PersonRef | None
    changed_by: PersonRef | None
    reason: str
