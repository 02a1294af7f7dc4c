"""Merging, restoring, sharing, handing over, duplicates, key contacts, health and history:
per tool a normal call, a bad input and a refusal."""

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.catalogue.dispatch import MemorySession, ToolNotFound
from apps.catalogue.testing import call, person_without, structured, text_of
from apps.contacts import services
from apps.contacts.models import Contact, ContactConflict, ContactLink, ContactShare, OwnershipChange
from apps.contacts.shapes import OPEN_CONFLICTS_SHOWN
from apps.contacts.tests.factories import ContactFactory, OrganisationFactory


def accept(message, schema):
    return {"action": "accept", "content": {"confirm": True}}


def ok(user, name, arguments=None, **context):
    return structured(call(user, name, arguments or {}, **context))


def confirmed(user, name, arguments):
    """A call whose user confirms through elicitation (GATED / HIGH RISK / DESTRUCTIVE tools)."""
    return ok(user, name, arguments, capabilities={"elicitation": {}}, elicit=accept)


def refused(user, name, arguments=None, **context):
    result = call(user, name, arguments or {}, **context)
    assert result["isError"] is True, result
    return text_of(result)


# --- mergeContacts ------------------------------------------------------------------------------


def test_merge_fills_the_primary_moves_what_hangs_on_the_duplicates_and_archives_them(people):
    admin = people["admin"]
    organisation = OrganisationFactory(actor=admin, organisation_name="Engines Ltd")
    primary = ContactFactory(
        actor=admin,
        first_name="Ada",
        last_name="Lovelace",
        phone="+442071838750",
        tags=["vip"],
        data={"tier": "gold"},
    )
    duplicate = ContactFactory(
        actor=admin,
        first_name="Ada",
        last_name="Lovelace",
        email="ada@engines.example",
        phone="+44 20 7183 8750",
        city="London",
        organisation_id=organisation.pk,
        tags=["maths"],
        data={"tier": "silver", "seats": 4},
    )
    ContactLink.objects.create(contact=duplicate, kind="file", target_id=7, title="scan")
    ContactShare.objects.create(item=duplicate, user=people["viewer"], access="view")
    conflict = ContactConflict.objects.get(contact=duplicate, other=primary)

    answer = confirmed(
        admin,
        "mergeContacts",
        {"primaryId": primary.pk, "duplicateIds": [duplicate.pk], "prefer": {"city": duplicate.pk}},
    )

    primary.refresh_from_db()
    duplicate.refresh_from_db()
    assert (primary.email, primary.city, primary.organisation) == (
        "ada@engines.example",
        "London",
        organisation,
    )
    assert primary.tags == ["vip", "maths"]
    assert primary.data == {"tier": "gold", "seats": 4}
    assert duplicate.deleted_at is not None and duplicate.merged_into == primary
    assert ContactLink.objects.get(target_id=7, contact__in=[primary, duplicate]).contact == primary
    assert ContactShare.objects.get(user=people["viewer"], item__in=[primary, duplicate]).item == primary
    conflict.refresh_from_db()
    assert (conflict.status, conflict.resolution) == ("resolved", "merged")
    assert answer["mergedIds"] == [duplicate.pk]
    assert set(answer["fieldsTaken"]) == {"email", "city", "organisation"}


def test_a_merged_contact_names_the_one_it_was_merged_into_and_its_organisation(people):
    admin = people["admin"]
    organisation = OrganisationFactory(actor=admin, organisation_name="Engines Ltd")
    primary = ContactFactory(actor=admin, first_name="Ada", last_name="Lovelace")
    duplicate = ContactFactory(
        actor=admin, first_name="Ada", last_name="Lovelace", organisation_id=organisation.pk
    )
    confirmed(admin, "mergeContacts", {"primaryId": primary.pk, "duplicateIds": [duplicate.pk]})

    answer = ok(admin, "getContact", {"contactId": duplicate.pk, "includeArchived": True})

    assert answer["mergedInto"] == {"id": primary.pk, "kind": "person", "displayName": "Ada Lovelace"}
    assert answer["organisation"] == {
        "id": organisation.pk,
        "kind": "organisation",
        "displayName": "Engines Ltd",
    }
    assert answer["archivedAt"] is not None


