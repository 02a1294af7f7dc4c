"""Data exports through call_tool: exportDataCsv (CSV with a BOM and formula-like cells
neutralised, XLSX with every cell text; only what the caller may read; a private file with a
signed link, small ones inline), requestDataExport and getDataExportStatus (in the background,
with progress). Per tool a normal call, bad input and a refusal."""

import csv
import io
from collections.abc import Iterator

import pytest
from openpyxl import load_workbook

from apps.catalogue.dispatch import ToolNotFound
from apps.catalogue.testing import call, ok, person_with, person_without, refused
from apps.contacts.tests.factories import ContactFactory
from apps.files import api as files
from apps.files.models import File
from apps.platform import exports
from apps.platform.models import DataExport
from config.celery import app as celery_app


@pytest.fixture
def eager_tasks() -> Iterator[None]:
    previous = celery_app.conf.task_always_eager, celery_app.conf.task_eager_propagates
    celery_app.conf.task_always_eager = True
    celery_app.conf.task_eager_propagates = True
    yield
    celery_app.conf.task_always_eager, celery_app.conf.task_eager_propagates = previous


def _contacts(people, marker):
    ContactFactory(actor=people["member"], first_name="Ada", last_name=marker, email="ada@export.example")
    ContactFactory(
        actor=people["member"], first_name='=HYPERLINK("http://evil")', last_name=marker, tags=["vip"]
    )
    ContactFactory(actor=people["member"], first_name="+cmd", last_name=marker, notes="-2+3\n@sum")
    ContactFactory(actor=people["admin"], first_name="Secret", last_name=marker, visibility="private")


def _stored(answer):
    return File.objects.get(pk=answer["file"]["fileId"])


@pytest.mark.parametrize("name", ["exportDataCsv", "requestDataExport", "getDataExportStatus"])
def test_a_role_without_the_platform_permission_cannot_call_it(acme, name):
    person = person_without("platform.view", email=f"no-{name.lower()}@acme.example")

    with pytest.raises(ToolNotFound):
        call(person, name, {"entityType": "contact", "exportId": 1})


def test_a_role_that_may_not_read_contacts_may_not_export_them(people):
    person = person_with({"platform.view", "files.view", "files.edit"}, email="no-contacts@acme.example")

    assert "permission" in refused(person, "exportDataCsv", {"entityType": "contact"})
    assert "permission" in refused(person, "requestDataExport", {"entityType": "contact"})
    assert not DataExport.objects.filter(created_by=person).exists()


def test_a_csv_export_has_a_bom_neutralised_formulas_and_only_what_the_caller_reads(people):
    _contacts(people, "Exportmarker")

    answer = ok(people["member"], "exportDataCsv", {"entityType": "contact", "query": "Exportmarker"})

    stored = _stored(answer)
    data = files.file_bytes(stored)
    assert data.startswith("\ufeff".encode())
    rows = list(csv.reader(io.StringIO(data.decode("utf-8-sig"))))
    header, body = rows[0], rows[1:]
    assert header[:4] == ["id", "kind", "firstName", "lastName"] and "ownerEmail" in header
    first = [row[header.index("firstName")] for row in body]
    assert sorted(first) == sorted(["Ada", '\'=HYPERLINK("http://evil")', "'+cmd"])  # not the private one
    assert [row[header.index("notes")] for row in body if row[2] == "'+cmd"] == ["'-2+3\n@sum"]
    assert answer["rows"] == 3 and answer["status"] == "done" and answer["exportId"] is None
    assert answer["csvText"] == data.decode("utf-8-sig")
    assert answer["file"]["url"].startswith("http") and "/files/download/" in answer["file"]["url"]
    assert (stored.visibility, stored.owner, stored.folder.name) == ("private", people["member"], "Exports")

    # The admin sees the private contact too.
    theirs = ok(people["admin"], "exportDataCsv", {"entityType": "contact", "query": "Exportmarker"})
    assert theirs["rows"] == 4 and "Secret" in theirs["csvText"]


def test_an_xlsx_export_holds_every_cell_as_text(people):
    _contacts(people, "Xlsxmarker")

    answer = ok(
        people["member"], "exportDataCsv", {"entityType": "contact", "format": "xlsx", "query": "Xlsxmarker"}
    )

    sheet = load_workbook(io.BytesIO(files.file_bytes(_stored(answer)))).worksheets[0]
    rows = list(sheet.iter_rows())
    names = {row[2].value: row[2].data_type for row in rows[1:]}
    assert names == {"Ada": "s", '=HYPERLINK("http://evil")': "s", "+cmd": "s"}
    assert answer["csvText"] is None and answer["file"]["name"].endswith(".xlsx")


def test_a_viewer_who_may_not_keep_files_gets_a_small_export_inline(people):
    _contacts(people, "Viewermarker")

    answer = ok(people["viewer"], "exportDataCsv", {"entityType": "contact", "query": "Viewermarker"})

    assert answer["file"] is None and answer["rows"] == 3 and "Ada" in answer["csvText"]


def test_a_large_export_runs_in_the_background_with_progress(
    people, monkeypatch, eager_tasks, django_capture_on_commit_callbacks
):
    _contacts(people, "Largemarker")
    monkeypatch.setattr(exports, "NOW_ROWS", 2)
    monkeypatch.setattr(exports, "STEP", 1)

    with django_capture_on_commit_callbacks(execute=True):
        queued = ok(people["member"], "exportDataCsv", {"entityType": "contact", "query": "Largemarker"})
    assert (queued["status"], queued["file"], queued["rows"]) == ("queued", None, 3)

    done = ok(people["member"], "getDataExportStatus", {"exportId": queued["exportId"]})
    assert (done["status"], done["totalRows"], done["doneRows"], done["percent"]) == ("done", 3, 3, 100)
    assert done["file"]["url"].startswith("http") and done["file"]["name"].endswith(".csv")

    with django_capture_on_commit_callbacks(execute=True):
        started = ok(
            people["member"],
            "requestDataExport",
            {"entityType": "contact", "format": "xlsx", "query": "Largemarker"},
        )
    assert started["status"] == "queued"
    later = ok(people["member"], "getDataExportStatus", {"exportId": started["exportId"]})
    assert later["status"] == "done" and later["file"]["name"].endswith(".xlsx")

    # Another person's export is not theirs to follow.
    assert "was not found" in refused(
        people["admin"], "getDataExportStatus", {"exportId": started["exportId"]}
    )


@pytest.mark.parametrize(
    ("name", "arguments", "said"),
    [
        ("exportDataCsv", {"entityType": "spaceship"}, "'spaceship' cannot be exported"),
        ("exportDataCsv", {"entityType": "contact", "format": "pdf"}, "`format`"),
        ("requestDataExport", {"entityType": "starship"}, "'starship' cannot be exported"),
        ("getDataExportStatus", {"exportId": 999999}, "Export 999999 was not found"),
        ("getDataExportStatus", {"exportId": "latest"}, "`exportId`"),
    ],
)
def test_bad_input_is_a_clear_error(people, name, arguments, said):
    assert said in refused(people["member"], name, arguments)
    assert not DataExport.objects.filter(
        created_by=people["member"], kind__in=["spaceship", "starship"]
    ).exists()
