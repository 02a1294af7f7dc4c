"""Contacts linked to a record of another area (a department, a group account...), with the
role they have there. Shared by every area that keeps such a list, so linking, unlinking and
showing them behave the same everywhere:

    class DepartmentContact(related.LinkedContact):
        department = models.ForeignKey(Department, on_delete=models.CASCADE, related_name="contact_links")

        class Meta(related.LinkedContact.Meta):
            constraints = [models.UniqueConstraint(fields=["department", "contact"], name="...")]

    changed = related.link(actor=..., rows=department.contact_links, contact_id=..., role=..., remove=False)
    [LinkedContactOut.of(row) for row in related.visible(actor, department.contact_links)]

Only contacts the actor may see are linked or listed (selectors.contact_visible).
"""

from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import QuerySet
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from pydantic import Field

from apps.catalogue.shapes import Out
from apps.contacts import selectors
from apps.contacts.shapes import ContactRef, PersonRef
from apps.core.errors import NotFound, ValidationFailed


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


def link(*, actor: Any, rows: Any, contact_id: int, role: str = "", remove: bool = False) -> bool:
    """Links (or unlinks) a contact the actor may see through the related manager `rows`; False
    when nothing changed (already linked with that role, or not linked)."""
    contact = selectors.contact_get(actor=actor, contact_id=contact_id)
    existing = rows.filter(contact=contact).first()
    if remove:
        if existing is None:
            raise NotFound(f"Contact {contact_id} is not linked here.")
        existing.delete()
        return True
    role = (role or "").strip()
    if len(role) > 100:
        raise ValidationFailed("role: at most 100 characters.", details={"role": ["at most 100 characters"]})
    if existing is not None:
        if existing.role == role:
            return False
        existing.role = role
        existing.save(update_fields=["role"])
        return True
    rows.create(contact=contact, role=role, linked_by=actor if getattr(actor, "pk", None) else None)
    return True


def visible(actor: Any, rows: Any) -> QuerySet:
    """The links whose contact the actor may see, oldest link first."""
    return rows.filter(contact__in=selectors.contact_visible(actor=actor)).select_related(
        "contact", "linked_by"
    )


class LinkedContactOut(Out):
    contact: ContactRef
    email: str
    role: str = Field(description="What the contact is here")
    linked_at: datetime
    linked_by: PersonRef | None

    @classmethod
    def of(cls, row: Any) -> "LinkedContactOut":
        return cls(
            contact=ContactRef.of(row.contact),
            email=row.contact.email,
            role=row.role,
            linked_at=row.linked_at,
            linked_by=PersonRef.of(row.linked_by) if row.linked_by_id else None,
        )


class ContactLinkResultOut(Out):
    """The answer of a tool that links or unlinks a contact."""

    record_id: int = Field(description="The record the contact was linked to or unlinked from")
    contact: ContactRef
    role: str
    linked: bool = Field(description="Whether it is linked now")
    changed: bool = Field(description="False when it already was (or was not) linked like that")
