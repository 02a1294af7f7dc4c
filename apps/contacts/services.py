"""Writes about contacts. Each checks the actor's permission itself (every door goes through
here), records what happened in the contact's history, and logs ids only, never names."""

import json
import logging
from datetime import timedelta
from typing import Any

from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.db.models import Q
from django.db.models.functions import Upper
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.contacts import countries, errors, related
from apps.contacts.models import (
    Contact,
    ContactConflict,
    ContactEvent,
    ContactLink,
    ContactShare,
    KeyContact,
    OwnershipChange,
)
from apps.contacts.permissions import ContactsPerm
from apps.core import clean, customfields, history, search, sharing, transfer
from apps.core.actors import can, require
from apps.core.errors import AppError, invalid
from apps.core.records import ShareAccess, Visibility
from apps.notifications import api as notifications

logger = logging.getLogger(__name__)

TEXT_FIELDS = {
    "first_name": 100,
    "last_name": 100,
    "organisation_name": 200,
    "job_title": 150,
    "company": 200,
    "street": 200,
    "city": 100,
    "region": 100,
    "postal_code": 20,
    "source": 100,
    "notes": 10_000,
}
# Fields a create or an update may set (through the tools' arguments).
EDITABLE = {
    *TEXT_FIELDS,
    "kind",
    "email",
    "phone",
    "mobile",
    "organisation_id",
    "website",
    "country",
    "birthday",
    "tags",
    "lifecycle_stage",
    "visibility",
    "last_contacted_at",
    "data",
    "owner_email",
}
MAX_DATA_BYTES = 16_384


def record(
    contact: Contact, actor: Any, kind: str, summary: str = "", changes: dict[str, Any] | None = None
) -> None:
    """Keeps the event in the contact's history (apps.core.history: with the agent's tool call
    that made it if one did), and tells the contact's watchers."""
    history.record(ContactEvent, actor=actor, contact=contact, kind=kind, summary=summary, changes=changes)
    if kind != ContactEvent.Kind.CREATED:
        notifications.entity_changed(entity=contact, actor=actor, summary=summary[:300])


# --- cleaning -----------------------------------------------------------------------------------


def clean_fields(*, actor: Any, fields: dict[str, Any], contact: Contact | None = None) -> dict[str, Any]:
    """Validated, normalised model values for `fields` (unknown keys are a programming error)."""
    unknown = set(fields) - EDITABLE
    if unknown:
        raise ValueError(f"not contact fields: {sorted(unknown)}")
    cleaned: dict[str, Any] = {}
    for name, limit in TEXT_FIELDS.items():
        if name in fields:
            value = (fields[name] or "").strip()
            if len(value) > limit:
                raise invalid(name, _("at most {limit} characters"), limit=limit)
            cleaned[name] = value
    if "kind" in fields:
        if fields["kind"] not in Contact.Kind.values:
            raise invalid("kind", _("one of {choices}"), choices=", ".join(Contact.Kind.values))
        cleaned["kind"] = fields["kind"]
    if "country" in fields:
        value = (fields["country"] or "").strip()
        if value:
            country = countries.resolve(value)
            if country is None:
                raise invalid(
                    "country", _("{value!r} is not a country; lookupCountry finds the code"), value=value
                )
            value = country.alpha2
        cleaned["country"] = value
    if "email" in fields:
        cleaned["email"] = clean.email(fields["email"])
    region = cleaned.get("country", contact.country if contact else "")
    for name in ("phone", "mobile"):
        if name in fields:
            value = (fields[name] or "").strip()
            if value:
                try:
                    value = countries.normalise_phone(value, region)
                except ValueError as error:
                    raise invalid(
                        name, _("{value!r} {problem}"), value=fields[name], problem=error
                    ) from error
            cleaned[name] = value
    if "website" in fields:
        value = (fields["website"] or "").strip()
        if value and "://" not in value:
            value = f"https://{value}"
        if value:
            try:
                URLValidator(schemes=["http", "https"])(value)
            except ValidationError as error:
                raise invalid(
                    "website", _("{website!r} is not a web address"), website=fields["website"]
                ) from error
        cleaned["website"] = value[:200]
    if "tags" in fields:
        cleaned["tags"] = search.tags(fields["tags"])
    if "lifecycle_stage" in fields:
        value = fields["lifecycle_stage"] or Contact.Stage.LEAD
        if value not in Contact.Stage.values:
            raise invalid("lifecycle_stage", _("one of {choices}"), choices=", ".join(Contact.Stage.values))
        cleaned["lifecycle_stage"] = value
    if "visibility" in fields:
        value = fields["visibility"] or Visibility.WORKSPACE
        if value not in Visibility.values:
            raise invalid("visibility", _("one of {choices}"), choices=", ".join(Visibility.values))
        cleaned["visibility"] = value
    if "birthday" in fields:
        value = fields["birthday"]
        if value is not None and clean.in_years(value, field="birthday") > timezone.localdate():
            raise invalid("birthday", _("cannot be in the future"))
        cleaned["birthday"] = value
    if "last_contacted_at" in fields:
        value = fields["last_contacted_at"]
        if value is not None and value > timezone.now() + timedelta(minutes=5):
            raise invalid("last_contacted_at", _("cannot be in the future"))
        cleaned["last_contacted_at"] = value
    if "data" in fields:
        cleaned["data"] = _clean_data(fields["data"], contact.data if contact else {})
    if "organisation_id" in fields:
        cleaned["organisation"] = _clean_organisation(actor, fields["organisation_id"], contact)
    if "owner_email" in fields:
        cleaned["owner"] = _clean_owner(fields["owner_email"])
    return cleaned


