"""Customer Service's records through the Platform's import and export tools (apps.support.transfer):
tickets exported, canned replies exported and imported through `canned_create`."""

import csv
import io

import pytest

from apps.catalogue.testing import confirmed, ok, person_with, refused
from apps.support.models import CannedReply
from apps.support.tests.factories import CannedReplyFactory, TicketFactory

CONFIRM = {"capabilities": {"elicitation": {}}, "elicit": confirmed}


def _table(answer):
    rows = list(csv.reader(io.StringIO(answer["csvText"])))
    return [dict(zip(rows[0], row, strict=True)) for row in rows[1:]]


def _export(user, kind, query):
    return _table(ok(user, "exportDataCsv", {"entityType": kind, "query": query}))


def _validate(user, text):
    return ok(user, "validateDataImport", {"entityType": "cannedReply", "csvText": text})


def _commit(user, token):
    return ok(user, "commitDataImport", {"token": token}, **CONFIRM)


def _live(**filters):
    return CannedReply.objects.filter(deleted_at__isnull=True, **filters)


def test_tickets_are_exported_with_people_by_address_and_formulas_neutralised(people):
    TicketFactory(
        actor=people["member"], subject="Ticketmarker printer", assignee=people["admin"], tags=["hw"]
    )
    TicketFactory(actor=people["member"], subject="=HYPERLINK(1) Ticketmarker", priority="high")

    rows = _export(people["viewer"], "ticket", "Ticketmarker")

    assert sorted(row["subject"] for row in rows) == ["'=HYPERLINK(1) Ticketmarker", "Ticketmarker printer"]
    printer = next(row for row in rows if row["subject"] == "Ticketmarker printer")
    assert (printer["assigneeEmail"], printer["tags"], printer["requesterEmail"]) == (
        "admin@acme.example",
        "hw",
        "sam.ortiz@example.net",
    )
    assert printer["createdAt"][:4].isdigit() and "T" in printer["createdAt"]


def test_a_role_that_may_not_read_tickets_may_not_export_them(acme):
    person = person_with({"platform.view", "files.view", "files.edit"}, email="no-support@acme.example")

    assert "permission" in refused(person, "exportDataCsv", {"entityType": "ticket"})
    assert "permission" in refused(person, "exportDataCsv", {"entityType": "cannedReply"})


def test_canned_replies_export_the_shared_ones_and_ones_own_never_another_persons(people):
    CannedReplyFactory(actor=people["admin"], title="Cannedmarker shared", visibility="workspace")
    CannedReplyFactory(actor=people["admin"], title="Cannedmarker admin's own")
    CannedReplyFactory(actor=people["member"], title="Cannedmarker member's own", add_tags=["a", "b"])

    mine = _export(people["member"], "cannedReply", "Cannedmarker")
    theirs = _export(people["admin"], "cannedReply", "Cannedmarker")

    assert sorted(row["title"] for row in mine) == ["Cannedmarker member's own", "Cannedmarker shared"]
    # An administrator sees no other person's own canned replies either.
    assert sorted(row["title"] for row in theirs) == ["Cannedmarker admin's own", "Cannedmarker shared"]
    own = next(row for row in mine if row["title"] == "Cannedmarker member's own")
    assert (own["shared"], own["addTags"], own["ownerEmail"]) == ("false", "a; b", "member@acme.example")


def test_canned_replies_import_checked_by_row_and_column_then_made_once(people):
    CannedReplyFactory(actor=people["admin"], title="Importmarker held", visibility="workspace")
    before = CannedReply.objects.count()
    text = (
        "Title,body,shared,setStatus,addTags\n"
        'Importmarker refund,"Hi {{customer.first_name}}, refunded.",false,solved,"refund; money"\n'  # 2
        "Importmarker bad,Hi {{nobody}},,,\n"  # 3: placeholder
        "Importmarker team,Hello,true,,\n"  # 4: shared, administrators only
        "Importmarker status,Hello,,sideways,\n"  # 5: status
        "IMPORTMARKER REFUND,Again,,,\n"  # 6: repeats row 2
        "Importmarker held,Again,,,\n"  # 7: one the member sees already
        "Importmarker maybe,Hello,perhaps,,\n"  # 8: shared is not true or false
    )

    plan = _validate(people["member"], text)

    assert (plan["rows"], plan["toImport"], plan["invalidRows"], plan["duplicateRows"]) == (7, 1, 4, 2)
    columns = {(problem["row"], problem["column"]) for problem in plan["problems"]}
    assert columns == {(3, "body"), (4, ""), (5, "setStatus"), (8, "shared")}
    assert "administrators" in next(p["problem"] for p in plan["problems"] if p["row"] == 4)
    assert [(d["row"], d["ofRow"], d["existingId"] is not None) for d in plan["duplicates"]] == [
        (6, 2, False),
        (7, None, True),
    ]
    assert CannedReply.objects.count() == before

    token = _validate(people["member"], text.splitlines()[0] + "\n" + text.splitlines()[1] + "\n")["token"]
    first = _commit(people["member"], token)
    again = _commit(people["member"], token)

    made = list(_live(title="Importmarker refund"))
    assert [canned.pk for canned in made] == first["createdIds"] == again["createdIds"]
    assert (first["created"], again["alreadyCommitted"]) == (1, True)
    (refund,) = made
    assert (refund.owner, refund.visibility, refund.set_status, refund.add_tags) == (
        people["member"],
        "private",
        "solved",
        ["refund", "money"],
    )


def test_an_administrator_imports_shared_canned_replies(people):
    token = _validate(people["admin"], "title,body,shared\nSharedmarker hello,Hello,yes\n")["token"]

    _commit(people["admin"], token)

    assert _live(title="Sharedmarker hello").get().visibility == "workspace"


@pytest.mark.parametrize("permissions", [{"platform.view", "platform.import", "customerservice.view"}])
def test_a_role_that_may_not_write_canned_replies_may_not_import_them(acme, permissions):
    person = person_with(permissions, email="no-canned@acme.example")

    said = refused(
        person, "validateDataImport", {"entityType": "cannedReply", "csvText": "title,body\nA,B\n"}
    )

    assert "permission" in said and not _live(title="A").exists()
