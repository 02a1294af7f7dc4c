"""Contacts for tests, created through the service as a person would (apps.core.factories), so a
contact has its history, its owner and its possible duplicates like any other:

    ContactFactory(actor=people["member"], city="Leeds", visibility="private")
    OrganisationFactory(actor=people["member"], organisation_name="Engines Ltd")

Any keyword besides `actor` is a field of createContact (apps.contacts.services.EDITABLE).
"""

from typing import Any

from apps.catalogue.testing import listed
from apps.contacts import services
from apps.contacts.models import Contact
from apps.core.factories import AccessRows, ServiceFactory, access_rows, fake, numbered, private_rows


def _create(*, actor: Any, fields: dict[str, Any]) -> Contact:
    contact, _possible_duplicates = services.contact_create(actor=actor, fields=fields)
    return contact


class ContactFactory(ServiceFactory):
    """A person contact."""

    class Meta:
        model = Contact

    first_name = numbered(fake.first_name)
    _service = staticmethod(_create)


class OrganisationFactory(ContactFactory):
    """An organisation contact."""

    kind = Contact.Kind.ORGANISATION
    first_name = ""
    organisation_name = numbered(fake.company, " ")


@access_rows("contacts.Contact")
def _contacts(people: dict[str, Any]) -> AccessRows:
    rows = private_rows(people, lambda actor, visibility: ContactFactory(actor=actor, visibility=visibility))
    rows.listed = lambda person: listed(person, "listContacts", {"limit": 100})
    return rows
