"""A person's private records reach nobody else through a contact: not through the documents and
files linked to it, nor through a possible duplicate. Each read by a member and by a viewer."""

import json

import pytest

from apps.catalogue.testing import call, ok
from apps.contacts.tests.factories import ContactFactory
from apps.documents.tests.factories import DocumentFactory
from apps.files.tests.factories import FileFactory

READERS = ("member", "viewer")
SECRET = "Zanzibar-merger-7341"


def _answer(person, name, arguments):
    return json.dumps(call(person, name, arguments))


@pytest.mark.parametrize("reader", READERS)
def test_a_private_item_linked_to_a_contact_shows_no_title(people, reader):
    owner = people["owner"]
    contact = ContactFactory(actor=owner, first_name="Ada")
    document = DocumentFactory(actor=owner, title=f"{SECRET} memo", visibility="private")
    file = FileFactory(actor=owner, name=f"{SECRET}.txt", visibility="private")
    ok(owner, "linkDocumentToContact", {"contactId": contact.pk, "documentId": document.pk})
    ok(owner, "linkFileToContact", {"contactId": contact.pk, "fileId": file.pk})

    attachments = ok(people[reader], "getContactAttachments", {"contactId": contact.pk})
    for name in ("getContactAttachments", "examineContact", "listContactFiles"):
        assert SECRET not in _answer(people[reader], name, {"contactId": contact.pk}), name
    # That there is something hidden is all it says; the owner still sees what it is.
    assert [(d["id"], d["title"], d["available"]) for d in attachments["documents"]] == [
        (document.pk, "", False)
    ]
    assert SECRET in _answer(owner, "getContactAttachments", {"contactId": contact.pk})


def test_a_possible_duplicate_the_creator_may_not_see_is_not_named(people):
    reader = "member"
    hidden = ContactFactory(
        actor=people["owner"], first_name=SECRET, email="ada@example.org", visibility="private"
    )
    answer = ok(
        people[reader], "createContact", {"contact": {"firstName": "Ada", "email": "ada@example.org"}}
    )

    [duplicate] = answer["possibleDuplicates"]
    assert SECRET not in json.dumps(answer)
    assert hidden.pk not in (duplicate["contact"]["id"], duplicate["other"]["id"])
    assert duplicate["reason"] == "same_email"
    got = ok(people[reader], "getContact", {"contactId": answer["contact"]["id"]})
    assert SECRET not in json.dumps(got) and got["openConflictCount"] == 1


def test_a_possible_duplicate_is_not_named_to_a_viewer_either(people):
    hidden = ContactFactory(
        actor=people["owner"], first_name=SECRET, email="ada@example.org", visibility="private"
    )
    seen = ContactFactory(actor=people["member"], first_name="Ada", email="ada@example.org")

    for name in ("getContact", "examineContact"):
        assert SECRET not in _answer(people["viewer"], name, {"contactId": seen.pk}), name
    [conflict] = ok(people["viewer"], "getContact", {"contactId": seen.pk})["openConflicts"]
    assert hidden.pk not in (conflict["contact"]["id"], conflict["other"]["id"])
