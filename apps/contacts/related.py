"""Contacts as other areas use them: Contacts' public API for the areas that point at contacts
(a department's or a group account's contacts, the contact an event invites).

- `contact(actor=..., contact_id=...)`: a contact the actor may see (the kit's errors otherwise);
  `organisation(...)` one that must be an organisation; `contacts(actor)` every one they may see.
- Contacts linked to a record of another area with the role they have there (`LinkedContact`),
  shared by every area that keeps such a list, so linking, unlinking and showing them behave the
  same everywhere:

    class DepartmentContact(related.LinkedContact):
        department = models.ForeignKey(Department, on_delete=models.CASCADE, related_name="contact_links")

        class Meta(related.LinkedContact.Meta):
            constraints = [models.UniqueConstraint(fields=["department", "contact"], name="...")]

    changed, contact = related.link(actor=..., rows=department.contact_links, contact_id=..., role=...)
    LinkedContactOut.many(actor, department)  # its links to contacts the actor may see

  and the tools that link and unlink them are one call each:
  `related.change(actor, Department, department_id, contact_id=..., role=...)`.
- The other way round, the records of every area whose list includes a contact, those the actor
  may see: `linking_records(actor=..., contact=...)` (the contact's settings page shows them).

Only contacts the actor may see are found, linked or listed (`Contact.objects.restrict`).
"""

from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any

from django.apps import apps as django_apps
from django.conf import settings
from django.db import models
from django.db.models import QuerySet
from django.urls import reverse
from django.utils import timezone
from django.utils.text import capfirst
from django.utils.translation import gettext_lazy as _
from pydantic import Field

from apps.catalogue.shapes import From, Out, PersonRef
from apps.contacts.errors import NotLinked
from apps.contacts.models import Contact
from apps.contacts.shapes import ContactRef
from apps.core import areas, kinds, workspaces
from apps.core.actors import Actor, actor_id, can
from apps.core.errors import invalid
from apps.core.records import Anyone


def contact(*, actor: Actor | None, contact_id: int) -> Contact:
    """The live contact `contact_id` if the actor may see it: "not found" (or archived) otherwise."""
    return Contact.objects.fetch(actor, contact_id)


def organisation(*, actor: Actor | None, contact_id: int, field: str = "organisation_id") -> Contact:
    """The contact `contact_id`, which must be an organisation (`field`: the argument naming it)."""
    found = contact(actor=actor, contact_id=contact_id)
    if found.kind != Contact.Kind.ORGANISATION:
        raise invalid(
            field, _("contact {contact_id} is a person, not an organisation"), contact_id=contact_id
        )
    return found


def contacts(actor: Actor | Anyone | None) -> QuerySet[Contact]:
    """The live contacts the actor (or `ANYONE`) may see."""
    return Contact.objects.restrict(actor)


class LinkedContact(models.Model):
    contact = models.ForeignKey("contacts.Contact", on_delete=models.CASCADE, related_name="+")
    # What the contact is to the record: "billing", "account manager", "supplier's engineer"...
    role = models.CharField(_("role"), max_length=100, blank=True)
    linked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    linked_at = models.DateTimeField(_("linked"), default=timezone.now)

    class Meta:
        abstract = True
        ordering = ["linked_at", "id"]


def link(
    *, actor: Actor | None, rows: Any, contact_id: int, role: str = "", remove: bool = False
) -> tuple[bool, Contact]:
    """Links (or unlinks) a contact the actor may see through the related manager `rows`; returns
    whether anything changed (not when already linked with that role) and the contact."""
    found = contact(actor=actor, contact_id=contact_id)
    existing = rows.filter(contact=found).first()
    if remove:
        if existing is None:
            raise NotLinked(contact=contact_id)
        existing.delete()
        return True, found
    role = (role or "").strip()
    if len(role) > 100:
        raise invalid("role", _("at most 100 characters"))
    if existing is not None:
        if existing.role == role:
            return False, found
        existing.role = role
        existing.save(update_fields=["role"])
        return True, found
    rows.create(contact=found, role=role, linked_by_id=actor_id(actor))
    return True, found


