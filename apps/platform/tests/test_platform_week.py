"""What a week of a workspace administrator found in the Platform area: 2,000 contacts from a
messy CSV and an XLSX imported and committed twice, exports of several kinds, custom fields
filled through the kinds' own tools, the activity log and the trash read by an admin, a member
and a viewer."""

import csv
import io
import random
import tracemalloc

import pytest
from openpyxl import Workbook

from apps.catalogue.testing import ok, refused
from apps.contacts.tests.factories import ContactFactory
from apps.files import services as file_services
from apps.platform import tables
from apps.platform.tests.test_transfer_tools import CONFIRM, _commit, _live, _validate


def _messy_csv(count: int) -> tuple[bytes, dict[str, int]]:
    """A CSV as spreadsheets write them: a byte-order mark, semicolons, mixed line endings,
    accents, blank rows, bad rows and duplicates."""
    lines = ["First name;Last name;E-mail;Country;Birthday;Tags"]
    expected = {"good": 0, "bad": 0, "repeat": 0}
    random.seed(7)
    for number in range(count):
        if number % 97 == 5:
            lines.append(f"Bad{number};Row;not-an-address-{number};;;")
            expected["bad"] += 1
        elif number % 89 == 3 and number > 10:
            lines.append(f"Again{number};Row;PERSON-{number - 1}@WEEK.example;;;")  # repeats the row above
            expected["repeat"] += 1
        else:
            lines.append(f"Zoë{number};Ñúñez;person-{number}@week.example;DE;1980-02-0{number % 9 + 1};a, b")
            expected["good"] += 1
        if number % 250 == 0:
            lines.append(";;;;;")
    text = ""
    for index, line in enumerate(lines):
        text += line + ("\r\n" if index % 3 == 0 else "\n")
    return ("\ufeff" + text).encode("utf-8"), expected


def test_two_thousand_messy_contacts_are_each_made_reported_or_left_out_once(people):
    admin = people["admin"]
    data, expected = _messy_csv(2_000)
    stored = file_services.file_create(actor=admin, name="contacts.csv", content=data)

    plan = ok(admin, "validateDataImport", {"entityType": "contact", "fileId": stored.pk})
    # Every row is either to import, a problem or a duplicate: none is dropped silently.
    assert plan["rows"] == 2_000
    assert plan["invalidRows"] == expected["bad"]
    assert plan["duplicateRows"] == expected["repeat"]
    assert plan["toImport"] == expected["good"]
    first = _commit(admin, plan["token"], skipInvalidRows=True)
    again = _commit(admin, plan["token"], skipInvalidRows=True)
    assert first["created"] == expected["good"] and again["alreadyCommitted"]
    assert _live(email__endswith="@week.example").count() == expected["good"]
    made = _live(email="person-1@week.example").get()
    assert (made.first_name, made.last_name, made.tags) == ("Zoë1", "Ñúñez", ["a", "b"])
    # The same file validated again: every good row is now a record the admin has.
    second = ok(admin, "validateDataImport", {"entityType": "contact", "fileId": stored.pk})
    assert second["toImport"] == 0 and second["duplicateRows"] == expected["good"] + expected["repeat"]


def test_odd_files_are_refused_clearly(people):
    member = people["member"]
    # Inline, NUL is refused with the arguments; in a file, as binary.
    assert "NUL" in refused(
        member, "validateDataImport", {"entityType": "contact", "csvText": "email\na\x00\n"}
    )
    for text, said in [
        ("email\nada@nul.example\x00\n", "binary"),
        ("email,notes\nada@cell.example," + "x" * 200_000 + "\n", "field larger"),
    ]:
        stored = file_services.file_create(actor=member, name="odd.csv", content=text.encode())
        assert said in refused(member, "validateDataImport", {"entityType": "contact", "fileId": stored.pk})
    latin = "firstName,email\nJosé,jose@latin.example\n".encode("latin-1")
    stored = file_services.file_create(actor=member, name="latin.csv", content=latin)
    assert "UTF-8" in refused(member, "validateDataImport", {"entityType": "contact", "fileId": stored.pk})