def test_merge_asks_for_confirmation_first_and_does_nothing_until_then(people):
    primary, duplicate = ContactFactory(actor=people["admin"]), ContactFactory(actor=people["admin"])

    message = refused(
        people["admin"], "mergeContacts", {"primaryId": primary.pk, "duplicateIds": [duplicate.pk]}
    )

    duplicate.refresh_from_db()
    assert "marked DESTRUCTIVE" in message and "confirmationToken" in message
    assert duplicate.deleted_at is None


def test_merge_refuses_bad_requests_and_changes_nothing(people):
    admin = people["admin"]
    person, organisation = ContactFactory(actor=admin), OrganisationFactory(actor=admin)

    same = refused(
        admin,
        "mergeContacts",
        {"primaryId": person.pk, "duplicateIds": [person.pk]},
        capabilities={"elicitation": {}},
        elicit=accept,
    )
    kinds = refused(
        admin,
        "mergeContacts",
        {"primaryId": person.pk, "duplicateIds": [organisation.pk]},
        capabilities={"elicitation": {}},
        elicit=accept,
    )
    empty = refused(admin, "mergeContacts", {"primaryId": person.pk, "duplicateIds": []})
    long_field = refused(
        admin,
        "mergeContacts",
        {
            "primaryId": person.pk,
            "duplicateIds": [ContactFactory(actor=admin).pk],
            "prefer": {"x" * 5000: person.pk},
        },
        capabilities={"elicitation": {}},
        elicit=accept,
    )

    assert "not the primary itself" in same
    assert "is an organisation, the primary a person" in kinds
    assert "`duplicateIds`" in empty
    assert "is not a field a merge can choose" in long_field and len(long_field) < 400
    assert Contact.objects.filter(deleted_at__isnull=False).count() == 0


def test_members_may_not_merge(people):
    with pytest.raises(ToolNotFound):
        call(people["member"], "mergeContacts", {"primaryId": 1, "duplicateIds": [2]})


# --- restoreContact -----------------------------------------------------------------------------


def test_restore_brings_an_archived_contact_back(people):
    contact = ContactFactory(actor=people["admin"])
    services.contact_delete(actor=people["admin"], contact=contact)

    answer = ok(people["admin"], "restoreContact", {"contactId": contact.pk})

    contact.refresh_from_db()
    assert contact.deleted_at is None and answer["archivedAt"] is None


def test_restore_detaches_a_merged_contact(people):
    primary, duplicate = ContactFactory(actor=people["admin"]), ContactFactory(actor=people["admin"])
    confirmed(people["admin"], "mergeContacts", {"primaryId": primary.pk, "duplicateIds": [duplicate.pk]})

    ok(people["admin"], "restoreContact", {"contactId": duplicate.pk})

    duplicate.refresh_from_db()
    assert duplicate.merged_into is None and duplicate.deleted_at is None


def test_restore_refuses_a_contact_that_is_not_archived(people):
    contact = ContactFactory(actor=people["admin"])

    assert "is not archived" in refused(people["admin"], "restoreContact", {"contactId": contact.pk})


def test_members_may_not_restore(people):
    with pytest.raises(ToolNotFound):
        call(people["member"], "restoreContact", {"contactId": 1})


# --- shareContact -------------------------------------------------------------------------------


def test_share_gives_and_takes_access(people):
    contact = ContactFactory(actor=people["member"], visibility="private")

    shared = ok(
        people["member"],
        "shareContact",
        {"contactId": contact.pk, "personEmail": "viewer@acme.example", "access": "edit"},
    )
    assert shared["sharedWith"] == [
        {
            "person": {
                "id": people["viewer"].pk,
                "email": "viewer@acme.example",
                "name": "viewer@acme.example",
            },
            "access": "edit",
        }
    ]

    ok(
        people["member"],
        "shareContact",
        {"contactId": contact.pk, "personEmail": "viewer@acme.example", "access": "none"},
    )
    assert not ContactShare.objects.filter(item=contact).exists()


def test_share_refuses_an_unknown_person_and_the_owner(people):
    contact = ContactFactory(actor=people["member"])

    unknown = refused(
        people["member"], "shareContact", {"contactId": contact.pk, "personEmail": "ghost@acme.example"}
    )
    owner = refused(
        people["member"], "shareContact", {"contactId": contact.pk, "personEmail": "member@acme.example"}
    )

    assert "Nobody in this workspace has the e-mail address ghost@acme.example" in unknown
    assert "already" in owner