def visible(actor: Actor | None, rows: Any) -> QuerySet:
    """The links whose contact the actor may see, oldest link first."""
    return rows.filter(contact__in=contacts(actor)).select_related("contact", "linked_by")


class LinkedContactOut(Out):
    contact: ContactRef
    email: Annotated[str, From("contact.email")]
    role: str
    linked_at: datetime
    linked_by: PersonRef | None

    @classmethod
    def many(cls, actor: Actor | None, record: Any) -> list["LinkedContactOut"]:
        """The links of `record` (`record.contact_links`) whose contact the actor may see."""
        return [cls.of_record(row) for row in visible(actor, record.contact_links)]


class ContactLinkResultOut(Out):
    """The answer of a tool that links or unlinks a contact."""

    record_id: int
    contact: ContactRef
    role: str
    linked: bool
    changed: bool = Field(description="False: it already was so")


def change(
    actor: Actor, model: Any, record_id: int, *, contact_id: int, role: str = "", remove: bool = False
) -> ContactLinkResultOut:
    """What a tool that links (or, with `remove`, unlinks) a contact to a record of `model` does
    and answers: the record must be one the actor may change (its access model says so, with the
    kit's errors), its links are `record.contact_links` (a LinkedContact)."""
    record = model.objects.fetch(actor, record_id, "change")
    changed, found = link(
        actor=actor, rows=record.contact_links, contact_id=contact_id, role=role, remove=remove
    )
    return ContactLinkResultOut(
        record_id=record.pk,
        contact=ContactRef.of_record(found),
        role="" if remove else role.strip(),
        linked=not remove,
        changed=changed,
    )


@dataclass(frozen=True)
class LinkingRecord:
    """A record of another area (a department, a group account) that lists a contact, as the
    contact's page shows it."""

    label: str  # what kind of record: "Department"
    title: str
    role: str
    linked_at: datetime
    url: str  # the page of its area, "" when the reader may not open it


def linking_records(*, actor: Actor, contact: Contact) -> list[LinkingRecord]:
    """The records of other areas whose contacts (a `LinkedContact` model) include `contact`,
    those the actor may see, found from the models alone: an area that keeps such a list shows
    here without Contacts knowing it."""
    found: list[LinkingRecord] = []
    for model in django_apps.get_models():
        if not issubclass(model, LinkedContact):
            continue
        field = next(
            (
                field
                for field in model._meta.concrete_fields
                if field.is_relation and field.name not in {"contact", "linked_by"}
            ),
            None,
        )
        record_model: Any = field.related_model if field is not None else None
        restrict = getattr(getattr(record_model, "objects", None), "restrict", None)
        if field is None or restrict is None or not workspaces.has_area(record_model._meta.app_label):
            continue
        kind = kinds.kind_of_model(record_model)
        label = kind.label if kind else capfirst(str(record_model._meta.verbose_name))
        url = _area_page(actor, record_model._meta.app_label)
        rows = (
            model._default_manager.filter(contact=contact, **{f"{field.name}__in": restrict(actor)})
            .select_related(field.name)
            .order_by("linked_at", "id")[:100]
        )
        for row in rows:
            record = getattr(row, field.name)
            title = kind.title_of(record) if kind else str(record)
            found.append(LinkingRecord(label, title, row.role, row.linked_at, url))
    return sorted(found, key=lambda link: (str(link.label), link.title.lower()))


def _area_page(actor: Actor, app_label: str) -> str:
    """The first page the area puts in the navigation, if the actor may open it."""
    area = areas.get(app_label)
    for item in area.nav if area is not None else ():
        if item.permission is None or can(actor, item.permission):
            return reverse(item.url_name)
    return ""
