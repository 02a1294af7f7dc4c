"""Data imports through call_tool: validateDataImport (problems by row and column, duplicates, a
token, nothing made), commitDataImport (all rows or none, the same token twice one effect) and
bulkImportContacts (both in one call, once per file or key). Per tool a normal call, bad input
and a refusal."""

import io
import re

import pytest
from openpyxl import Workbook

from apps.catalogue.dispatch import ToolNotFound
from apps.catalogue.testing import call, confirmed, ok, person_with, person_without, refused
from apps.contacts.models import Contact, ContactEvent
from apps.contacts.tests.factories import ContactFactory
from apps.files import services as file_services
from apps.platform.models import DataImport

CONFIRM = {"capabilities": {"elicitation": {}}, "elicit": confirmed}


def _validate(user, text, kind="contact"):
    return ok(user, "validateDataImport", {"entityType": kind, "csvText": text})


def _commit(user, token, **arguments):
    return ok(user, "commitDataImport", {"token": token, **arguments}, **CONFIRM)


def _live(**filters):
    return Contact.objects.filter(deleted_at__isnull=True, **filters)


@pytest.mark.parametrize("name", ["validateDataImport", "commitDataImport", "bulkImportContacts"])
def test_a_role_without_the_import_permission_cannot_call_it(acme, name):
    person = person_without("platform.import", email=f"no-{name.lower()}@acme.example")

    with pytest.raises(ToolNotFound):
        call(person, name, {"entityType": "contact", "csvText": "email\na@b.example\n", "token": "x"})


def test_a_viewer_is_not_offered_the_import_tools(people):
    text = "firstName,email\nAda,ada@viewer.example\n"

    for name, arguments in (
        ("validateDataImport", {"entityType": "contact", "csvText": text}),
        ("commitDataImport", {"token": "x"}),
        ("bulkImportContacts", {"csvText": text}),
    ):
        with pytest.raises(ToolNotFound):
            call(people["viewer"], name, arguments)
    assert not DataImport.objects.filter(created_by=people["viewer"]).exists()


def test_a_role_that_may_not_add_contacts_may_not_import_them(acme):
    person = person_without("contacts.create", email="no-contacts-create@acme.example")
    text = "firstName,email\nAda,ada@no-create.example\n"

    assert "permission" in refused(person, "validateDataImport", {"entityType": "contact", "csvText": text})
    assert "permission" in refused(person, "bulkImportContacts", {"csvText": text}, **CONFIRM)
    assert not _live(email="ada@no-create.example").exists()
    assert not DataImport.objects.filter(created_by=person).exists()


def test_validate_names_each_problem_by_row_and_column_finds_duplicates_and_makes_nothing(people):
    held = ContactFactory(actor=people["member"], first_name="Held", email="held@import.example")
    before = Contact.objects.count()
    text = (
        "First name,last_name,E-mail,Country,Birthday,kind,Organisation name\n"
        "Ada,Lovelace,ada@import.example,GB,1815-12-10,,\n"  # 2: fine
        "Bob,Bad,not-an-address,,,,\n"  # 3: e-mail
        "Cy,Again,ADA@import.example,,,,\n"  # 4: repeats row 2
        "Dee,Held,held@import.example,,,,\n"  # 5: a contact we have
        "Eve,Elsewhere,eve@import.example,Narnia,tomorrow,,\n"  # 6: country and birthday
        ",,,,,,\n"  # 7: empty, skipped
        ",,,,,organisation,Initech\n"  # 8: an organisation
        ",,,,,,\n"
    )

    plan = _validate(people["member"], text)

    assert (plan["rows"], plan["toImport"], plan["invalidRows"], plan["duplicateRows"]) == (6, 2, 2, 2)
    problems = {(p["row"], p["column"]) for p in plan["problems"]}
    # Row 6's birthday is not a date: read before the row is checked, it is the row's problem.
    assert problems == {(3, "email"), (6, "birthday")}
    assert all(p["problem"] for p in plan["problems"])
    assert [(d["row"], d["key"], d["ofRow"], d["existingId"]) for d in plan["duplicates"]] == [
        (4, "email:ada@import.example", 2, None),
        (5, "email:held@import.example", None, held.pk),
    ]
    assert plan["token"] and plan["status"] == "validated" and plan["source"] == "inline CSV"
    assert Contact.objects.count() == before


