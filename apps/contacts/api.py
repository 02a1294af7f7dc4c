"""The Contacts area's public module: what other areas may use of it (docs/area-kit.md,
"Cross-area services"). Nothing else of apps.contacts is theirs to import.

- One contact: `contact(actor=, contact_id=)` (one the actor may see, the kit's errors otherwise),
  `organisation(...)` (one that must be an organisation), `not_found(contact_id)` (the error an id
  the actor may not see gets).
- Many: `contacts(reader)` (those a person, or `ANYONE` for a run nobody asked for, may see), and
  `contact_by_email(reader, address)`.
- Contacts linked to a record of another area with their role there (`LinkedContact`, `link`,
  `visible`, `change`, `LinkedContactOut`, `ContactLinkResultOut`: apps.contacts.related says how).
- Answers: `ContactRef`, `ContactSummary`, `health_status(contact)`.

`Contact` is here for foreign keys' and answers' types; a query on it starts from one of the
functions above.
"""

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
from apps.core.actors import Actor
from apps.core.errors import AppError
from apps.core.records import Anyone

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
    "not_found",
    "organisation",
    "phones_by_email",
    "visible",
]


def not_found(contact_id: int) -> AppError:
    """The error for a contact id the actor may not see (or that does not exist)."""
    return Contact.access.not_found(Contact, contact_id)


def phones_by_email(address: str) -> list[str]:
    """The phone numbers, as written, of every contact with this e-mail address (any case),
    whoever's: what a data-rights request about the address finds elsewhere by number."""
    if not address:
        return []
    rows = Contact._base_manager.filter(email__iexact=address).values_list("phone", "mobile")
    return list(dict.fromkeys(number for numbers in rows for number in numbers if number))


def contact_by_email(reader: Actor | Anyone | None, address: str) -> Contact | None:
    """The oldest contact `reader` may see with this e-mail address (any case), if any."""
    if not address:
        return None
    return contacts(reader).filter(email__iexact=address).order_by("id").first()