def test_a_csv_of_ten_thousand_columns_is_refused_by_the_column_limit(people):
    header = ",".join(["email"] + [f"c{n}" for n in range(10_000)])
    said = refused(
        people["member"],
        "validateDataImport",
        {"entityType": "contact", "csvText": header + "\na@b.example\n"},
    )
    assert "200" in said and len(said) < 2_000


def test_a_csv_row_of_ten_thousand_cells_is_refused_by_the_column_limit(people):
    row = "ada@wide.example" + "," * 300 + "x"
    said = refused(
        people["member"], "validateDataImport", {"entityType": "contact", "csvText": "email\n" + row + "\n"}
    )
    assert "200" in said


def test_a_csv_stops_being_read_at_its_row_limit(monkeypatch):
    monkeypatch.setattr(tables, "MAX_ROWS", 10)
    text = "email\n" + "".join(f"p{n}@rows.example\n" for n in range(11)) + '"unterminated\n' + "x" * 200_000
    with pytest.raises(tables.errors.ImportTooManyRows):
        tables.read(text.encode())


def test_blank_lines_at_the_end_of_a_csv_cost_no_memory():
    # 200,000 empty rows kept as rows would take some 11 MB; read past, about the file's size.
    data = b"email\nada@blank.example\n" + b"\n" * 200_000
    tracemalloc.start()
    try:
        header, rows = tables.read(data)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert (header, rows) == (["email"], [["ada@blank.example"]])
    assert peak < 4 * 1024 * 1024


def _xlsx(rows):
    book = Workbook()
    sheet = book.active
    for row in rows:
        sheet.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def test_an_xlsx_with_bad_rows_numbers_and_formulas_reports_each(people):
    import datetime

    data = _xlsx(
        [
            ["First name", "Email", "Birthday", "Phone"],
            ["Ada", "ada@xl.example", datetime.datetime(1980, 1, 2), None],
            ["Bob", "bob", None, None],
            ["Cy", 12345, None, None],
            ["Dee", "dee@xl.example", datetime.datetime(2999, 1, 1), None],
            ["Eve", "eve@xl.example", None, 4912345678],
        ]
    )
    stored = file_services.file_create(actor=people["member"], name="people.xlsx", content=data)
    plan = ok(people["member"], "validateDataImport", {"entityType": "contact", "fileId": stored.pk})
    problems = {(p["row"], p["column"]) for p in plan["problems"]}
    assert problems == {(3, "email"), (4, "email"), (5, "birthday"), (6, "phone")}, plan
    assert plan["rows"] == 5


def test_a_formula_never_computed_is_not_read_as_an_empty_cell(people):
    # A workbook written by a program keeps a formula without its value: read with the values
    # alone, the address would be empty and the row imported without it.
    data = _xlsx([["First name", "Email"], ["Bob", '=CONCAT("bob","@xl.example")'], ["Ada", "ada@f.example"]])
    stored = file_services.file_create(actor=people["member"], name="formulas.xlsx", content=data)
    said = refused(people["member"], "validateDataImport", {"entityType": "contact", "fileId": stored.pk})
    assert "B2" in said and "formula" in said


