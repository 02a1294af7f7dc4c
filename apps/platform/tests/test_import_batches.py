"""Imports committed in batches (issue 43): the scenario of 10,000 contacts of which 37 are bad,
validated (each bad row named by row and column, nothing made), committed twice with one effect;
a commit cut short between batches and finished by the next; a contact imported in a batch gets
what one made by hand gets; bulkImportContacts goes with the Contacts area."""

import dataclasses

import pytest

from apps.catalogue.dispatch import ToolNotFound, list_tools
from apps.catalogue.testing import call, confirmed, ok, person_with, principal_for, refused
from apps.contacts.models import Contact, ContactConflict, ContactEvent, OwnershipChange
from apps.contacts.tests.factories import ContactFactory
from apps.core import transfer
from apps.platform import imports
from apps.platform.models import DataImport

CONFIRM = {"capabilities": {"elicitation": {}}, "elicit": confirmed}


def _validate(user, text):
    return ok(user, "validateDataImport", {"entityType": "contact", "csvText": text})


def _commit(user, token, **arguments):
    return ok(user, "commitDataImport", {"token": token, **arguments}, **CONFIRM)


def _live(**filters):
    return Contact.objects.filter(deleted_at__isnull=True, **filters)


def big_file(rows: int = 10_000) -> tuple[str, dict[int, str]]:
    """A contacts file of `rows` rows, 37 of them bad (spread over it: every other one a broken
    e-mail address, the others an unknown country), and the bad ones: {index: column}."""
    bad = {n: "email" if i % 2 else "country" for i, n in enumerate(range(50, rows, rows // 37 + 1))}
    lines = ["firstName,lastName,email,country"]
    for n in range(rows):
        if bad.get(n) == "email":
            lines.append(f"Bad{n},Row,bad{n}-at-example,GB")
        elif bad.get(n) == "country":
            lines.append(f"Bad{n},Row,bad{n}@big.example,Atlantis")
        else:
            lines.append(f"Person{n},Number{n},p{n}@big.example,GB")
    return "\n".join(lines) + "\n", bad


def test_ten_thousand_rows_thirty_seven_bad_named_nothing_made_then_committed_twice_with_one_effect(people):
    text, bad = big_file()
    assert len(bad) == 37
    member = people["member"]

    plan = _validate(member, text)

    assert (plan["rows"], plan["invalidRows"], plan["toImport"]) == (10_000, 37, 9_963)
    assert {(p["row"], p["column"]) for p in plan["problems"]} == {
        (n + 2, column) for n, column in bad.items()
    }
    assert not _live(email__endswith="@big.example").exists()
    assert "37 rows of import" in refused(member, "commitDataImport", {"token": plan["token"]}, **CONFIRM)
    assert not _live(email__endswith="@big.example").exists()

    first = _commit(member, plan["token"], skipInvalidRows=True)
    again = _commit(member, plan["token"], skipInvalidRows=True)

    made = _live(email__endswith="@big.example")
    assert (first["created"], first["alreadyCommitted"], first["invalidRowsLeftOut"]) == (9_963, False, 37)
    assert (again["created"], again["alreadyCommitted"], again["createdIds"]) == (
        9_963,
        True,
        first["createdIds"],
    )
    assert made.count() == 9_963
    assert list(made.order_by("id").values_list("id", flat=True)[:100]) == first["createdIds"]
    assert ContactEvent.objects.filter(contact__in=made, kind="created").count() == 9_963
    assert OwnershipChange.objects.filter(contact__in=made, new_owner=member).count() == 9_963
    stored = DataImport.objects.get(token=plan["token"])
    assert (stored.status, stored.done_rows, stored.rows) == ("committed", 9_963, [])


def test_a_commit_cut_short_between_batches_is_finished_by_the_next_and_makes_nothing_twice(
    people, monkeypatch
):
    member = people["member"]
    lines = ["firstName,email"] + [f"Cut{n},cut{n}@batches.example" for n in range(1_200)]
    token = _validate(member, "\n".join(lines) + "\n")["token"]
    declared = transfer.get("contact")
    batches: list[int] = []

    def dies_in_the_second_batch(actor, rows):
        batches.append(len(rows))
        made = declared.create_many(actor, rows)
        if len(batches) == 2:
            raise RuntimeError("the process died")
        return made

    monkeypatch.setitem(
        transfer._importables, "contact", dataclasses.replace(declared, create_many=dies_in_the_second_batch)
    )
    with pytest.raises(RuntimeError):
        imports.commit(member, token=token, batch=500)

    # The first batch is made and the plan says so; the second left nothing.
    cut = DataImport.objects.get(token=token)
    assert (cut.status, cut.done_rows, len(cut.created_ids)) == ("validated", 500, 500)
    assert _live(email__endswith="@batches.example").count() == 500
    monkeypatch.setitem(transfer._importables, "contact", declared)

    done = _commit(member, token)
    again = _commit(member, token)

    assert (done["created"], done["alreadyCommitted"], again["alreadyCommitted"]) == (1_200, False, True)
    made = _live(email__endswith="@batches.example")
    assert made.count() == 1_200 == len(set(made.values_list("email", flat=True)))
    assert done["madeSince"] == []  # the first batch's rows are not taken for duplicates
    assert ContactEvent.objects.filter(contact__in=made, kind="created").count() == 1_200


def test_an_area_without_a_batch_create_is_committed_row_by_row_in_batches(people, monkeypatch):
    member = people["member"]
    declared = transfer.get("contact")
    monkeypatch.setitem(transfer._importables, "contact", dataclasses.replace(declared, create_many=None))
    token = _validate(member, "firstName,email\nOne,one@rows.example\nTwo,two@rows.example\nThree,\n")[
        "token"
    ]

    plan, again = imports.commit(member, token=token, batch=2)

    assert (len(plan.created_ids), plan.done_rows, plan.status, again) == (3, 3, "committed", False)
    assert ContactEvent.objects.filter(contact_id__in=plan.created_ids, kind="created").count() == 3


def test_a_contact_imported_in_a_batch_gets_what_one_made_by_hand_gets(people):
    member, admin = people["member"], people["admin"]
    held = ContactFactory(actor=admin, first_name="Held", last_name="Phone", phone="+442071838750")
    text = (
        "firstName,lastName,email,phone,ownerEmail,visibility\n"
        "Ann,Same,ann1@parity.example,,,\n"
        "ann,SAME,ann2@parity.example,,admin@acme.example,private\n"
        "New,Number,new@parity.example,+44 20 7183 8750,,\n"
    )

    done = _commit(member, _validate(member, text)["token"])

    ann1, ann2, new = (Contact.objects.get(pk=pk) for pk in done["createdIds"])
    assert (new.phone, ann1.owner, ann2.owner, ann2.visibility, ann1.created_by) == (
        "+442071838750",
        member,
        admin,
        "private",
        member,
    )
    # The duplicates find_duplicates finds: each against the contacts made before it.
    conflicts = ContactConflict.objects.filter(contact__in=[ann1, ann2, new])
    assert {(c.contact_id, c.other_id, c.reason, c.status) for c in conflicts} == {
        (ann2.pk, ann1.pk, "same_name", "open"),
        (new.pk, held.pk, "same_phone", "open"),
    }
    events = ContactEvent.objects.filter(contact__in=[ann1, ann2, new])
    assert {(e.contact_id, e.kind, e.summary, e.actor_id, e.tool) for e in events} == {
        (contact.pk, "created", "created", member.pk, "commitDataImport") for contact in (ann1, ann2, new)
    }
    assert {
        (o.contact_id, o.new_owner_id, o.changed_by_id, o.reason)
        for o in OwnershipChange.objects.filter(contact__in=[ann1, ann2, new])
    } == {
        (ann1.pk, member.pk, member.pk, "created"),
        (ann2.pk, admin.pk, member.pk, "created"),
        (new.pk, member.pk, member.pk, "created"),
    }


def test_a_row_refused_by_the_commit_stops_it_before_any_batch(people):
    member = people["member"]
    owner = person_with({"platform.view", "contacts.view"}, email="owner-batches@acme.example")
    lines = ["firstName,email,ownerEmail"] + [f"Late{n},late{n}@refused.example," for n in range(1_200)]
    lines[-1] += owner.email  # row 1201, in the third batch
    token = _validate(member, "\n".join(lines) + "\n")["token"]
    owner.role.permissions = ["platform.view"]  # the world changed: they may no longer own contacts
    owner.role.save()

    said = refused(member, "commitDataImport", {"token": token}, **CONFIRM)

    assert "Row 1201 can no longer be imported (ownerEmail:" in said and "nothing was imported" in said
    assert not _live(email__endswith="@refused.example").exists()
    assert DataImport.objects.get(token=token).done_rows == 0


def _names(principal):
    return {entry["name"] for entry in list_tools(principal=principal)}


def test_bulk_import_contacts_goes_with_the_contacts_area(acme, people):
    owner = people["owner"]
    query = {"query": "import contacts from a spreadsheet file", "limit": 100}
    assert "bulkImportContacts" in _names(principal_for(owner))
    assert "bulkImportContacts" in {m["name"] for m in ok(owner, "searchTools", query)["matches"]}

    acme.installed_areas = [area for area in acme.installed_areas if area != "contacts"]
    acme.save()

    listed = _names(principal_for(owner))
    assert "bulkImportContacts" not in listed and "validateDataImport" in listed
    assert "bulkImportContacts" not in {m["name"] for m in ok(owner, "searchTools", query)["matches"]}
    with pytest.raises(ToolNotFound):
        call(owner, "bulkImportContacts", {"csvText": "email\nhidden@area.example\n"}, **CONFIRM)
    assert "bulkImportContacts" not in {
        m["name"] for m in ok(owner, "searchTools", {"limit": 100})["matches"]
    }
    assert not _live(email="hidden@area.example").exists()
