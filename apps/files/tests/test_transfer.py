"""Files exported through the Platform's export tool (apps.files.transfer): the list the person
may read, never another person's private file, and never a file's content."""

import csv
import io

from apps.catalogue.testing import ok, person_with, refused
from apps.files.tests.factories import FileFactory, FolderFactory


def _table(user, query):
    answer = ok(user, "exportDataCsv", {"entityType": "file", "query": query})
    rows = list(csv.reader(io.StringIO(answer["csvText"])))
    return [dict(zip(rows[0], row, strict=True)) for row in rows[1:]]


def test_files_are_listed_as_each_person_may_read_them(people):
    contracts = FolderFactory(actor=people["member"], name="Contracts")
    FileFactory(actor=people["member"], name="filemarker-offer.txt", text="Secret offer", folder=contracts)
    FileFactory(actor=people["member"], name="filemarker-mine.txt", visibility="private")
    FileFactory(actor=people["admin"], name="filemarker-theirs.txt", visibility="private")
    FileFactory(actor=people["admin"], name="-filemarker-dash.txt")

    mine = _table(people["member"], "filemarker")
    viewer = _table(people["viewer"], "filemarker")
    admin = _table(people["admin"], "filemarker")

    assert sorted(row["name"] for row in mine) == [
        "'-filemarker-dash.txt",
        "filemarker-mine.txt",
        "filemarker-offer.txt",
    ]
    assert sorted(row["name"] for row in viewer) == ["'-filemarker-dash.txt", "filemarker-offer.txt"]
    # An administrator of Files sees every file, as the area's own listing shows them.
    assert len(admin) == 4
    offer = next(row for row in mine if row["name"] == "filemarker-offer.txt")
    assert (offer["folder"], offer["size"], offer["mimeType"], offer["ownerEmail"]) == (
        "/Contracts",
        str(len(b"Secret offer")),
        "text/plain",
        "member@acme.example",
    )
    assert "Secret" not in str(mine) and offer["createdAt"][:2] == "20"


def test_a_role_that_may_not_read_files_may_not_export_them(acme):
    person = person_with({"platform.view"}, email="no-files@acme.example")

    assert "permission" in refused(person, "exportDataCsv", {"entityType": "file"})
