"""Documents exported through the Platform's export tool (apps.documents.transfer): the list the
person may read, never another person's private document, and never a document's text."""

import csv
import io

from apps.catalogue.testing import ok, person_with, refused
from apps.documents.tests.factories import DocumentFactory, DocumentFolderFactory


def _table(user, query):
    answer = ok(user, "exportDataCsv", {"entityType": "document", "query": query})
    rows = list(csv.reader(io.StringIO(answer["csvText"])))
    return [dict(zip(rows[0], row, strict=True)) for row in rows[1:]]


def test_documents_are_listed_as_each_person_may_read_them(people):
    board = DocumentFolderFactory(actor=people["member"], name="Board")
    minutes = DocumentFolderFactory(actor=people["member"], name="Minutes", parent=board)
    DocumentFactory(
        actor=people["member"], title="Docmarker plan", content="Secret words here", folder=minutes
    )
    DocumentFactory(actor=people["member"], title="Docmarker mine", visibility="private")
    DocumentFactory(actor=people["admin"], title="Docmarker theirs", visibility="private")
    DocumentFactory(actor=people["admin"], title="@Docmarker sum")

    mine = _table(people["member"], "Docmarker")
    viewer = _table(people["viewer"], "Docmarker")

    assert sorted(row["title"] for row in mine) == ["'@Docmarker sum", "Docmarker mine", "Docmarker plan"]
    assert sorted(row["title"] for row in viewer) == ["'@Docmarker sum", "Docmarker plan"]
    plan = next(row for row in mine if row["title"] == "Docmarker plan")
    assert (plan["folder"], plan["ownerEmail"], plan["visibility"], plan["version"]) == (
        "/Board/Minutes",
        "member@acme.example",
        "workspace",
        "1",
    )
    assert int(plan["characters"]) > 0 and "Secret" not in str(mine)
    assert "updatedAt" in plan and plan["createdAt"][:2] == "20"


def test_a_role_that_may_not_read_documents_may_not_export_them(acme):
    person = person_with({"platform.view", "files.view", "files.edit"}, email="no-documents@acme.example")

    assert "permission" in refused(person, "exportDataCsv", {"entityType": "document"})
