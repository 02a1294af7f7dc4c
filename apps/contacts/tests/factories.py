"""Contacts for tests, created through the service as a person would (apps.core.factories), so a
contact has its history, its owner and its possible duplicates like any other:

    ContactFactory(actor=people["member"], city="Leeds", visibility="private")
    OrganisationFactory(actor=people["member"], organisation_name="Engines Ltd")

Any keyword besides `actor` is a field of createContact (apps.contacts.services.EDITABLE).
"""

from typing import Any

from apps.catalogue.testing import listed, ok
from apps.contacts import services
from apps.contacts.models import Contact
from apps.core import factories
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


@factories.privacy_rows("contacts")
def _private(people: dict[str, Any], marker: str, rows: factories.PrivateRows) -> None:
    """The owner's private contact, a workspace contact that looks like it (a possible
    duplicate), and one carrying the owner's private document and file."""
    from apps.documents.tests.factories import DocumentFactory
    from apps.files.tests.factories import FileFactory

    owner = people["owner"]
    hidden = ContactFactory(
        actor=owner,
        first_name=f"{marker} Ada",
        last_name=f"{marker} Lovelace",
        email=f"{marker}.ada@example.org",
        phone="+44 20 7946 0958",
        job_title=f"{marker} analyst",
        company=f"{marker} Engines",
        city=f"{marker} town",
        notes=f"{marker} notes",
        tags=[f"{marker}-tag"],
        visibility="private",
    )
    rows.add("contactId", "entityId", "organisationId", "personId", record=hidden)
    rows.add(
        "contactId",
        "entityId",
        record=ContactFactory(actor=owner, first_name="Twin", phone="+44 20 7946 0958"),
    )
    carrier = rows.add("contactId", "entityId", record=ContactFactory(actor=owner, first_name="Carrier"))
    document = DocumentFactory(
        actor=owner, title=f"{marker} memo", content=f"{marker} content", visibility="private"
    )
    file = FileFactory(actor=owner, name=f"{marker}.txt", text=f"{marker} text", visibility="private")
    ok(owner, "linkDocumentToContact", {"contactId": carrier.pk, "documentId": document.pk})
    ok(owner, "linkFileToContact", {"contactId": carrier.pk, "fileId": file.pk})