def test_commit_makes_each_row_through_the_contacts_service_once(people):
    text = (
        "firstName,lastName,email,tags,ownerEmail\n"
        'Ada,Lovelace,ada@commit.example,"vip; london",\n'
        "Bo,Li,bo@commit.example,,admin@acme.example\n"
    )
    token = _validate(people["member"], text)["token"]

    first = _commit(people["member"], token)
    again = _commit(people["member"], token)

    made = list(_live(email__endswith="@commit.example").order_by("id"))
    assert [c.pk for c in made] == first["createdIds"] == again["createdIds"]
    assert (first["created"], first["alreadyCommitted"], again["alreadyCommitted"]) == (2, False, True)
    ada, bo = made
    assert (ada.first_name, ada.tags, ada.owner, ada.created_by) == (
        "Ada",
        ["vip", "london"],
        people["member"],
        people["member"],
    )
    assert bo.owner == people["admin"]
    assert ContactEvent.objects.filter(contact__in=made, kind="created").count() == 2
    # The plan keeps what the answer says, not the rows.
    assert DataImport.objects.get(token=token).rows == []


def test_a_commit_with_problems_waits_for_skip_invalid_rows(people):
    text = "email,firstName\nok@skip.example,Ok\nbroken,Broken\n"
    token = _validate(people["member"], text)["token"]

    said = refused(people["member"], "commitDataImport", {"token": token}, **CONFIRM)
    assert "1 rows of import" in said and "row 3, email" in said and "skipInvalidRows" in said
    assert not _live(email="ok@skip.example").exists()

    done = _commit(people["member"], token, skipInvalidRows=True)
    assert (done["created"], done["invalidRowsLeftOut"]) == (1, 1)
    assert _live(email="ok@skip.example").count() == 1


def test_a_contact_made_after_validating_is_left_out_and_a_row_refused_then_undoes_all(people):
    text = "email,firstName\nfirst@later.example,First\nsecond@later.example,Second\n"
    token = _validate(people["member"], text)["token"]
    ContactFactory(actor=people["admin"], first_name="Second", email="second@later.example")

    done = _commit(people["member"], token)
    assert done["created"] == 1 and [(r["row"], r["key"]) for r in done["madeSince"]] == [
        (3, "email:second@later.example")
    ]

    # An owner who may no longer own contacts when the commit runs: nothing of the file is made.
    owner = person_with({"platform.view", "contacts.view"}, email="owner-later@acme.example")
    text = "email,ownerEmail\nthird@later.example,\nfourth@later.example,owner-later@acme.example\n"
    token = _validate(people["member"], text)["token"]
    owner.role.permissions = ["platform.view"]
    owner.role.save()
    said = refused(people["member"], "commitDataImport", {"token": token}, **CONFIRM)
    assert "Row 3 can no longer be imported (ownerEmail:" in said
    assert not _live(email__in=["third@later.example", "fourth@later.example"]).exists()
    assert DataImport.objects.get(token=token).status == "validated"


def test_only_its_maker_commits_a_plan(people):
    token = _validate(people["member"], "email\nmine@maker.example\n")["token"]

    assert "was not found" in refused(people["admin"], "commitDataImport", {"token": token}, **CONFIRM)
    assert "was not found" in refused(people["member"], "commitDataImport", {"token": "nonsense"}, **CONFIRM)
    assert not _live(email="mine@maker.example").exists()


def test_an_xlsx_file_from_files(people):
    book = Workbook()
    sheet = book.active
    sheet.append(["First Name", "Email", "Birthday"])
    sheet.append(["Xena", "xena@xlsx.example", None])
    sheet.append(["Yuri", "yuri@xlsx.example", None])
    data = io.BytesIO()
    book.save(data)
    stored = file_services.file_create(actor=people["member"], name="people.xlsx", content=data.getvalue())

    plan = ok(people["member"], "validateDataImport", {"entityType": "contact", "fileId": stored.pk})
    assert (plan["toImport"], plan["source"]) == (2, "people.xlsx")
    _commit(people["member"], plan["token"])
    assert _live(email="yuri@xlsx.example").get().first_name == "Yuri"


def test_cells_that_look_like_formulas_are_imported_as_the_text_they_are(people):
    text = 'firstName,lastName,email\n=1+2,"=HYPERLINK(""http://x"")",formula@csv.example\n'

    _commit(people["member"], _validate(people["member"], text)["token"])

    made = _live(email="formula@csv.example").get()
    assert (made.first_name, made.last_name) == ("=1+2", '=HYPERLINK("http://x")')


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        ({"entityType": "spaceship", "csvText": "email\na@b.example\n"}, "'spaceship' cannot be imported"),
        ({"entityType": "contact"}, "Give the file to import"),
        ({"entityType": "contact", "csvText": "x", "fileId": 1}, "Give the file to import"),
        (
            {"entityType": "contact", "csvText": "email,shoeSize\na@b.example,9\n"},
            "Not columns of a contact import: 'shoeSize'",
        ),
        ({"entityType": "contact", "csvText": "email,Email\na@b.example,c@d.example\n"}, "named twice"),
        ({"entityType": "contact", "csvText": "email\n"}, "no rows to import"),
        ({"entityType": "contact", "csvText": "\n\n"}, "must name its columns"),
        ({"entityType": "contact", "fileId": 999999}, "not found"),
        ({"entityType": "contact", "csvText": "email\na@b.example\n" * 20_002}, "more than 20000 rows"),
    ],
)
def test_bad_input_is_a_clear_error_and_keeps_no_plan(people, arguments, said):
    assert said in refused(people["member"], "validateDataImport", arguments)
    assert not DataImport.objects.filter(created_by=people["member"]).exists()


