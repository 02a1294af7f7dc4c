"""A person's private documents and files linked to a group account show nobody else their
titles; read by a member and by a viewer."""

import json

import pytest

from apps.catalogue.testing import call, ok
from apps.documents.tests.factories import DocumentFactory
from apps.files.tests.factories import FileFactory
from apps.groupaccounts.tests.factories import GroupAccountFactory

SECRET = "Zanzibar-merger-7341"


@pytest.mark.parametrize("reader", ["member", "viewer"])
def test_a_private_item_linked_to_a_group_account_shows_no_title(people, reader):
    owner = people["owner"]
    account = GroupAccountFactory(actor=owner)
    document = DocumentFactory(actor=owner, title=f"{SECRET} memo", visibility="private")
    file = FileFactory(actor=owner, name=f"{SECRET}.txt", visibility="private")
    ok(owner, "linkDocumentToGroupAccount", {"groupAccountId": account.pk, "documentId": document.pk})
    ok(owner, "linkFileToGroupAccount", {"groupAccountId": account.pk, "fileId": file.pk})

    for name in ("getGroupAccountAttachments", "examineGroupAccount"):
        answer = call(people[reader], name, {"groupAccountId": account.pk})
        assert SECRET not in json.dumps(answer), name
    attachments = ok(people[reader], "getGroupAccountAttachments", {"groupAccountId": account.pk})
    assert [(f["id"], f["title"], f["available"]) for f in attachments["files"]] == [(file.pk, "", False)]
    assert SECRET in json.dumps(ok(owner, "getGroupAccountAttachments", {"groupAccountId": account.pk}))