def test_a_workbook_saved_with_its_values_imports_its_formulas_results(people):
    book = Workbook()
    sheet = book.active
    sheet.append(["First name", "Email"])
    sheet.append(["Ada", "ada@computed.example"])
    out = io.BytesIO()
    book.save(out)
    # What a spreadsheet program saves: the formula and the value it computed.
    import zipfile

    source = zipfile.ZipFile(io.BytesIO(out.getvalue()))
    rebuilt = io.BytesIO()
    with zipfile.ZipFile(rebuilt, "w") as target:
        for item in source.infolist():
            part = source.read(item.filename)
            if item.filename == "xl/worksheets/sheet1.xml":
                part = part.replace(
                    b'<c r="A2" t="inlineStr"><is><t>Ada</t></is></c>',
                    b'<c r="A2" t="str"><f>"A"&amp;"da"</f><v>Ada</v></c>',
                )
                assert b"<f>" in part
            target.writestr(item, part)
    stored = file_services.file_create(actor=people["member"], name="saved.xlsx", content=rebuilt.getvalue())
    plan = ok(people["member"], "validateDataImport", {"entityType": "contact", "fileId": stored.pk})
    done = _commit(people["member"], plan["token"])
    assert _live(pk=done["createdIds"][0]).get().first_name == "Ada"


def test_an_export_never_holds_what_its_maker_cannot_read(people):
    member, admin, viewer = people["member"], people["admin"], people["viewer"]
    ContactFactory(actor=admin, first_name="Hidden", last_name="Weekexport", visibility="private")
    ContactFactory(actor=member, first_name='=HYPERLINK("http://x","y")', last_name="Weekexport")
    ContactFactory(actor=member, first_name=" =1+1", last_name="Weekexport")
    for user in (member, viewer):
        answer = ok(user, "exportDataCsv", {"entityType": "contact", "query": "Weekexport"})
        assert "Hidden" not in answer["csvText"] and answer["rows"] == 2
        rows = list(csv.reader(io.StringIO(answer["csvText"])))
        for row in rows[1:]:
            for cell in row:
                assert not cell.lstrip().startswith(("=", "+", "@")), cell
    assert ok(admin, "exportDataCsv", {"entityType": "contact", "query": "Weekexport"})["rows"] == 3


def test_a_duplicate_found_at_import_never_names_a_private_contact(people):
    admin, member = people["admin"], people["member"]
    secret = ContactFactory(
        actor=admin, first_name="Secret", email="secret@dup.example", visibility="private"
    )
    plan = _validate(member, "firstName,email\nMine,secret@dup.example\n")
    assert plan["duplicateRows"] == 0 and str(secret.pk) not in str(plan["duplicates"])
    done = _commit(member, plan["token"])
    made = ok(member, "getContact", {"contactId": done["createdIds"][0]})
    assert "Secret" not in str(made) and f"{secret.pk}" not in str(made.get("possibleDuplicates", ""))


def test_custom_fields_filled_through_the_contacts_tools_and_an_import(people):
    admin, member = people["admin"], people["member"]
    for key, kind in (("since", "date"), ("score", "number")):
        field = {"action": "create", "kind": "contacts", "key": key, "label": key.title(), "type": kind}
        ok(admin, "manageCustomFields", field, **CONFIRM)
    made = ok(
        member,
        "createContact",
        {
            "contact": {"firstName": "Cf", "email": "cf@week.example"},
            "customFields": {"since": "2020-01-01", "score": 3},
        },
    )["contact"]
    assert made["customFields"] == {"since": "2020-01-01", "score": 3}
    # A date far out of the kit's years is refused, as every date of the service, and kept out.
    for far in ("0001-01-01", "9999-12-31"):
        given = {"contactId": made["id"], "changes": {}, "customFields": {"since": far}}
        said = refused(member, "updateContact", given)
        assert "since" in said and "1000" in said
        given = {"kind": "contacts", "recordId": made["id"], "values": {"since": far}}
        said = refused(admin, "setCustomFieldValues", given)
        assert "since" in said
    assert ok(member, "getContact", {"contactId": made["id"]})["customFields"]["since"] == "2020-01-01"
    plan = _validate(
        member, "email,cf:score,cf:since\nn1@week.example,1e999,\nn2@week.example,7,9999-12-31\n"
    )
    assert {(p["row"], p["column"]) for p in plan["problems"]} == {(2, "cf:score"), (3, "cf:since")}


