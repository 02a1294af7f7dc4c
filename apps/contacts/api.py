"""The Contacts area's public module: what other areas may use of it (docs/area-kit.md,
"Cross-area services"). Nothing else of apps.contacts is theirs to import.

- One contact: `contact(actor=, contact_id=)` (one the actor may see, the kit's errors otherwise),
  `organisation(...)` (one that must be an organisation), `not_found(contact_id)` (the error an id
  the actor may not see gets).
- Many: `contacts(actor)` (those the actor may see), and for the service's own look-ups, where
  nobody acts: `workspace_contacts()` (every person of the workspace sees them), `live_contacts()`
  (all, whoever may see them), `contact_by_email(address)`.
- Contacts linked to a record of another area with their role there (`LinkedContact`, `link`,
  `visible`, `change`, `LinkedContactOut`, `ContactLinkResultOut`: apps.contacts.related says how).
- Answers: `ContactRef`, `ContactSummary`, `health_status(contact)`.

`Contact` is here for foreign keys' and answers' types; a query on it starts from one of the
functions above.
"""

from django.db.models import QuerySet

from apps.contacts.models import Contact
from apps.contacts.related import (
    ContactLinkResultOut,
    LinkedContact,
    LinkedContactOut,
    change,
    contact,
    contacts,
    link,
    organisation,
    visible,
)
from apps.contacts.shapes import ContactRef, ContactSummary, health_status
from apps.core.errors import AppError
from apps.core.sharing import Visibility

__all__ = [
    "Contact",
    "ContactLinkResultOut",
    "ContactRef",
    "ContactSummary",
    "LinkedContact",
    "LinkedContactOut",
    "change",
    "contact",
    "contact_by_email",
    "contacts",
    "health_status",
    "link",
    "live_contacts",
    "not_found",
    "organisation",
    "visible",
    "workspace_contacts",
]


def not_found(contact_id: int) -> AppError:
    """The error for a contact id the actor may not see (or that does not exist)."""
    return Contact.access.not_found(Contact, contact_id)


def live_contacts() -> QuerySet[Contact]:
    """Every contact not in the trash, whoever may see it: for the service's own look-ups."""
    return Contact.objects.filter(deleted_at__isnull=True)


def workspace_contacts() -> QuerySet[Contact]:
    """The live contacts every person of the workspace may see."""
    return live_contacts().filter(visibility=Visibility.WORKSPACE)


def contact_by_email(address: str) -> Contact | None:
    """The oldest live contact with this e-mail address (any case), if any."""
    if not address:
        return None
    return live_contacts().filter(email__iexact=address).order_by("id").first()
