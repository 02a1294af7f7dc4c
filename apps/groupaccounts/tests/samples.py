"""A normal call of every Group Accounts tool, for the catalogue's contract test."""

import uuid
from datetime import timedelta
from typing import Any

from django.utils import timezone

from apps.catalogue.testing import Sample, sample
from apps.contacts import related
from apps.contacts.tests.factories import ContactFactory
from apps.core.kinds.sources import Message
from apps.core.kinds.testing import Mailbox, areas
from apps.groupaccounts import services
from apps.groupaccounts.models import GroupAccount
from apps.groupaccounts.tests.factories import GroupAccountFactory


def with_contact(actor: Any, **fields: Any) -> tuple[GroupAccount, Any]:
    account = GroupAccountFactory(actor=actor)
    contact = ContactFactory(actor=actor, **fields)
    related.link(actor=actor, rows=account.contact_links, contact_id=contact.pk, role="buyer")
    return account, contact


def _one(actor: Any, arguments: dict[str, Any] | None = None) -> Sample:
    account, contact = with_contact(actor)
    return Sample(
        {"groupAccountId": account.pk, **(arguments or {})}, private=[account.name, contact.first_name]
    )


@sample("createGroupAccount")
def create_group_account(actor: Any) -> Sample:
    return Sample(
        {"account": {"name": f"Initech {uuid.uuid4().hex[:6]}", "emailDomains": ["initech.example"]}}
    )


@sample("updateGroupAccount")
def update_group_account(actor: Any) -> Sample:
    return _one(actor, {"changes": {"industry": "software"}})


@sample("getGroupAccount")
def get_group_account(actor: Any) -> Sample:
    return _one(actor)


@sample("examineGroupAccount")
def examine_group_account(actor: Any) -> Sample:
    return _one(actor)


@sample("getGroupAccountUpcomingEvents")
def get_group_account_upcoming_events(actor: Any) -> Sample:
    return _one(actor, {"days": 60})


@sample("listGroupAccounts")
def list_group_accounts(actor: Any) -> Sample:
    account = GroupAccountFactory(actor=actor)
    return Sample({"limit": 100}, private=[account.name])


@sample("searchGroupAccounts")
def search_group_accounts(actor: Any) -> Sample:
    account = GroupAccountFactory(actor=actor)
    return Sample({"query": account.name}, private=[account.name])


@sample("linkContactToGroupAccount")
def link_contact_to_group_account(actor: Any) -> Sample:
    account = GroupAccountFactory(actor=actor)
    contact = ContactFactory(actor=actor)
    return Sample(
        {"groupAccountId": account.pk, "contactId": contact.pk, "role": "billing"},
        private=[account.name, contact.first_name],
    )


@sample("unlinkContactFromGroupAccount")
def unlink_contact_from_group_account(actor: Any) -> Sample:
    account, contact = with_contact(actor)
    return Sample(
        {"groupAccountId": account.pk, "contactId": contact.pk}, private=[account.name, contact.first_name]
    )


@sample("searchGroupAccountEmails")
def search_group_account_emails(actor: Any) -> Sample:
    address = f"{uuid.uuid4().hex[:8]}@buyer.example"
    account, contact = with_contact(actor, email=address)
    mailbox = Mailbox(
        "groupaccounts",
        messages=[Message(1, "Order 7", address, ["sales@acme.example"], timezone.now() - timedelta(days=1))],
    )
    return Sample(
        {"groupAccountId": account.pk},
        private=[account.name, contact.first_name, address],
        around=lambda: areas(mailbox),
    )


@sample("getMyBillingOverview")
def get_my_billing_overview(actor: Any) -> Sample:
    return Sample({})


@sample("linkDocumentToGroupAccount")
def link_document_to_group_account(actor: Any) -> Sample:
    from apps.documents import services as documents

    document = documents.document_create(actor=actor, title=f"Contract {uuid.uuid4().hex[:8]}")
    return _one(actor, {"documentId": document.pk})


@sample("linkFileToGroupAccount")
def link_file_to_group_account(actor: Any) -> Sample:
    from apps.files import services as files

    file = files.file_create(
        actor=actor, name=f"{uuid.uuid4().hex[:8]}.txt", content=b"an order", folder=None
    )
    return _one(actor, {"fileId": file.pk})


@sample("getGroupAccountAttachments")
def get_group_account_attachments(actor: Any) -> Sample:
    return _one(actor)


@sample("deleteGroupAccount")
def delete_group_account(actor: Any) -> Sample:
    return _one(actor)


@sample("restoreGroupAccount")
def restore_group_account(actor: Any) -> Sample:
    account, contact = with_contact(actor)
    services.account_delete(actor=actor, account=account)
    return Sample({"groupAccountId": account.pk}, private=[account.name, contact.first_name])