def _not_a_crash(user, name, arguments):
    from apps.catalogue.testing import call, text_of

    result = call(user, name, arguments, **CONFIRM)
    said = text_of(result)
    assert "error on the server" not in said, (name, arguments, said)
    return result


@pytest.mark.parametrize(
    "arguments",
    [
        {"start": "9999-12-30", "end": "9999-12-31"},
        {"start": "0001-01-01", "end": "0001-01-05"},
        {"start": "2026-01-01", "end": "2025-01-01"},
    ],
)
def test_the_billing_summary_of_a_far_period_is_an_answer_or_a_refusal(people, arguments):
    _not_a_crash(people["admin"], "getBillingSummary", arguments)


@pytest.mark.parametrize(
    "name, arguments",
    [
        ("getPublicHolidays", {"country": "DE", "year": 2200}),
        ("getPublicHolidays", {"country": "DE", "subdivision": "\u0000x"}),
        ("getPublicHolidays", {"country": "ZZ"}),
        ("getCountriesByRegion", {"region": "=HYPERLINK(1)"}),
        ("getCountryBankConfig", {"country": "AQ"}),
        ("getCountryBankConfig", {"country": "US"}),
        ("validateBankDetails", {"iban": "DE89 3704 0044 0532 0130 00", "bic": "ZZZZZZZZ"}),
        ("validateBankDetails", {"country": "XK", "bankCode": "1", "accountNumber": "1"}),
        ("validateBankDetails", {"country": "US", "bankCode": "021000021", "accountNumber": "12345"}),
        ("validateTaxId", {"country": "DE", "number": "DE\u00a0136 695 976"}),
        ("validateTaxId", {"country": "GR", "number": "EL094259216"}),
        ("validateTaxId", {"country": "AQ", "number": "1"}),
        ("searchActivityLog", {"since": "0001-01-01T00:00:00+14:00"}),
        ("searchActivityLog", {"until": "9999-12-31T23:59:59-12:00"}),
        ("searchActivityLog", {"cursor": "====="}),
        ("getActivityDetail", {"entryId": "call:99999999999999999999"}),
        ("getActivityDetail", {"entryId": "contacts.contactevent:-1"}),
        ("listRecentlyDeleted", {"entityType": "contact", "limit": 1, "offset": 10_000}),
    ],
)
def test_odd_reference_and_log_questions_are_answers_or_refusals(people, name, arguments):
    for role in ("admin", "member", "viewer"):
        _not_a_crash(people[role], name, arguments)


def test_every_kind_exports_for_every_role_without_failing(people):
    from apps.core import transfer

    for kind in [item.kind for item in transfer.exportables()]:
        for role in ("admin", "member", "viewer"):
            for file_format in ("csv", "xlsx"):
                _not_a_crash(people[role], "exportDataCsv", {"entityType": kind, "format": file_format})


@pytest.mark.parametrize(
    "bad",
    [
        "email,country\n" + "".join(f"p{n}@many.example,Narnia {n}\n" for n in range(800)),
        "email,firstName\n" + "".join(f"p{n}@many.example,{'x' * 600}\n" for n in range(800)),
        "email\n" + "".join(f"{'y' * 300}-{n}\n" for n in range(800)),
    ],
)
def test_a_file_with_many_bad_rows_still_answers_its_token(people, bad):
    from apps.catalogue.testing import call, text_of

    said = text_of(call(people["member"], "validateDataImport", {"entityType": "contact", "csvText": bad}))
    assert '"token"' in said, said[:300]
    # The same with bulkImportContacts, whose answer holds the plan.
    said = text_of(call(people["member"], "bulkImportContacts", {"csvText": bad}, **CONFIRM))
    assert '"token"' in said and '"committed":false' in said.replace(" ", ""), said[:300]


