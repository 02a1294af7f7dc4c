"""Group accounts for tests, created through the service (apps.core.factories), e.g.
`GroupAccountFactory(actor=people["member"], kind="supplier", tags=["vip"])`."""

from typing import Any

from apps.catalogue.testing import listed, ok
from apps.core import factories
from apps.core.factories import AccessRows, ServiceFactory, access_rows, fake, numbered
from apps.groupaccounts import services
from apps.groupaccounts.models import GroupAccount


class GroupAccountFactory(ServiceFactory):
    class Meta:
        model = GroupAccount

    name = numbered(fake.company, " ")
    _service = staticmethod(services.account_create)


@access_rows("groupaccounts.GroupAccount")
def _accounts(people: dict[str, Any]) -> AccessRows:
    return AccessRows(
        everyone=[GroupAccountFactory(actor=people["member"])],
        listed=lambda person: listed(person, "listGroupAccounts", {"limit": 100}),
    )


@factories.privacy_rows("groupaccounts")
def _private(people: dict[str, Any], marker: str, rows: factories.PrivateRows) -> None:
    """A group account (the workspace's) with the owner's private contact, document and file, and
    the owner's private organisation contact as its organisation."""
    from apps.contacts import related
    from apps.contacts.tests.factories import ContactFactory, OrganisationFactory
    from apps.documents.tests.factories import DocumentFactory
    from apps.files.tests.factories import FileFactory

    owner = people["owner"]
    account = rows.add("groupAccountId", "entityId", record=GroupAccountFactory(actor=owner))
    organisation = OrganisationFactory(
        actor=owner,
        organisation_name=f"{marker} Holdings",
        email=f"{marker}.org@example.org",
        visibility="private",
    )
    services.account_update(actor=owner, account=account, fields={"organisation_id": organisation.pk})
    contact = ContactFactory(
        actor=owner, first_name=f"{marker} Grace", email=f"{marker}.ga@example.org", visibility="private"
    )
    related.link(actor=owner, rows=account.contact_links, contact_id=contact.pk, role=f"{marker} buyer")
    document = DocumentFactory(actor=owner, title=f"{marker} contract", visibility="private")
    file = FileFactory(actor=owner, name=f"{marker}-terms.txt", text=f"{marker} text", visibility="private")
    ok(owner, "linkDocumentToGroupAccount", {"groupAccountId": account.pk, "documentId": document.pk})
    ok(owner, "linkFileToGroupAccount", {"groupAccountId": account.pk, "fileId": file.pk})