def test_viewers_may_not_share(people):
    with pytest.raises(ToolNotFound):
        call(people["viewer"], "shareContact", {"contactId": 1, "personEmail": "x@acme.example"})


# --- transferContactAccounts --------------------------------------------------------------------


def test_transfer_hands_an_owners_accounts_and_their_people_over(people):
    member, admin = people["member"], people["admin"]
    organisation = OrganisationFactory(actor=member)
    person = ContactFactory(actor=member, organisation_id=organisation.pk)
    other = ContactFactory(actor=admin)

    answer = confirmed(
        people["owner"],
        "transferContactAccounts",
        {"fromEmail": "member@acme.example", "toEmail": "admin@acme.example", "reason": "territory change"},
    )

    organisation.refresh_from_db()
    person.refresh_from_db()
    assert organisation.owner == admin and person.owner == admin
    assert answer["count"] == 2
    assert OwnershipChange.objects.filter(contact=person, reason="territory change").exists()
    other.refresh_from_db()
    assert other.owner == admin  # was admin's already, untouched


def test_transfer_is_high_risk_and_waits_for_confirmation(people):
    contact = ContactFactory(actor=people["member"])

    message = refused(
        people["owner"],
        "transferContactAccounts",
        {"fromEmail": "member@acme.example", "toEmail": "admin@acme.example"},
    )

    contact.refresh_from_db()
    assert "marked HIGH RISK" in message
    assert contact.owner == people["member"]


def test_transfer_refuses_the_same_owner_and_contacts_of_someone_else(people):
    mine = ContactFactory(actor=people["admin"])
    args = {"capabilities": {"elicitation": {}}, "elicit": accept}

    same = refused(
        people["owner"],
        "transferContactAccounts",
        {"fromEmail": "member@acme.example", "toEmail": "member@acme.example"},
        **args,
    )
    foreign = refused(
        people["owner"],
        "transferContactAccounts",
        {"fromEmail": "member@acme.example", "toEmail": "viewer@acme.example", "contactIds": [mine.pk]},
        **args,
    )

    assert "the new owner is the current owner" in same
    assert f"not owned by member@acme.example: {mine.pk}" in foreign


def test_members_may_not_transfer(people):
    with pytest.raises(ToolNotFound):
        call(people["member"], "transferContactAccounts", {"fromEmail": "a@b.c", "toEmail": "d@e.f"})


# --- updateConflictResolution -------------------------------------------------------------------


def test_keeping_both_resolves_the_duplicate_and_it_is_not_raised_again(people):
    first = ContactFactory(actor=people["member"], email="twin@example.org")
    second, [conflict] = services.contact_create(
        actor=people["member"], fields={"first_name": "Twin", "email": "twin@example.org"}
    )

    answer = ok(
        people["member"],
        "updateConflictResolution",
        {"conflictId": conflict.pk, "resolution": "keep_both", "note": "siblings"},
    )

    assert (answer["status"], answer["resolution"], answer["note"]) == ("resolved", "keep_both", "siblings")
    assert services.flag_duplicates(second) == []
    assert ok(people["member"], "getContact", {"contactId": first.pk})["openConflicts"] == []


def test_conflict_resolution_refuses_an_unknown_conflict_or_resolution(people):
    assert "Possible duplicate 424242 was not found" in refused(
        people["member"], "updateConflictResolution", {"conflictId": 424242, "resolution": "keep_both"}
    )
    assert "`resolution`" in refused(
        people["member"], "updateConflictResolution", {"conflictId": 1, "resolution": "shrug"}
    )


def test_viewers_may_not_resolve_conflicts(people):
    with pytest.raises(ToolNotFound):
        call(people["viewer"], "updateConflictResolution", {"conflictId": 1, "resolution": "keep_both"})


# --- updateKeyContacts --------------------------------------------------------------------------