def test_a_file_that_is_not_csv_text(people):
    stored = file_services.file_create(
        actor=people["member"], name="contacts.csv", content="email\nzoë@x.example\n".encode("latin-1")
    )

    assert "not UTF-8 text" in refused(
        people["member"], "validateDataImport", {"entityType": "contact", "fileId": stored.pk}
    )


def test_bulk_import_contacts_in_one_call_once(people):
    text = "firstName,email\nAnn,ann@bulk.example\nBen,ben@bulk.example\n"

    first = ok(people["member"], "bulkImportContacts", {"csvText": text}, **CONFIRM)
    again = ok(people["member"], "bulkImportContacts", {"csvText": text}, **CONFIRM)

    assert first["committed"] and first["result"]["created"] == 2 and not first["result"]["alreadyCommitted"]
    assert (
        again["result"]["alreadyCommitted"] and again["result"]["createdIds"] == first["result"]["createdIds"]
    )
    assert _live(email__endswith="@bulk.example").count() == 2


def test_bulk_import_with_problems_imports_nothing_until_told_to_skip_them(people):
    text = "firstName,email\nCal,cal@bulk2.example\nDot,dot-at-nowhere\n"

    held = ok(people["member"], "bulkImportContacts", {"csvText": text, "importKey": "fair-2026"}, **CONFIRM)
    assert not held["committed"] and held["result"] is None
    assert [(p["row"], p["column"]) for p in held["plan"]["problems"]] == [(3, "email")]
    assert not _live(email="cal@bulk2.example").exists()

    done = ok(
        people["member"],
        "bulkImportContacts",
        {"csvText": text, "importKey": "fair-2026", "skipInvalidRows": True},
        **CONFIRM,
    )
    assert done["committed"] and done["result"]["created"] == 1
    assert held["plan"]["token"] == done["plan"]["token"]

    said = refused(
        people["member"],
        "bulkImportContacts",
        {"csvText": "email\nz@z.example\n", "importKey": "fair-2026"},
        **CONFIRM,
    )
    assert "importKey 'fair-2026' was used for another file" in said
    assert not _live(email="z@z.example").exists()


def test_the_kinds_of_an_uninstalled_area_are_neither_imported_nor_exported_nor_listed(acme, people):
    acme.installed_areas = [area for area in acme.installed_areas if area != "contacts"]
    acme.save()
    text = "firstName,email\nAda,ada@uninstalled.example\n"

    said = refused(people["owner"], "validateDataImport", {"entityType": "contact", "csvText": text})
    assert "'contact' cannot be imported" in said
    listed = re.findall(r"the kinds that can are: ([^.]*)\.", said)
    assert listed and all("contact" not in known for known in listed)
    said = refused(people["owner"], "exportDataCsv", {"entityType": "contact"})
    assert "'contact' cannot be exported" in said
    listed = re.findall(r"the kinds that can are: ([^.]*)\.", said)
    assert listed and all("contact" not in known for known in listed)
    assert not _live(email="ada@uninstalled.example").exists()
    assert not DataImport.objects.filter(created_by=people["owner"]).exists()


def test_a_zip_bomb_is_refused_clearly_and_keeps_no_plan(people):
    from apps.platform.tests.test_tables import zip_bomb

    stored = file_services.file_create(actor=people["member"], name="bomb.xlsx", content=zip_bomb())

    said = refused(people["member"], "validateDataImport", {"entityType": "contact", "fileId": stored.pk})

    assert "unpacks to more than 100 MB" in said
    assert not DataImport.objects.filter(created_by=people["member"]).exists()


def test_an_export_imports_back_as_it_was(people):
    import csv

    text = 'firstName,lastName,email\n"=1+2",Roundtripmarker,roundtrip@csv.example\n'
    _commit(people["member"], _validate(people["member"], text)["token"])
    exported = ok(people["member"], "exportDataCsv", {"entityType": "contact", "query": "Roundtripmarker"})
    assert '"\'=1+2"' in exported["csvText"]

    out = io.StringIO()
    writer = csv.writer(out, quoting=csv.QUOTE_ALL)
    writer.writerow(["firstName", "lastName", "email"])
    for row in csv.DictReader(io.StringIO(exported["csvText"])):
        writer.writerow([row["firstName"], row["lastName"], "roundtrip-back@csv.example"])
    _commit(people["member"], _validate(people["member"], out.getvalue())["token"])

    assert _live(email="roundtrip-back@csv.example").get().first_name == "=1+2"