def test_a_custom_text_too_long_is_not_quoted_back_whole(people):
    admin, member = people["admin"], people["member"]
    field = {"action": "create", "kind": "contacts", "key": "bio", "label": "Bio", "type": "text"}
    ok(admin, "manageCustomFields", field, **CONFIRM)
    made = ok(member, "createContact", {"contact": {"firstName": "Long"}})["contact"]
    given = {"contactId": made["id"], "changes": {}, "customFields": {"bio": "z" * 5000}}
    said = refused(member, "updateContact", given)
    assert "bio" in said and len(said) < 1_000
    # In an import, one such problem per row; the answer still lists what fits, with its token.
    bad = "firstName,cf:bio\n" + "".join(f"Row{n},{'w' * 2000}\n" for n in range(800))
    plan = _validate(member, bad)
    assert plan["invalidRows"] == 800 and 0 < len(plan["problems"]) <= 500
    assert all(len(problem["problem"]) <= 300 for problem in plan["problems"])


def test_an_address_already_held_in_other_capitals_is_a_duplicate(people):
    member = people["member"]
    held = ok(member, "createContact", {"contact": {"firstName": "Ada", "email": "Ada.Case@Week.Example"}})
    plan = _validate(member, "firstName,email\nAda,ada.case@week.example\nBo,ADA.CASE@WEEK.EXAMPLE\n")
    assert plan["toImport"] == 0 and plan["duplicateRows"] == 2
    assert plan["duplicates"][0]["existingId"] == held["contact"]["id"]


def test_imported_values_a_trashed_contact_and_the_log_through_the_week(people):
    admin, member, viewer = people["admin"], people["member"], people["viewer"]
    choice = {"action": "create", "kind": "contacts", "key": "tier", "label": "Tier", "type": "choice"}
    ok(admin, "manageCustomFields", {**choice, "choices": ["gold", "silver"]}, **CONFIRM)
    text = "firstName,email,cf:Tier,visibility\nGo,go@tier.example,gold,\nSi,si@tier.example,silver,\n"
    token = _validate(member, text)["token"]
    first, again = _commit(member, token), _commit(member, token)
    assert first["createdIds"] == again["createdIds"] and len(first["createdIds"]) == 2
    go, si = first["createdIds"]
    assert ok(viewer, "getContact", {"contactId": go})["customFields"] == {"tier": "gold"}
    # The admin's own private import: nobody else reads it, its changes or its trash.
    private = _commit(
        admin, _validate(admin, "firstName,email,visibility\nPriv,priv@tier.example,private\n")["token"]
    )
    hidden = private["createdIds"][0]
    # Choices a value holds stay; the type stays while values are held.
    update = {"action": "update", "kind": "contacts", "key": "tier"}
    assert "silver" in refused(admin, "manageCustomFields", {**update, "choices": ["gold"]}, **CONFIRM)
    assert refused(admin, "manageCustomFields", {**update, "type": "text"}, **CONFIRM)
    # Archived, the values hide; restored, they are back.
    ok(admin, "manageCustomFields", {"action": "archive", "kind": "contacts", "key": "tier"}, **CONFIRM)
    assert ok(member, "getContact", {"contactId": go})["customFields"] == {}
    ok(admin, "manageCustomFields", {"action": "restore", "kind": "contacts", "key": "tier"}, **CONFIRM)
    assert ok(member, "getContact", {"contactId": go})["customFields"] == {"tier": "gold"}
    # Trash: a member's contact (deleted by the admin: a member deletes none), and the admin's private one.
    ok(admin, "deleteContact", {"contactId": si}, **CONFIRM)
    ok(admin, "deleteContact", {"contactId": hidden}, **CONFIRM)
    for user in (member, viewer):
        listed = ok(user, "listRecentlyDeleted", {"entityType": "contact", "limit": 100})
        ids = [item["id"] for item in listed["items"]]
        assert si in ids and hidden not in ids and "Priv" not in str(listed)
    assert hidden in [
        item["id"]
        for item in ok(admin, "listRecentlyDeleted", {"entityType": "contact", "limit": 100})["items"]
    ]
    ok(admin, "restoreContact", {"contactId": si}, **CONFIRM)
    assert ok(member, "getContact", {"contactId": si})["customFields"] == {"tier": "silver"}
    # The log: the member's own, never the admin's private contact.
    log = ok(member, "searchActivityLog", {"limit": 100})
    assert "Priv" not in str(log) and hidden not in [item["recordId"] for item in log["items"]]
    assert ok(admin, "searchActivityLog", {"recordKind": "contact", "recordId": hidden})["items"]
    said = refused(member, "searchActivityLog", {"recordKind": "contact", "recordId": hidden})
    assert "Priv" not in said
    # An export: values of the fields are not columns yet; the private one is not a row.
    exported = ok(member, "exportDataCsv", {"entityType": "contact", "query": "tier.example"})
    assert "priv@" not in exported["csvText"] and exported["rows"] == 2