def test_key_contacts_are_set_in_order_and_replaced(people):
    organisation = OrganisationFactory(actor=people["member"])
    ada, alan = ContactFactory(actor=people["member"]), ContactFactory(actor=people["member"])

    answer = ok(
        people["member"],
        "updateKeyContacts",
        {
            "contactId": organisation.pk,
            "keyContacts": [
                {"contactId": alan.pk, "role": "billing"},
                {"contactId": ada.pk, "role": "decision maker"},
            ],
        },
    )
    cleared = ok(people["member"], "updateKeyContacts", {"contactId": organisation.pk, "keyContacts": []})

    assert [(key["contact"]["id"], key["role"]) for key in answer["keyContacts"]] == [
        (alan.pk, "billing"),
        (ada.pk, "decision maker"),
    ]
    assert cleared["keyContacts"] == []


def test_key_contacts_belong_to_organisations_and_are_people(people):
    person, other = ContactFactory(actor=people["member"]), ContactFactory(actor=people["member"])
    organisation = OrganisationFactory(actor=people["member"])

    on_person = refused(
        people["member"],
        "updateKeyContacts",
        {"contactId": person.pk, "keyContacts": [{"contactId": other.pk}]},
    )
    an_org = refused(
        people["member"],
        "updateKeyContacts",
        {"contactId": organisation.pk, "keyContacts": [{"contactId": organisation.pk}]},
    )

    assert "key contacts belong to organisations" in on_person
    assert "is an organisation, not a person" in an_org


def test_viewers_may_not_set_key_contacts(people):
    with pytest.raises(ToolNotFound):
        call(people["viewer"], "updateKeyContacts", {"contactId": 1, "keyContacts": []})


# --- health -------------------------------------------------------------------------------------


def test_health_comes_from_activity_until_a_person_judges_it(people):
    contact = ContactFactory(actor=people["member"])
    Contact.objects.filter(pk=contact.pk).update(last_contacted_at=timezone.now() - timedelta(days=100))

    computed = ok(people["viewer"], "getContactHealth", {"contactId": contact.pk})
    judged = ok(
        people["member"],
        "updateContactHealth",
        {"contactId": contact.pk, "status": "healthy", "score": 90, "note": "renewed"},
    )
    reset = ok(people["member"], "updateContactHealth", {"contactId": contact.pk, "reset": True})

    assert (computed["status"], computed["basis"], computed["daysSinceLastInteraction"]) == (
        "at_risk",
        "activity",
        100,
    )
    assert (judged["status"], judged["score"], judged["basis"], judged["setBy"]["email"]) == (
        "healthy",
        90,
        "manual",
        "member@acme.example",
    )
    assert reset["basis"] == "activity"


@pytest.mark.parametrize(
    ("last_days", "added_days", "judged"),
    [(None, 0, ""), (None, 40, ""), (5, 5, ""), (100, 120, ""), (400, 400, ""), (100, 120, "healthy")],
)
def test_a_contacts_answer_gives_the_health_status_its_health_gives(people, last_days, added_days, judged):
    contact = ContactFactory(actor=people["member"])
    now = timezone.now()
    Contact.objects.filter(pk=contact.pk).update(
        last_contacted_at=None if last_days is None else now - timedelta(days=last_days),
        created_at=now - timedelta(days=added_days),
        health_status=judged,
    )

    health = ok(people["viewer"], "getContactHealth", {"contactId": contact.pk})
    answer = ok(people["viewer"], "getContact", {"contactId": contact.pk})

    assert answer["health"] == health["status"]


def test_health_refuses_an_empty_judgement_and_a_bad_score(people):
    contact = ContactFactory(actor=people["member"])

    assert "Give a status, a score or a note" in refused(
        people["member"], "updateContactHealth", {"contactId": contact.pk}
    )
    assert "`score`" in refused(
        people["member"], "updateContactHealth", {"contactId": contact.pk, "score": 101}
    )
    assert "`contactId`" in refused(people["viewer"], "getContactHealth", {"contactId": "x"})


def test_viewers_read_health_but_may_not_set_it(acme, people):
    with pytest.raises(ToolNotFound):
        call(people["viewer"], "updateContactHealth", {"contactId": 1, "status": "cold"})
    with pytest.raises(ToolNotFound):
        call(
            person_without("contacts.view", email="blind@acme.example"), "getContactHealth", {"contactId": 1}
        )


# --- history ------------------------------------------------------------------------------------


