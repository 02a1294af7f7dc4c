"""The Contacts area, as the rest of the service knows it (apps.core.areas)."""

from typing import Any

from django.utils.translation import gettext_lazy as _

from apps.contacts.permissions import ContactsPerm
from apps.core import areas, env
from apps.core.actors import Actor
from apps.core.kinds import Kind, page
from apps.core.kinds.attachments import Linked
from apps.core.navigation import NavItem


class ContactLinks:
    """A contact keeps its links to documents and files itself (ContactLink, with its history),
    so an item attached to a contact anywhere is the one linkFileToContact shows."""

    def link(
        self, *, actor: Actor | None, record: Any, item_kind: str, item_id: int, title: str, remove: bool
    ) -> bool:
        from apps.contacts import services

        return services.contact_link(
            actor=actor, contact=record, kind=item_kind, target_id=item_id, title=title, remove=remove
        )

    def linked(self, *, actor: Actor | None, record: Any, item_kind: str) -> list[Linked]:
        from apps.contacts.models import ContactLink

        rows = ContactLink.objects.filter(contact=record, kind=item_kind).select_related("linked_by")[:500]
        return [Linked(item_kind, row.target_id, row.linked_at, row.linked_by) for row in rows]

    def records_with(self, *, item_kind: str, item_id: int) -> list[tuple[int, int]]:
        from django.contrib.contenttypes.models import ContentType

        from apps.contacts.models import Contact, ContactLink

        content_type = ContentType.objects.get_for_model(Contact).pk
        rows = ContactLink.objects.filter(kind=item_kind, target_id=item_id)
        return [(content_type, pk) for pk in rows.values_list("contact_id", flat=True)]

    def forget(self, *, item_kind: str, item_ids: list[int]) -> None:
        from apps.contacts.models import ContactLink

        ContactLink.objects.filter(kind=item_kind, target_id__in=item_ids).delete()


area = areas.declare(
    title=_("Contacts"),
    group=areas.Group.SALES,
    description=_("People and organisations the workspace deals with"),
    words="contact person people customer client lead prospect supplier vendor address book phone e-mail",
    hints={
        "linkFileToContact": "attach link a stored file to a person's record, or unlink it, an uploaded scan",
        "linkDocumentToContact": "attach link a document to a person's record, or unlink it",
        "createContact": (
            "add new person client customer lead supplier organisation to the address book, save their "
            "details"
        ),
        "getContact": (
            "details of one person phone number email address job title company owner stage, a person's "
            "full record"
        ),
        "examineContact": "full briefing everything about a person before a meeting, the whole picture",
        "searchContacts": (
            "find look up someone by name email phone company in the address book, who do we know at"
        ),
        "listContacts": "all people everyone in the address book page through, the contacts I own, newest",
        "queryContacts": (
            "filter by city, tag, stage, health, owner, last in touch, no activity, not contacted since, "
            "date added after, custom fields, based in a country, revenue, industry, size"
        ),
        "updateContact": "change edit correct a person's details phone email address job title tag stage",
        "getContactHistory": (
            "what changed on a contact, who changed edited it and when, activity log audit trail"
        ),
        "getContactOwnershipHistory": (
            "who owned looked after a contact before, previous owners, account manager"
        ),
        "transferContactAccounts": (
            "hand over all of a leaver's contacts to a colleague, reassign their customers"
        ),
        "mergeContacts": "combine duplicate records of the same person twice",
        "updateConflictResolution": "resolve possible duplicate not the same person keep both dismiss",
        "restoreContact": "bring back undelete recover a deleted archived contact",
        "deleteContact": "remove delete archive get rid of a contact person from the address book",
        "shareContact": "give a colleague access to a private contact, let someone see or edit it",
        "searchContactEmails": "emails messages mailed correspondence we exchanged with a person",
        "getContactUpcomingEvents": "meetings calls appointments coming up booked with a person",
        "getContactAttachments": (
            "documents and files linked attached to a contact, paperwork on their record"
        ),
        "listContactFiles": (
            "files stored against a contact, their type size, files we have on record for a person"
        ),
        "getContactCreditCheck": "credit score rating bureau report, can they pay, are they creditworthy",
        "getContactHealth": "relationship health score how is it going, warm or cold, at risk",
        "updateContactHealth": "set relationship health, mark a relationship at risk or strong",
        "updateKeyContacts": "decision maker, billing person, main people of an organisation",
        "lookupCountry": "country code dialling prefix iso two letter code",
    },
    profiles={
        "essentials": ("searchContacts", "getContact", "createContact", "updateContact", "listContacts"),
        # The clients a portal user is made for (apps.platform.portal).
        "portal": ("searchContacts", "getContact"),
        "sales": (
            "searchContacts",
            "queryContacts",
            "getContact",
            "examineContact",
            "createContact",
            "updateContact",
            "getContactHistory",
            "getContactUpcomingEvents",
            "searchContactEmails",
            "getContactHealth",
        ),
        "people": (
            "searchContacts",
            "getContact",
            "createContact",
            "updateContact",
        ),
        "finance": ("searchContacts", "getContact"),
        "billing": ("searchContacts", "getContact", "createContact"),
        "support": (
            "searchContacts",
            "getContact",
            "createContact",
            "updateContact",
            "getContactHistory",
            "searchContactEmails",
        ),
        "events": ("searchContacts", "getContact", "createContact"),
        "marketing": ("searchContacts", "queryContacts", "getContact", "createContact", "updateContact"),
        "admin": (
            "transferContactAccounts",
            "getContactOwnershipHistory",
            "lookupCountry",
            "getContactCreditCheck",
        ),
        "housekeeping": (
            "mergeContacts",
            "updateConflictResolution",
            "deleteContact",
            "restoreContact",
            "linkDocumentToContact",
            "linkFileToContact",
            "listContactFiles",
            "getContactAttachments",
            "shareContact",
            "updateKeyContacts",
            "updateContactHealth",
        ),
    },
    nav=[NavItem("contacts", _("Contacts"), "contacts:list", ContactsPerm.VIEW, order=33)],
    kinds=[
        Kind(
            "contact",
            "contacts.Contact",
            title="display_name",
            person_email="email",
            # An archived contact is still found by its links (and watched); the default
            # fetch of the access model then names it archived where a live one is needed.
            trashed_too=True,
            carries=("document", "file"),
            store=ContactLinks(),
            url=page("contacts:detail", "contact_id"),
            search=("first_name", "last_name", "organisation_name", "email", "company", "job_title", "city"),
        )
    ],
    settings={
        # The credit bureau behind getContactCreditCheck; unset: the tool says so.
        "ATRIUM_CREDIT_BUREAU_URL": env.str("ATRIUM_CREDIT_BUREAU_URL"),
        "ATRIUM_CREDIT_BUREAU_KEY": env.str("ATRIUM_CREDIT_BUREAU_KEY"),
        "ATRIUM_CREDIT_BUREAU_TIMEOUT": env.float("ATRIUM_CREDIT_BUREAU_TIMEOUT", 10.0, min=0),
    },
)
