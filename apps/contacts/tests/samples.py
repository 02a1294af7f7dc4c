"""A normal call of every Contacts tool, for the catalogue's contract test
(apps/catalogue/tests/test_contract.py). Each creates what it needs as `actor`."""

import uuid
from datetime import timedelta
from typing import Any

from django.utils import timezone

from apps.catalogue.testing import Sample, sample
from apps.contacts import services
from apps.contacts.tests.factories import ContactFactory, OrganisationFactory
from apps.contacts.tests.providers import bureau_configured
from apps.core.kinds import Item
from apps.core.kinds.sources import Message, UpcomingEvent
from apps.core.kinds.testing import Calendar, Items, Mailbox, areas


def unique(prefix: str = "Zed") -> str:
    return f"{prefix}{uuid.uuid4().hex[:10]}"


def _one(actor: Any, arguments: dict[str, Any] | None = None, around: Any = None, **fields: Any) -> Sample:
    contact = ContactFactory(actor=actor, **fields)
    return Sample({"contactId": contact.pk, **(arguments or {})}, private=[contact.first_name], around=around)


@sample("createContact")
def create_contact(actor: Any) -> Sample:
    return Sample({"contact": {"firstName": "Ada", "lastName": "Lovelace", "email": "ada@example.org"}})


@sample("getContact")
def get_contact(actor: Any) -> Sample:
    return _one(actor)


@sample("examineContact")
def examine_contact(actor: Any) -> Sample:
    return _one(actor)


@sample("updateContact")
def update_contact(actor: Any) -> Sample:
    return _one(actor, {"changes": {"city": "Leeds"}})


@sample("listContacts")
def list_contacts(actor: Any) -> Sample:
    contact = ContactFactory(actor=actor)
    return Sample({"limit": 100}, private=[contact.first_name])


@sample("searchContacts")
def search_contacts(actor: Any) -> Sample:
    contact = ContactFactory(actor=actor)
    return Sample({"query": contact.first_name}, private=[contact.first_name])


@sample("queryContacts")
def query_contacts(actor: Any) -> Sample:
    contact = ContactFactory(actor=actor, city="Ghent")
    return Sample(
        {"filters": [{"field": "city", "op": "eq", "value": "Ghent"}]}, private=[contact.first_name]
    )


@sample("getContactHealth")
def get_contact_health(actor: Any) -> Sample:
    return _one(actor)


@sample("updateContactHealth")
def update_contact_health(actor: Any) -> Sample:
    return _one(actor, {"status": "at_risk", "note": "slow to answer"})


@sample("getContactHistory")
def get_contact_history(actor: Any) -> Sample:
    return _one(actor)


@sample("getContactOwnershipHistory")
def get_contact_ownership_history(actor: Any) -> Sample:
    return _one(actor)


@sample("lookupCountry")
def lookup_country(actor: Any) -> Sample:
    return Sample({"query": "Germany"})


@sample("mergeContacts")
def merge_contacts(actor: Any) -> Sample:
    name = unique()
    primary = ContactFactory(actor=actor, first_name=name)
    duplicate = ContactFactory(actor=actor, first_name=name, email=f"{name.lower()}@example.org")
    return Sample({"primaryId": primary.pk, "duplicateIds": [duplicate.pk]}, private=[name])


@sample("restoreContact")
def restore_contact(actor: Any) -> Sample:
    contact = ContactFactory(actor=actor)
    services.contact_delete(actor=actor, contact=contact)
    return Sample({"contactId": contact.pk}, private=[contact.first_name])


@sample("shareContact")
def share_contact(actor: Any) -> Sample:
    contact = ContactFactory(actor=actor, visibility="private")
    domain = actor.email.split("@")[1]
    return Sample(
        {"contactId": contact.pk, "personEmail": f"member@{domain}", "access": "edit"},
        private=[contact.first_name],
    )


@sample("transferContactAccounts")
def transfer_contact_accounts(actor: Any) -> Sample:
    contact = ContactFactory(actor=actor)
    domain = actor.email.split("@")[1]
    return Sample(
        {"fromEmail": actor.email, "toEmail": f"admin@{domain}", "contactIds": [contact.pk]},
        private=[contact.first_name],
    )


@sample("updateConflictResolution")
def update_conflict_resolution(actor: Any) -> Sample:
    email = f"{unique().lower()}@example.org"
    first = ContactFactory(actor=actor, email=email)
    _second, conflicts = services.contact_create(actor=actor, fields={"first_name": unique(), "email": email})
    return Sample(
        {"conflictId": conflicts[0].pk, "resolution": "keep_both"}, private=[first.first_name, email]
    )


@sample("updateKeyContacts")
def update_key_contacts(actor: Any) -> Sample:
    organisation = OrganisationFactory(actor=actor)
    person = ContactFactory(actor=actor, organisation_id=organisation.pk)
    return Sample(
        {"contactId": organisation.pk, "keyContacts": [{"contactId": person.pk, "role": "decision maker"}]},
        private=[organisation.organisation_name, person.first_name],
    )


@sample("getContactCreditCheck")
def get_contact_credit_check(actor: Any) -> Sample:
    contact = ContactFactory(actor=actor, country="GB")
    return Sample(
        {"contactId": contact.pk, "purpose": "account_opening"},
        private=[contact.first_name],
        around=bureau_configured,
    )


def _with_items(kind: str) -> Any:
    return lambda: areas(Items(kind, "contacts", {7: Item(7, f"{kind} seven", url=f"/{kind}/7")}))


@sample("linkDocumentToContact")
def link_document_to_contact(actor: Any) -> Sample:
    return _one(actor, {"documentId": 7}, around=_with_items("document"))


@sample("linkFileToContact")
def link_file_to_contact(actor: Any) -> Sample:
    return _one(actor, {"fileId": 7}, around=_with_items("file"))


@sample("listContactFiles")
def list_contact_files(actor: Any) -> Sample:
    contact = ContactFactory(actor=actor)
    services.contact_link(actor=actor, contact=contact, kind="file", target_id=7, title="file seven")
    return Sample({"contactId": contact.pk}, private=[contact.first_name], around=_with_items("file"))


@sample("getContactAttachments")
def get_contact_attachments(actor: Any) -> Sample:
    contact = ContactFactory(actor=actor)
    services.contact_link(actor=actor, contact=contact, kind="document", target_id=7, title="document seven")
    return Sample({"contactId": contact.pk}, private=[contact.first_name], around=_with_items("document"))


@sample("getContactUpcomingEvents")
def get_contact_upcoming_events(actor: Any) -> Sample:
    contact = ContactFactory(actor=actor)
    event = UpcomingEvent(1, unique("Meeting"), timezone.now() + timedelta(days=2), area="contacts")
    return Sample(
        {"contactId": contact.pk},
        private=[contact.first_name, event.title],
        around=lambda: areas(Calendar("contacts", events={contact.pk: [event]})),
    )


@sample("searchContactEmails")
def search_contact_emails(actor: Any) -> Sample:
    email = f"{unique().lower()}@example.org"
    contact = ContactFactory(actor=actor, email=email)
    message = Message(1, unique("Subject"), email, ["sales@example.com"], timezone.now(), area="contacts")
    return Sample(
        {"contactId": contact.pk},
        private=[email, message.subject],
        around=lambda: areas(Mailbox("contacts", messages=[message])),
    )


@sample("deleteContact")
def delete_contact(actor: Any) -> Sample:
    contact = ContactFactory(actor=actor)
    return Sample({"contactId": contact.pk}, private=[contact.first_name])