def test_history_lists_what_happened_newest_first(people):
    contact = ContactFactory(actor=people["member"], city="Leeds")
    ok(people["member"], "updateContact", {"contactId": contact.pk, "changes": {"city": "York"}})
    ok(people["member"], "updateContactHealth", {"contactId": contact.pk, "status": "cold"})

    answer = ok(people["viewer"], "getContactHistory", {"contactId": contact.pk})
    only = ok(people["viewer"], "getContactHistory", {"contactId": contact.pk, "kinds": ["updated"]})

    assert [event["kind"] for event in answer["items"]] == ["health_updated", "updated", "created"]
    assert answer["items"][1]["changes"] == {"city": ["Leeds", "York"]}
    assert answer["items"][1]["actor"]["email"] == "member@acme.example"
    assert only["total"] == 1
    # Through which door each came: the tool calls over MCP, the factory's service call through none.
    doors = [(event["door"], event["tool"], event["client"]) for event in answer["items"]]
    assert doors == [
        ("mcp", "updateContactHealth", "test client"),
        ("mcp", "updateContact", "test client"),
        ("", "", ""),
    ]


def test_ownership_history_lists_every_owner(people):
    contact = ContactFactory(actor=people["member"])
    ok(
        people["member"],
        "updateContact",
        {"contactId": contact.pk, "changes": {"ownerEmail": "admin@acme.example"}},
    )

    answer = ok(people["viewer"], "getContactOwnershipHistory", {"contactId": contact.pk})

    assert answer["owner"]["email"] == "admin@acme.example"
    assert [
        (c["previousOwner"] and c["previousOwner"]["email"], c["newOwner"]["email"])
        for c in answer["changes"]
    ] == [
        ("member@acme.example", "admin@acme.example"),
        (None, "member@acme.example"),
    ]


def test_history_refuses_unknown_kinds_and_strangers(acme, people):
    assert "`kinds.0`" in refused(
        people["viewer"], "getContactHistory", {"contactId": 1, "kinds": ["gossip"]}
    )
    assert "was not found" in refused(people["viewer"], "getContactOwnershipHistory", {"contactId": 999999})
    blind = person_without("contacts.view", email="blind@acme.example")
    for name in ("getContactHistory", "getContactOwnershipHistory"):
        with pytest.raises(ToolNotFound):
            call(blind, name, {"contactId": 1}, session=MemorySession())


def test_a_contact_with_many_look_alikes_lists_the_first_few_and_counts_them_all(people):
    from apps.contacts.models import ContactConflict

    first = ContactFactory(actor=people["member"], email="crowd@example.org")
    for index in range(OPEN_CONFLICTS_SHOWN + 3):
        other = ContactFactory(actor=people["member"], email=f"crowd{index}@example.org")
        ContactConflict.objects.create(contact=other, other=first, reason=ContactConflict.Reason.SAME_NAME)

    answer = ok(people["member"], "getContact", {"contactId": first.pk})

    assert len(answer["openConflicts"]) == OPEN_CONFLICTS_SHOWN
    assert answer["openConflictCount"] == OPEN_CONFLICTS_SHOWN + 3


# --- deleteContact ------------------------------------------------------------------------------


def test_delete_archives_a_contact_that_restore_brings_back(people):
    contact = ContactFactory(actor=people["admin"])

    answer = confirmed(people["admin"], "deleteContact", {"contactId": contact.pk})

    contact.refresh_from_db()
    assert answer["id"] == contact.pk and answer["archivedAt"] is not None and contact.deleted_at is not None
    assert contact.events.filter(kind="deleted").exists()
    assert "archived" in refused(
        people["admin"],
        "deleteContact",
        {"contactId": contact.pk},
        capabilities={"elicitation": {}},
        elicit=accept,
    )
    ok(people["admin"], "restoreContact", {"contactId": contact.pk})
    assert Contact.objects.get(pk=contact.pk).deleted_at is None


def test_delete_of_an_unknown_contact_is_not_found(people):
    assert "not found" in refused(
        people["admin"],
        "deleteContact",
        {"contactId": 10**12},
        capabilities={"elicitation": {}},
        elicit=accept,
    )


def test_members_may_not_delete(people):
    with pytest.raises(ToolNotFound):
        call(people["member"], "deleteContact", {"contactId": 1})
