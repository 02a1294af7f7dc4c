"""Contacts for tests (factory_boy), made the way a person makes them: through the service, so a
contact has its history, its owner and its possible duplicates like any other.

    ContactFactory(actor=people["member"], city="Leeds", visibility="private")
    OrganisationFactory(actor=people["member"], organisation_name="Engines Ltd")

`actor` creates the contact (and owns it unless `owner_email` names someone else); any other
keyword is a field of createContact (apps.contacts.services.EDITABLE). Names are made by Faker and
numbered, so no two contacts of a test run share one and a test can look for a name in an answer.
"""

from typing import Any

import factory
from faker import Faker

from apps.contacts import services
from apps.contacts.models import Contact

fake = Faker()


def unique(make: Any) -> Any:
    """A Faker value numbered by the factory's sequence: unique in the test run."""
    return factory.Sequence(lambda n: f"{make()}{n:05d}")


class ContactFactory(factory.django.DjangoModelFactory):
    """A person contact."""

    class Meta:
        model = Contact

    first_name = unique(fake.first_name)

    @classmethod
    def _create(cls, model_class: type[Contact], *args: Any, actor: Any = None, **fields: Any) -> Contact:
        if actor is None:
            raise TypeError("ContactFactory needs the actor who creates the contact: actor=...")
        contact, _conflicts = services.contact_create(actor=actor, fields=fields)
        return contact

    @classmethod
    def _build(cls, model_class: type[Contact], *args: Any, actor: Any = None, **fields: Any) -> Contact:
        return model_class(**fields)


class OrganisationFactory(ContactFactory):
    """An organisation contact."""

    kind = Contact.Kind.ORGANISATION
    first_name = ""
    organisation_name = unique(fake.company)
