"""What getContact answers, field by field, and what it costs in SQL statements: a plain contact
is one statement (the contact with its owner, its shares and the number of its open possible
duplicates); the rest is read only when the contact has it."""

from datetime import datetime
from typing import Any

from django.db import connection
from django.test.utils import CaptureQueriesContext
from pydantic import TypeAdapter

from apps.catalogue.testing import ok, person_with, refused
from apps.contacts import services
from apps.contacts.models import Contact, ContactConflict
from apps.contacts.shapes import OPEN_CONFLICTS_SHOWN
from apps.contacts.tests.factories import ContactFactory, OrganisationFactory

_when = TypeAdapter(datetime | None)


def when(value: datetime | None) -> Any:
    return _when.dump_python(value, mode="json")


def person(user: Any) -> dict[str, Any]:
    return {"id": user.pk, "email": user.email, "name": user.full_name or user.email}


def ref(contact: Contact) -> dict[str, Any]:
    return {"id": contact.pk, "kind": contact.kind, "displayName": contact.display_name}


def statements(user: Any, name: str, arguments: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The tool's answer and the SQL statements it ran (without the tool-call log's row, which
    the web process writes in batches on its own connection)."""
    with CaptureQueriesContext(connection) as captured:
        answer = ok(user, name, arguments)
    return answer, [q["sql"] for q in captured.captured_queries if "catalogue_toolcall" not in q["sql"]]


def shared(owner: Any, contact: Contact, *people_and_access: tuple[Any, str]) -> None:
    for user, access in people_and_access:
        services.contact_share(actor=owner, contact=contact, person=user, access=access)


def rich_contact(people: dict[str, Any]) -> dict[str, Any]:
    """A private person with three shares, an organisation, a merge target and open possible
    duplicates (plus a resolved one and one with an archived contact, which are not listed)."""
    member = people["member"]
    plain = person_with({"contacts.view", "contacts.edit"}, email="plain@acme.example")  # no full name
    organisation = OrganisationFactory(actor=member, organisation_name="Analytical Engines Ltd")
    target = ContactFactory(actor=member, first_name="Augusta", last_name="King")
    contact = ContactFactory(
        actor=member,
        first_name="Ada",
        last_name="Lovelace",
        email="ada@example.org",
        phone="+44 20 7183 8750",
        organisation_id=organisation.pk,
        tags=["vip", "maths"],
        city="London",
        country="GB",
        visibility="private",
        data={"tier": "gold"},
    )
    shared(member, contact, (people["viewer"], "view"), (people["admin"], "edit"), (plain, "edit"))
    twin = ContactFactory(actor=member, first_name="Ada", email="ada@example.org")
    caller = ContactFactory(actor=member, first_name="Countess", phone="+44 20 7183 8750")
    archived = ContactFactory(actor=member, first_name="Gone", email="ada@example.org")
    services.contact_delete(actor=people["admin"], contact=archived)
    settled = ContactFactory(actor=member, first_name="Settled", email="ADA@example.org")
    ContactConflict.objects.filter(contact=settled).update(
        status=ContactConflict.Status.RESOLVED, resolution="keep_both"
    )
    # The state a merge leaves on the duplicate, without archiving it (an archived contact's
    # possible duplicates are not listed).
    Contact.objects.filter(pk=contact.pk).update(merged_into=target)
    return {
        "contact": Contact.objects.get(pk=contact.pk),
        "organisation": organisation,
        "target": target,
        "twin": twin,
        "caller": caller,
        "plain": plain,
    }


def test_get_contact_answers_every_field_with_shares_by_email_and_the_open_duplicates(people):
    made = rich_contact(people)
    contact, member = made["contact"], people["member"]
    conflicts = {c.contact_id: c for c in ContactConflict.objects.filter(other=contact, status="open")}
    twin, caller = conflicts[made["twin"].pk], conflicts[made["caller"].pk]

    answer = ok(people["viewer"], "getContact", {"contactId": contact.pk})

    assert answer == {
        "id": contact.pk,
        "kind": "person",
        "displayName": "Ada Lovelace",
        "firstName": "Ada",
        "lastName": "Lovelace",
        "organisationName": "",
        "email": "ada@example.org",
        "phone": "+442071838750",
        "mobile": "",
        "jobTitle": "",
        "company": "",
        "organisation": ref(made["organisation"]),
        "website": "",
        "address": {"street": "", "city": "London", "region": "", "postalCode": "", "country": "GB"},
        "birthday": None,
        "notes": "",
        "tags": ["vip", "maths"],
        "lifecycleStage": "lead",
        "source": "",
        "owner": person(member),
        "visibility": "private",
        "yourAccess": "view",
        "sharedWith": [
            {"person": person(people["admin"]), "access": "edit"},
            {"person": person(made["plain"]), "access": "edit"},
            {"person": person(people["viewer"]), "access": "view"},
        ],
        "lastContactedAt": None,
        "health": "healthy",
        "data": {"tier": "gold"},
        "keyContacts": [],
        "openConflicts": [
            {
                "id": conflict.pk,
                "contact": ref(conflict.contact),
                "other": ref(contact),
                "reason": reason,
                "status": "open",
                "resolution": "",
                "note": "",
                "createdAt": when(conflict.created_at),
                "resolvedAt": None,
            }
            for conflict, reason in ((caller, "same_phone"), (twin, "same_email"))  # newest first
        ],
        "openConflictCount": 2,
        "createdAt": when(contact.created_at),
        "updatedAt": when(contact.updated_at),
        "archivedAt": None,
        "mergedInto": ref(made["target"]),
        "customFields": {},  # the workspace's custom fields (none here): getContact alone reads them
    }
    assert [share["person"]["email"] for share in answer["sharedWith"]] == sorted(
        ["admin@acme.example", "plain@acme.example", "viewer@acme.example"]
    )
    # The access each reader is given comes from the same shares.
    assert ok(made["plain"], "getContact", {"contactId": contact.pk})["yourAccess"] == "edit"
    assert ok(people["admin"], "getContact", {"contactId": contact.pk})["yourAccess"] == "admin"
    assert ok(member, "getContact", {"contactId": contact.pk})["yourAccess"] == "owner"


def test_the_answer_is_the_same_for_a_contact_read_with_or_without_its_parts(people):
    from apps.contacts import selectors
    from apps.contacts.shapes import ContactOut

    made = rich_contact(people)
    organisation = made["organisation"]
    keys = [ContactFactory(actor=people["member"], first_name=f"Key{index}") for index in range(2)]
    services.key_contacts_set(
        actor=people["member"], organisation=organisation, entries=[(key.pk, "board") for key in keys]
    )
    for item in (made["contact"], organisation):
        for reader in (people["viewer"], people["admin"], people["member"]):
            if item is organisation and reader is people["viewer"]:
                continue
            full = selectors.contact_answer(actor=reader, contact_id=item.pk)
            bare = Contact.objects.fetch(reader, item.pk)
            assert ContactOut.of(full, reader).model_dump(mode="json") == (
                ContactOut.of(bare, reader).model_dump(mode="json")
            )


def test_a_plain_contact_is_answered_with_one_statement(people):
    member = people["member"]
    contact = ContactFactory(
        actor=member, first_name="Grace", email="grace@example.org", visibility="private"
    )
    shared(member, contact, (people["viewer"], "view"), (people["admin"], "edit"))
    alone = ContactFactory(actor=member, first_name="Alone")

    for reader in (member, people["viewer"], people["admin"]):
        answer, run = statements(reader, "getContact", {"contactId": contact.pk})
        assert len(run) == 1, run
        assert len(answer["sharedWith"]) == 2 and answer["openConflictCount"] == 0
    answer, run = statements(people["viewer"], "getContact", {"contactId": alone.pk})
    assert len(run) == 1, run
    assert (answer["sharedWith"], answer["openConflicts"]) == ([], [])


def test_the_visibility_rules_hold_on_the_one_statement_read(people):
    member = people["member"]
    private = ContactFactory(actor=member, first_name="Hidden", visibility="private")
    stranger = person_with({"contacts.view"}, email="stranger@acme.example")

    assert "was not found" in refused(stranger, "getContact", {"contactId": private.pk})
    assert "was not found" in refused(people["viewer"], "getContact", {"contactId": private.pk})
    shared(member, private, (people["viewer"], "view"))
    assert ok(people["viewer"], "getContact", {"contactId": private.pk})["yourAccess"] == "view"
    assert "was not found" in refused(stranger, "getContact", {"contactId": private.pk})


def test_what_a_contact_has_besides_costs_one_statement_each(people):
    member = people["member"]
    first = ContactFactory(actor=member, first_name="Crowd", email="crowd@example.org")
    ContactFactory(actor=member, first_name="Twin", email="crowd@example.org")

    answer, run = statements(member, "getContact", {"contactId": first.pk})
    assert answer["openConflictCount"] == 1 and len(run) == 2, run  # + the page of duplicates

    for index in range(OPEN_CONFLICTS_SHOWN + 3):
        other = ContactFactory(actor=member, email=f"crowd{index}@example.org")
        ContactConflict.objects.create(contact=other, other=first, reason=ContactConflict.Reason.SAME_NAME)
    answer, run = statements(member, "getContact", {"contactId": first.pk})
    assert len(answer["openConflicts"]) == OPEN_CONFLICTS_SHOWN
    assert answer["openConflictCount"] == OPEN_CONFLICTS_SHOWN + 4 and len(run) == 3, run  # + their count

    # An open one with an archived contact is not listed (it is looked for, though).
    lone = ContactFactory(actor=member, first_name="Lone", email="lone@example.org")
    services.contact_delete(
        actor=people["admin"], contact=ContactFactory(actor=member, email="lone@example.org")
    )
    answer, run = statements(member, "getContact", {"contactId": lone.pk})
    assert (answer["openConflicts"], answer["openConflictCount"], len(run)) == ([], 0, 2), run

    made = rich_contact(people)
    answer, run = statements(member, "getContact", {"contactId": made["contact"].pk})
    assert answer["openConflictCount"] == 2 and len(run) == 3, run  # + the organisation and merge target

    organisation = made["organisation"]
    answer, run = statements(member, "getContact", {"contactId": organisation.pk})
    assert answer["kind"] == "organisation" and len(run) == 2, run  # + its key contacts


def test_examine_contact_answers_the_contact_as_get_contact_does_and_counts_its_duplicates(people):
    made = rich_contact(people)
    contact, reader = made["contact"], people["viewer"]

    examined, run = statements(reader, "examineContact", {"contactId": contact.pk})

    # The contact as getContact answers it, but for its custom fields (getContact's alone).
    assert {**examined["contact"], "customFields": {}} == ok(reader, "getContact", {"contactId": contact.pk})
    assert "2 possible duplicate(s) open" in examined["health"]["factors"]
    assert examined["health"] == ok(reader, "getContactHealth", {"contactId": contact.pk})
    # The shares and the duplicate check come with the contact; health is not counted again.
    assert not [sql for sql in run if sql.startswith('SELECT "contacts_contactshare"') or "COUNT(" in sql]