def test_headers_as_spreadsheets_write_them_are_matched(people):
    member = people["member"]
    text = "\ufeffFirst\u00a0name;\u00a0E-Mail ;Last_Name\r\nAda;ada@nbsp.example\u00a0;Byron\r\n"
    plan = _validate(member, text)
    assert (plan["toImport"], plan["invalidRows"]) == (1, 0), plan


@pytest.mark.parametrize("query", ["\u0000", "%_%", "a" * 200, " ".join(["w"] * 60), "'; drop table x; --"])
def test_an_export_query_of_odd_words_is_an_answer_or_a_refusal(people, query):
    _not_a_crash(people["member"], "exportDataCsv", {"entityType": "contact", "query": query})
    _not_a_crash(people["member"], "requestDataExport", {"entityType": "contact", "query": query})


def test_a_merge_keeps_the_custom_values_only_a_duplicate_held(people):
    admin = people["admin"]
    for key in ("tier", "region"):
        field = {"action": "create", "kind": "contacts", "key": key, "label": key.title(), "type": "text"}
        ok(admin, "manageCustomFields", field, **CONFIRM)
    kept = ok(admin, "createContact", {"contact": {"firstName": "Kept"}, "customFields": {"region": "north"}})
    twin = ok(
        admin,
        "createContact",
        {"contact": {"firstName": "Kept"}, "customFields": {"tier": "gold", "region": "south"}},
    )
    kept_id, twin_id = kept["contact"]["id"], twin["contact"]["id"]
    ok(admin, "mergeContacts", {"primaryId": kept_id, "duplicateIds": [twin_id]}, **CONFIRM)
    # The primary's own value stays; the one only the duplicate held comes over, as empty fields do.
    assert ok(admin, "getContact", {"contactId": kept_id})["customFields"] == {
        "tier": "gold",
        "region": "north",
    }
    # The duplicate, restored, still holds its own.
    ok(admin, "restoreContact", {"contactId": twin_id}, **CONFIRM)
    assert ok(admin, "getContact", {"contactId": twin_id})["customFields"] == {
        "tier": "gold",
        "region": "south",
    }


GARBAGE = ["=1+1", "9999-12-31T23:59:59-12:00", "0001-01-01", "-1", "\u202eevil", "x" * 5000, "1e999", "nan"]


def test_every_importable_kind_takes_garbage_as_problems_not_failures(people):
    from apps.core import transfer

    for item in transfer.importables():
        header = ",".join(column.name for column in item.columns)
        rows = [",".join(f'"{value}"' for _column in item.columns) for value in GARBAGE]
        text = header + "\n" + "\n".join(rows) + "\n"
        for role in ("admin", "member"):
            result = _not_a_crash(
                people[role], "validateDataImport", {"entityType": item.kind, "csvText": text}
            )
            if not result.get("isError"):
                token = result["structuredContent"]["token"]
                _not_a_crash(people[role], "commitDataImport", {"token": token, "skipInvalidRows": True})