def _clean_data(value: Any, current: dict[str, Any]) -> dict[str, Any]:
    """`data` changes are merged into what is there; a key set to null is removed."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise invalid("data", _("must be an object of business fields"))
    merged = dict(current)
    for key, item in value.items():
        if not isinstance(key, str) or not key.strip() or len(key) > 64:
            raise invalid("data", _("keys are names of 1-64 characters"))
        if item is None:
            merged.pop(key, None)
        else:
            merged[key] = item
    if len(json.dumps(merged, default=str)) > MAX_DATA_BYTES:
        raise invalid("data", _("at most {most} bytes of business fields"), most=MAX_DATA_BYTES)
    return merged


def _clean_organisation(actor: Any, organisation_id: int | None, contact: Contact | None) -> Contact | None:
    if organisation_id is None:
        return None
    organisation = related.organisation(actor=actor, contact_id=organisation_id)
    if contact is not None and organisation.pk == contact.pk:
        raise invalid("organisation_id", _("a contact cannot belong to itself"))
    return organisation


def _clean_owner(email: str | None) -> Any:
    if not email:
        return None
    return clean.able(clean.person_by_email(email), ContactsPerm.VIEW, field="owner_email")


def _check_complete(contact: Contact) -> None:
    if contact.kind == Contact.Kind.ORGANISATION:
        if not contact.organisation_name:
            raise invalid("organisation_name", _("an organisation needs its name"))
        if contact.organisation_id is not None:
            raise invalid("organisation_id", _("an organisation cannot belong to another organisation"))
    elif not any((contact.first_name, contact.last_name, contact.email, contact.phone, contact.mobile)):
        raise invalid("first_name", _("a person needs at least a name, an e-mail address or a phone number"))


# --- duplicates ---------------------------------------------------------------------------------


def find_duplicates(contact: Contact) -> list[tuple[Contact, str]]:
    """Live contacts that look like the same person or organisation, with the reason."""
    others = Contact.objects.filter(deleted_at__isnull=True).exclude(pk=contact.pk)
    found: dict[int, tuple[Contact, str]] = {}
    if contact.email:
        for other in others.filter(email__iexact=contact.email)[:10]:
            found.setdefault(other.pk, (other, ContactConflict.Reason.SAME_EMAIL))
    numbers = [number for number in (contact.phone, contact.mobile) if number]
    if numbers:
        for other in others.filter(Q(phone__in=numbers) | Q(mobile__in=numbers))[:10]:
            found.setdefault(other.pk, (other, ContactConflict.Reason.SAME_PHONE))
    if contact.kind == Contact.Kind.ORGANISATION:
        same = others.filter(kind=contact.kind, organisation_name__iexact=contact.organisation_name)
    elif contact.first_name and contact.last_name:
        same = others.filter(
            kind=contact.kind,
            first_name__iexact=contact.first_name,
            last_name__iexact=contact.last_name,
            company__iexact=contact.company,
            organisation=contact.organisation,
        )
    else:
        same = others.none()
    for other in same[:10]:
        found.setdefault(other.pk, (other, ContactConflict.Reason.SAME_NAME))
    return list(found.values())


def find_duplicates_many(contacts: list[Contact]) -> list[list[tuple[Contact, str]]]:
    """`find_duplicates` of each of `contacts` (new ones, saved in this order) in three queries
    for them all: each contact against the live contacts but itself and those of `contacts` made
    after it, by the same rules (the e-mail address and the name without case, the numbers as
    they are), at most 10 of each reason, in the order of `Contact.Meta.ordering`."""
    made = {contact.pk for contact in contacts}
    live = Contact.objects.filter(deleted_at__isnull=True)
    emails = {contact.email.upper() for contact in contacts if contact.email}
    numbers = {number for contact in contacts for number in (contact.phone, contact.mobile) if number}
    organisations = {
        contact.organisation_name.upper() for contact in contacts if contact.kind == Contact.Kind.ORGANISATION
    }
    people = [
        contact
        for contact in contacts
        if contact.kind != Contact.Kind.ORGANISATION and contact.first_name and contact.last_name
    ]
    by_email: dict[str, list[Contact]] = {}
    if emails:
        for mailed in live.annotate(upper_email=Upper("email")).filter(upper_email__in=emails):
            by_email.setdefault(mailed.upper_email, []).append(mailed)
    by_number: dict[str, list[Contact]] = {}
    if numbers:
        for dialled in live.filter(Q(phone__in=numbers) | Q(mobile__in=numbers)):
            for number in {dialled.phone, dialled.mobile} & numbers:
                by_number.setdefault(number, []).append(dialled)
    by_name: dict[tuple[Any, ...], list[Contact]] = {}
    named = Q()
    if organisations:
        named |= Q(kind=Contact.Kind.ORGANISATION, upper_org__in=organisations)
    if people:
        named |= Q(
            upper_last__in={contact.last_name.upper() for contact in people},
            upper_first__in={contact.first_name.upper() for contact in people},
        )
    if organisations or people:
        rows = live.annotate(
            upper_org=Upper("organisation_name"),
            upper_first=Upper("first_name"),
            upper_last=Upper("last_name"),
        ).filter(named)
        for alike in rows:
            by_name.setdefault(_name_key(alike), []).append(alike)
    order = [str(name) for name in Contact._meta.ordering or ()]

    def first_ten(candidates: list[Contact], contact: Contact) -> list[Contact]:
        kept = [
            other
            for other in candidates
            if other.pk != contact.pk and not (other.pk in made and other.pk > contact.pk)
        ]
        kept.sort(key=lambda other: tuple(getattr(other, name) for name in order))
        return kept[:10]

    found_all: list[list[tuple[Contact, str]]] = []
    for contact in contacts:
        found: dict[int, tuple[Contact, str]] = {}
        if contact.email:
            for other in first_ten(by_email.get(contact.email.upper(), []), contact):
                found.setdefault(other.pk, (other, ContactConflict.Reason.SAME_EMAIL))
        same_number: dict[int, Contact] = {}
        for number in (contact.phone, contact.mobile):
            for other in by_number.get(number, []) if number else []:
                same_number[other.pk] = other
        for other in first_ten(list(same_number.values()), contact):
            found.setdefault(other.pk, (other, ContactConflict.Reason.SAME_PHONE))
        if contact.kind == Contact.Kind.ORGANISATION or (contact.first_name and contact.last_name):
            for other in first_ten(by_name.get(_name_key(contact), []), contact):
                found.setdefault(other.pk, (other, ContactConflict.Reason.SAME_NAME))
        found_all.append(list(found.values()))
    return found_all


def _name_key(contact: Contact) -> tuple[Any, ...]:
    """What `find_duplicates` calls the same name: an organisation's name, or a person's first and
    last names, company and organisation (case aside)."""
    if contact.kind == Contact.Kind.ORGANISATION:
        return (contact.kind, contact.organisation_name.upper())
    return (
        contact.kind,
        contact.first_name.upper(),
        contact.last_name.upper(),
        contact.company.upper(),
        contact.organisation_id,
    )


def flag_duplicates(contact: Contact) -> list[ContactConflict]:
    """Opens a possible-duplicate conflict for each look-alike, unless people already decided
    that these two are different (keep_both)."""
    conflicts = []
    for other, reason in find_duplicates(contact):
        pair = Q(contact=contact, other=other) | Q(contact=other, other=contact)
        existing = ContactConflict.objects.filter(pair).first()
        if existing is not None:
            if existing.status == ContactConflict.Status.OPEN:
                conflicts.append(existing)
            continue
        conflicts.append(ContactConflict.objects.create(contact=contact, other=other, reason=reason))
    return conflicts


# --- create, update, archive, restore -------------------------------------------------------------


def _new_contact(actor: Any, fields: dict[str, Any], owners: dict[str, Any] | None = None) -> Contact:
    """The contact `fields` make, cleaned and checked, not saved: the importer's owner unless the
    fields name one. `owners` keeps the owners already found by their e-mail address (a batch
    names the same few many times); each is checked as `clean_fields` checks it, once."""
    given = fields
    owner_named = "owner_email" in fields
    found_owner: Any = None
    if owners is not None and owner_named:
        given = {name: value for name, value in fields.items() if name != "owner_email"}
        email = fields["owner_email"]
        if email not in owners:
            owners[email] = _clean_owner(email)
        found_owner = owners[email]
    cleaned = clean_fields(actor=actor, fields=given)
    if owner_named and owners is None:
        found_owner = cleaned.pop("owner", None)
    owner = found_owner if owner_named else actor
    contact = Contact(**cleaned, owner=owner, created_by=actor)
    _check_complete(contact)
    return contact


def contact_create(*, actor: Any, fields: dict[str, Any]) -> tuple[Contact, list[ContactConflict]]:
    require(actor, ContactsPerm.CREATE)
    contact = _new_contact(actor, fields)
    contact.save()
    record(contact, actor, ContactEvent.Kind.CREATED, "created")
    OwnershipChange.objects.create(
        contact=contact, new_owner=contact.owner, changed_by=actor, reason="created"
    )
    conflicts = flag_duplicates(contact)
    logger.info("contact %s created by %s", contact.pk, actor.pk)
    return contact, conflicts


def contacts_create_many(*, actor: Any, rows: list[dict[str, Any]]) -> list[Contact]:
    """`contact_create` for a batch of rows (an import's): each row cleaned and checked by the
    same functions, then the contacts, their "created" history entries, their first ownership
    entries and their possible-duplicate conflicts written in one INSERT each. The caller's
    transaction holds the batch: a refused row (`apps.core.transfer.RowRefused`, nothing written) stops it.

    What a contact made by hand gets, a batch's contacts get: the importer as the owner unless a
    row names one, `created_by`, the history entry (with the tool call), the ownership entry, the
    duplicates `find_duplicates` finds (each contact against the live contacts made before it,
    the batch's earlier ones included). A created contact notifies nobody and sends no signal,
    by hand or here (`record` tells watchers of changes, not of creations)."""
    require(actor, ContactsPerm.CREATE)
    owners: dict[str, Any] = {}
    contacts: list[Contact] = []
    for index, fields in enumerate(rows):
        try:
            contacts.append(_new_contact(actor, fields, owners))
        except AppError as error:
            raise transfer.RowRefused(index, error) from error
    if not contacts:
        return []
    Contact.objects.bulk_create(contacts)
    history.record_many(
        ContactEvent,
        actor=actor,
        entries=[
            {"contact": contact, "kind": ContactEvent.Kind.CREATED, "summary": "created"}
            for contact in contacts
        ],
    )
    OwnershipChange.objects.bulk_create(
        [
            OwnershipChange(contact=contact, new_owner=contact.owner, changed_by=actor, reason="created")
            for contact in contacts
        ]
    )
    ContactConflict.objects.bulk_create(
        [
            ContactConflict(contact=contact, other=other, reason=reason)
            for contact, found in zip(contacts, find_duplicates_many(contacts), strict=True)
            for other, reason in found
        ]
    )
    logger.info(
        "%s contacts created by %s: %s to %s", len(contacts), actor.pk, contacts[0].pk, contacts[-1].pk
    )
    return contacts


def contact_update(
    *, actor: Any, contact: Contact, fields: dict[str, Any], reason: str = ""
) -> tuple[Contact, list[str]]:
    """Applies the given fields; returns the contact and the names of the fields that changed."""
    require(actor, ContactsPerm.EDIT)
    contact = Contact.objects.fetch(actor, contact.pk, "change", lock=True)
    cleaned = clean_fields(actor=actor, fields=fields, contact=contact)
    new_owner = cleaned.pop("owner", contact.owner) if "owner" in cleaned else contact.owner
    changes: dict[str, list[Any]] = {}
    for name, value in cleaned.items():
        before = getattr(contact, name)
        if before != value:
            label = "organisation_id" if name == "organisation" else name
            changes[label] = [before, value]
            setattr(contact, name, value)
    if "kind" in changes and contact.kind == Contact.Kind.PERSON and contact.people.exists():
        raise invalid("kind", _("people belong to this organisation; move them first"))
    _check_complete(contact)
    if changes:
        contact.save()
        record(contact, actor, ContactEvent.Kind.UPDATED, f"changed {', '.join(sorted(changes))}", changes)
        if {"email", "phone", "mobile", "first_name", "last_name", "organisation_name"} & set(changes):
            flag_duplicates(contact)
    if new_owner != contact.owner:
        contact_set_owner(actor=actor, contact=contact, owner=new_owner, reason=reason)
        changes["owner"] = []
    return contact, sorted(changes)


def contact_set_owner(*, actor: Any, contact: Contact, owner: Any, reason: str = "") -> None:
    previous = contact.owner
    contact.owner = owner
    contact.save(update_fields=["owner", "updated_at"])
    OwnershipChange.objects.create(
        contact=contact, previous_owner=previous, new_owner=owner, changed_by=actor, reason=reason[:300]
    )
    record(
        contact,
        actor,
        ContactEvent.Kind.OWNER_CHANGED,
        "owner changed",
        {"owner_id": [getattr(previous, "pk", None), getattr(owner, "pk", None)]},
    )


def contact_delete(*, actor: Any, contact: Contact) -> Contact:
    """Archives (soft-deletes) a contact; restoreContact brings it back."""
    require(actor, ContactsPerm.DELETE)
    contact = Contact.objects.fetch(actor, contact.pk, "delete")
    contact.trash(actor)
    record(contact, actor, ContactEvent.Kind.DELETED, "archived")
    logger.info("contact %s archived by %s", contact.pk, actor.pk)
    return contact


def contact_restore(*, actor: Any, contact: Contact) -> Contact:
    require(actor, ContactsPerm.DELETE)
    contact = Contact.objects.fetch(actor, contact.pk, "delete", trash=True)
    if contact.deleted_at is None:
        raise errors.NotArchived(contact=contact.pk, details={"contact_id": ["not archived"]})
    merged_into = contact.merged_into_id
    contact.merged_into = None
    contact.untrash(also=["merged_into"])
    record(
        contact,
        actor,
        ContactEvent.Kind.RESTORED,
        "restored" + (f" (had been merged into {merged_into})" if merged_into else ""),
        {"merged_into": merged_into} if merged_into else {},
    )
    flag_duplicates(contact)
    logger.info("contact %s restored by %s", contact.pk, actor.pk)
    return contact


# --- sharing ------------------------------------------------------------------------------------


def contact_share(*, actor: Any, contact: Contact, person: Any, access: str) -> Contact:
    """Shares a contact with a person ("view" or "edit"), or stops sharing it ("none")."""
    require(actor, ContactsPerm.SHARE)
    contact = Contact.objects.fetch(actor, contact.pk, "change")
    before, after = sharing.share_set(
        contact, person=person, access=access, actor=actor, person_may_see=can(person, ContactsPerm.VIEW)
    )
    if before != after:
        record(
            contact,
            actor,
            ContactEvent.Kind.SHARED,
            f"sharing changed to {access}",
            {"user_id": person.pk, "access": [before, after]},
        )
    return contact


# --- links to other areas -----------------------------------------------------------------------


def contact_link(
    *, actor: Any, contact: Contact, kind: str, target_id: int, title: str, remove: bool = False
) -> bool:
    """Links (or unlinks) an item of another area; True when something changed."""
    require(actor, ContactsPerm.EDIT)
    contact = Contact.objects.fetch(actor, contact.pk, "change")
    existing = ContactLink.objects.filter(contact=contact, kind=kind, target_id=target_id).first()
    if remove == (existing is None):
        return False  # already linked, or not linked at all
    if existing is not None:
        existing.delete()
    else:
        ContactLink.objects.create(
            contact=contact, kind=kind, target_id=target_id, title=title[:300], linked_by=actor
        )
    event = ContactEvent.Kind.UNLINKED if remove else ContactEvent.Kind.LINKED
    record(contact, actor, event, f"{kind} {target_id} {event.value}", {"kind": kind, "id": target_id})
    return True


# --- health -------------------------------------------------------------------------------------


def contact_set_health(
    *,
    actor: Any,
    contact: Contact,
    status: str | None,
    score: int | None,
    note: str | None,
    reset: bool = False,
) -> Contact:
    require(actor, ContactsPerm.EDIT)
    contact = Contact.objects.fetch(actor, contact.pk, "change")
    before = [contact.health_status or None, contact.health_score]
    if reset:
        contact.health_status, contact.health_score, contact.health_note = "", None, ""
        contact.health_set_by, contact.health_set_at = None, None
    else:
        if status is None and score is None and note is None:
            raise errors.HealthNeedsSomething(details={"status": ["required"]})
        if status is not None:
            contact.health_status = status
        elif not contact.health_status and score is not None:
            contact.health_status = health_status_for(score)
        if score is not None:
            contact.health_score = score
        if note is not None:
            contact.health_note = note.strip()[:500]
        contact.health_set_by, contact.health_set_at = actor, timezone.now()
    contact.save()
    record(
        contact,
        actor,
        ContactEvent.Kind.HEALTH_UPDATED,
        "health reset to activity" if reset else f"health set to {contact.health_status}",
        {"health": [before, [contact.health_status or None, contact.health_score]]},
    )
    return contact


def health_status_for(score: int) -> str:
    if score >= 75:
        return Contact.Health.HEALTHY
    if score >= 50:
        return Contact.Health.NEEDS_ATTENTION
    if score >= 20:
        return Contact.Health.AT_RISK
    return Contact.Health.COLD


# --- key contacts -------------------------------------------------------------------------------


def key_contacts_set(
    *, actor: Any, organisation: Contact, entries: list[tuple[int, str]]
) -> list[KeyContact]:
    """Replaces an organisation's key contacts by `entries` (person id, role), in that order."""
    require(actor, ContactsPerm.EDIT)
    organisation = Contact.objects.fetch(actor, organisation.pk, "change")
    if organisation.kind != Contact.Kind.ORGANISATION:
        raise errors.NotAnOrganisation(
            contact=organisation.pk, details={"contact_id": ["not an organisation"]}
        )
    seen: set[int] = set()
    people = []
    for person_id, role in entries:
        if person_id in seen:
            raise invalid("key_contacts", _("contact {person_id} is listed twice"), person_id=person_id)
        seen.add(person_id)
        person = Contact.objects.fetch(actor, person_id)
        if person.kind != Contact.Kind.PERSON:
            raise invalid(
                "key_contacts", _("contact {person_id} is an organisation, not a person"), person_id=person_id
            )
        people.append((person, role.strip()[:100]))
    before = list(KeyContact.objects.filter(organisation=organisation).values_list("person_id", flat=True))
    KeyContact.objects.filter(organisation=organisation).delete()
    created = KeyContact.objects.bulk_create(
        [
            KeyContact(organisation=organisation, person=person, role=role, position=index)
            for index, (person, role) in enumerate(people)
        ]
    )
    record(
        organisation,
        actor,
        ContactEvent.Kind.KEY_CONTACTS_UPDATED,
        f"{len(created)} key contacts",
        {"key_contacts": [before, [person.pk for person, _role in people]]},
    )
    return created


# --- possible duplicates ------------------------------------------------------------------------


def conflict_resolve(
    *, actor: Any, conflict: ContactConflict, resolution: str, note: str = ""
) -> ContactConflict:
    require(actor, ContactsPerm.EDIT)
    Contact.objects.fetch(actor, conflict.contact_id, "change", trash=True)
    if resolution == "reopen":
        if conflict.status == ContactConflict.Status.OPEN:
            return conflict
        conflict.status, conflict.resolution = ContactConflict.Status.OPEN, ""
        conflict.resolved_by, conflict.resolved_at = None, None
    else:
        conflict.status, conflict.resolution = ContactConflict.Status.RESOLVED, resolution
        conflict.resolved_by, conflict.resolved_at = actor, timezone.now()
    conflict.note = note.strip()[:500]
    conflict.save()
    for contact in (conflict.contact, conflict.other):
        record(
            contact,
            actor,
            ContactEvent.Kind.CONFLICT_RESOLVED,
            f"possible duplicate {conflict.pk}: {resolution}",
            {"conflict_id": conflict.pk, "resolution": resolution},
        )
    return conflict


# --- merge --------------------------------------------------------------------------------------

# Fields a merge fills from the duplicates when the primary has none (or as `prefer` says).
MERGED_FIELDS = (
    "first_name",
    "last_name",
    "organisation_name",
    "email",
    "phone",
    "mobile",
    "job_title",
    "company",
    "organisation",
    "website",
    "street",
    "city",
    "region",
    "postal_code",
    "country",
    "birthday",
    "source",
)


def contacts_merge(
    *, actor: Any, primary: Contact, duplicates: list[Contact], prefer: dict[str, int] | None = None
) -> tuple[Contact, list[str]]:
    """Merges `duplicates` into `primary`: empty fields of the primary are filled from the
    duplicates (or taken from the contact `prefer` names per field), tags, business fields, notes,
    people, links, shares, key contacts and credit checks move over, and the duplicates are
    archived with `merged_into` set (restoreContact brings one back). Returns the primary and the
    fields it took from the duplicates."""
    require(actor, ContactsPerm.MERGE)
    ids = [contact.pk for contact in duplicates]
    if not ids:
        raise invalid("duplicate_ids", _("name at least one contact to merge"))
    if len(set(ids)) != len(ids) or primary.pk in ids:
        raise invalid("duplicate_ids", _("each contact once, and not the primary itself"))
    primary = Contact.objects.fetch(actor, primary.pk, "change")
    duplicates = [Contact.objects.fetch(actor, pk, "change") for pk in ids]
    for duplicate in duplicates:
        if duplicate.kind != primary.kind:
            raise invalid(
                "duplicate_ids",
                _("contact {duplicate} is {kind}, the primary {primary_kind}"),
                duplicate=duplicate.pk,
                kind=_a(duplicate.kind),
                primary_kind=_a(primary.kind),
            )
    locked = {
        contact.pk: contact
        for contact in Contact.objects.select_for_update().filter(pk__in=[primary.pk, *ids])
    }
    primary = locked[primary.pk]
    duplicates = [locked[pk] for pk in ids]
    by_id = {primary.pk: primary, **{contact.pk: contact for contact in duplicates}}
    prefer = prefer or {}
    for field_name, chosen in prefer.items():
        if field_name not in MERGED_FIELDS and field_name != "organisation_id":
            shown = field_name if len(field_name) <= 40 else f"{field_name[:40]}…"
            raise invalid("prefer", _("{shown!r} is not a field a merge can choose"), shown=shown)
        if chosen not in by_id:
            raise invalid("prefer", _("contact {chosen} is not part of this merge"), chosen=chosen)
    taken: list[str] = []
    for field_name in MERGED_FIELDS:
        source_id = prefer.get(field_name) or prefer.get(f"{field_name}_id")
        if source_id is not None:
            value = getattr(by_id[source_id], field_name)
        elif getattr(primary, field_name) in ("", None):
            value = next(
                (getattr(d, field_name) for d in duplicates if getattr(d, field_name) not in ("", None)), None
            )
            if value is None:
                continue
        else:
            continue
        if value == primary or getattr(primary, field_name) == value:
            continue
        setattr(primary, field_name, value)
        taken.append(field_name)
    tags = list(primary.tags)
    for duplicate in duplicates:
        tags += [tag for tag in duplicate.tags if tag not in tags]
    primary.tags = tags[: search.MAX_TAGS]
    data: dict[str, Any] = {}
    for duplicate in reversed(duplicates):
        data.update(duplicate.data or {})
    primary.data = {**data, **(primary.data or {})}
    notes = [primary.notes] + [d.notes for d in duplicates if d.notes and d.notes not in primary.notes]
    primary.notes = "\n\n".join(note for note in notes if note)[:10_000]
    contacted = [c.last_contacted_at for c in (primary, *duplicates) if c.last_contacted_at]
    primary.last_contacted_at = max(contacted) if contacted else None
    primary.save()

    Contact.objects.filter(organisation_id__in=ids).update(organisation=primary)
    for link in ContactLink.objects.filter(contact_id__in=ids):
        if not ContactLink.objects.filter(contact=primary, kind=link.kind, target_id=link.target_id).exists():
            ContactLink.objects.filter(pk=link.pk).update(contact=primary)
    for share in ContactShare.objects.filter(item_id__in=ids).exclude(Q(user_id=primary.owner_id)):
        mine = ContactShare.objects.filter(item=primary, user_id=share.user_id).first()
        if mine is None:
            ContactShare.objects.filter(pk=share.pk).update(item=primary)
        elif share.access == ShareAccess.EDIT and mine.access != share.access:
            ContactShare.objects.filter(pk=mine.pk).update(access=share.access)
    for key in KeyContact.objects.filter(organisation_id__in=ids):
        if (
            key.person_id != primary.pk
            and not KeyContact.objects.filter(organisation=primary, person_id=key.person_id).exists()
        ):
            KeyContact.objects.filter(pk=key.pk).update(organisation=primary, position=key.position + 100)
    for key in KeyContact.objects.filter(person_id__in=ids):
        if (
            key.organisation_id != primary.pk
            and not KeyContact.objects.filter(organisation_id=key.organisation_id, person=primary).exists()
        ):
            KeyContact.objects.filter(pk=key.pk).update(person=primary)
    from apps.contacts.models import CreditCheck

    CreditCheck.objects.filter(contact_id__in=ids).update(contact=primary)
    # The custom fields' values the primary lacks, as its empty fields (the duplicates keep theirs,
    # for a restore).
    customfields.fields().merge("contacts", primary.pk, ids)
    now = timezone.now()
    ContactConflict.objects.filter(
        (Q(contact=primary) & Q(other_id__in=ids))
        | (Q(contact_id__in=ids) & Q(other=primary))
        | (Q(contact_id__in=ids) & Q(other_id__in=ids)),
        status=ContactConflict.Status.OPEN,
    ).update(
        status=ContactConflict.Status.RESOLVED,
        resolution=ContactConflict.Resolution.MERGED,
        resolved_by=actor,
        resolved_at=now,
    )
    for duplicate in duplicates:
        duplicate.deleted_at, duplicate.deleted_by, duplicate.merged_into = now, actor, primary
        duplicate.save(update_fields=["deleted_at", "deleted_by", "merged_into", "updated_at"])
        record(
            duplicate,
            actor,
            ContactEvent.Kind.MERGED_INTO,
            f"merged into {primary.pk}",
            {"merged_into": primary.pk},
        )
    record(
        primary,
        actor,
        ContactEvent.Kind.MERGED,
        f"merged {', '.join(map(str, ids))}",
        {"merged": ids, "fields_taken": taken},
    )
    logger.info("contacts %s merged into %s by %s", ids, primary.pk, actor.pk)
    return primary, taken


# --- transfer -----------------------------------------------------------------------------------


def contacts_transfer(
    *,
    actor: Any,
    from_user: Any,
    to_user: Any,
    contact_ids: list[int] | None,
    include_people: bool,
    reason: str,
) -> list[Contact]:
    """Hands contacts owned by `from_user` (all of them, or the ones named) to `to_user`; with
    `include_people`, the people of the organisations handed over that `from_user` owns go too."""
    require(actor, ContactsPerm.TRANSFER)
    if from_user.pk == to_user.pk:
        raise invalid("to_email", _("the new owner is the current owner"))
    clean.able(to_user, ContactsPerm.VIEW, field="to_email")
    visible = Contact.objects.restrict(actor)
    if contact_ids:
        contacts = [Contact.objects.fetch(actor, pk, "change") for pk in contact_ids]
        others = [contact.pk for contact in contacts if contact.owner_id != from_user.pk]
        if others:
            raise invalid(
                "contact_ids",
                _("not owned by {email}: {ids}"),
                email=from_user.email,
                ids=", ".join(map(str, others)),
            )
    else:
        contacts = list(visible.filter(owner=from_user).order_by("id"))
    if include_people:
        organisations = [contact.pk for contact in contacts if contact.kind == Contact.Kind.ORGANISATION]
        known = {contact.pk for contact in contacts}
        contacts += [
            p for p in visible.filter(organisation_id__in=organisations, owner=from_user) if p.pk not in known
        ]
    for contact in contacts:
        contact_set_owner(actor=actor, contact=contact, owner=to_user, reason=reason or "transferred")
    logger.info(
        "%d contacts transferred from %s to %s by %s", len(contacts), from_user.pk, to_user.pk, actor.pk
    )
    return contacts


# --- credit checks ------------------------------------------------------------------------------


def credit_check_run(*, actor: Any, contact: Contact, purpose: str) -> Any:
    """Asks the configured credit bureau about a contact and keeps its answer."""
    from apps.contacts import credit
    from apps.contacts.models import CreditCheck

    require(actor, ContactsPerm.CREDIT_CHECK)
    contact = Contact.objects.fetch(actor, contact.pk)
    bureau = credit.configured_bureau()
    if bureau is None:
        raise errors.CreditCheckNotConfigured()
    report = bureau.check(credit.CreditSubject.of(contact), purpose=purpose)
    check = CreditCheck.objects.create(
        contact=contact,
        provider=bureau.name[:50],
        reference=report.reference[:100],
        purpose=purpose,
        score=report.score,
        band=report.band[:20],
        summary=report.summary[:500],
        requested_by=actor,
        checked_at=report.checked_at or timezone.now(),
    )
    record(
        contact,
        actor,
        ContactEvent.Kind.CREDIT_CHECKED,
        f"credit checked ({purpose})",
        {"check_id": check.pk},
    )
    logger.info("credit check %s of contact %s by %s", check.pk, contact.pk, actor.pk)
    return check


def _a(word: str) -> str:
    """The word with its indefinite article: "a person", "an organisation"."""
    return f"{'an' if word[:1] in 'aeiou' else 'a'} {word}"
