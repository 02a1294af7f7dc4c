"""writeFile, combineFiles and write_file steps: tasks write into the workspace's files."""

import io

import pytest
from pypdf import PdfReader

from apps.catalogue.testing import ok, person_with, refused
from apps.files import services as file_services
from apps.files.models import File, Folder
from apps.files.tests.factories import FileFactory
from apps.tasks.models import TaskEvent, TaskStepLink
from apps.tasks.tests.factories import TaskFactory


def pdf_of(*lines: str) -> bytes:
    from reportlab.pdfgen import canvas

    out = io.BytesIO()
    page = canvas.Canvas(out)
    for line in lines:
        page.drawString(72, 720, line)
        page.showPage()
    page.save()
    return out.getvalue()


def test_write_file_for_a_step_records_it_and_links_it(people):
    task = TaskFactory(actor=people["member"], title="Monthly report")
    step = task.steps.first()

    answer = ok(
        people["member"],
        "writeFile",
        {
            "name": "report.md",
            "text": "# March\n\nAll good.",
            "folder": "/Reports/2031",
            "taskId": task.pk,
            "stepId": step.pk,
        },
    )

    file = File.objects.get(pk=answer["file"]["id"])
    assert (file.name, file.folder.name, file.folder.parent.name) == ("report.md", "2031", "Reports")
    assert file_services.file_bytes(file) == b"# March\n\nAll good."
    assert (file.source, file.origin, file.owner) == ("task", f"task {task.pk}", people["member"])
    assert answer["file"]["path"] == "/Reports/2031/report.md"
    event = TaskEvent.objects.get(task=task, kind="file_written")
    assert event.data == {"file_id": file.pk} and event.step_id == step.pk
    detail = ok(people["member"], "getTaskStepDetail", {"taskId": task.pk, "stepId": step.pk})
    assert detail["linked"] == [{"type": "file", "id": file.pk, "title": "report.md", "available": True}]


def test_write_file_without_a_task_and_with_base64(people):
    answer = ok(people["member"], "writeFile", {"name": "dot.bin", "contentBase64": "AAEC"})

    file = File.objects.get(pk=answer["file"]["id"])
    assert file_services.file_bytes(file) == b"\x00\x01\x02"
    assert file.folder.name == "Task outputs" and answer["taskId"] is None


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"name": "a.txt"}, "either as `text` or as `contentBase64`"),
        ({"name": "a.txt", "contentBase64": "***"}, "not valid base64"),
        ({"name": "a.txt", "text": "x", "stepId": 3}, "give the task of the step"),
        ({"name": "a.txt", "text": "x", "taskId": 987654}, "Task 987654 was not found"),
        ({"name": "a/b.txt", "text": "x"}, "name"),
        ({"name": "a.txt", "text": "x" * (2 * 1024 * 1024 + 1)}, "over this workspace's limit"),
    ],
)
def test_write_file_refuses_bad_input_and_writes_nothing(people, arguments, expected):
    message = refused(people["member"], "writeFile", arguments)

    assert expected.lower() in message.lower(), message
    assert not File.objects.exists() and not Folder.objects.exists()


def test_write_file_needs_the_files_permission_too(acme):
    person = person_with({"tasks.view", "tasks.edit", "files.view"}, email="no-files@acme.example")

    assert "permission" in refused(person, "writeFile", {"name": "a.txt", "text": "x"})
    assert not File.objects.exists()


def test_write_file_into_a_task_someone_else_may_only_see(people):
    task = TaskFactory(actor=people["admin"], visibility="private")
    task.shares.create(user=people["member"], access="view")

    assert "but not change it" in refused(
        people["member"], "writeFile", {"name": "a.txt", "text": "x", "taskId": task.pk}
    )
    assert not File.objects.exists()


def test_combine_text_files_with_headings(people):
    first = FileFactory(actor=people["member"], name="a.txt", text="Alpha")
    second = FileFactory(actor=people["member"], name="b.md", text="Beta")
    task = TaskFactory(actor=people["member"])

    answer = ok(
        people["member"],
        "combineFiles",
        {"fileIds": [second.pk, first.pk], "name": "both.md", "taskId": task.pk},
    )

    combined = File.objects.get(pk=answer["file"]["id"])
    assert answer["combined"] == "text"
    assert file_services.file_bytes(combined).decode() == "# b.md\n\nBeta\n\n# a.txt\n\nAlpha\n"
    assert combined.mime_type == "text/markdown"
    assert TaskEvent.objects.filter(task=task, kind="file_written").exists()


def test_combine_pdfs_into_one_pdf(people):
    one = file_services.file_create(actor=people["member"], name="one.pdf", content=pdf_of("First page"))
    two = file_services.file_create(actor=people["member"], name="two.pdf", content=pdf_of("Second", "Third"))

    answer = ok(people["member"], "combineFiles", {"fileIds": [one.pk, two.pk], "name": "all.pdf"})

    merged = PdfReader(io.BytesIO(file_services.file_bytes(File.objects.get(pk=answer["file"]["id"]))))
    assert answer["combined"] == "pages"
    assert [page.extract_text().strip() for page in merged.pages] == ["First page", "Second", "Third"]


def test_combine_reads_the_text_of_a_pdf_into_a_text_file(people):
    pdf = file_services.file_create(actor=people["member"], name="invoice.pdf", content=pdf_of("Invoice 42"))
    note = FileFactory(actor=people["member"], name="note.txt", text="Paid")

    answer = ok(
        people["member"],
        "combineFiles",
        {"fileIds": [pdf.pk, note.pk], "name": "file.txt", "headings": False},
    )

    assert (
        file_services.file_bytes(File.objects.get(pk=answer["file"]["id"])).decode() == "Invoice 42\n\nPaid\n"
    )


def test_combine_refuses_what_it_cannot_combine(people):
    text = FileFactory(actor=people["member"], name="a.txt", text="Alpha")
    image = file_services.file_create(
        actor=people["member"], name="dot.png", content=b"\x89PNG\r\n\x1a\n0000"
    )
    private = FileFactory(actor=people["admin"], name="secret.txt", text="x", visibility="private")
    before = File.objects.count()

    assert "each file once" in refused(
        people["member"], "combineFiles", {"fileIds": [text.pk, text.pk], "name": "x.txt"}
    )
    assert "not PDFs" in refused(
        people["member"], "combineFiles", {"fileIds": [text.pk, image.pk], "name": "x.pdf"}
    )
    assert "cannot be read" in refused(
        people["member"], "combineFiles", {"fileIds": [text.pk, image.pk], "name": "x.txt"}
    )
    assert f"File {private.pk} was not found" in refused(
        people["member"], "combineFiles", {"fileIds": [text.pk, private.pk], "name": "x.txt"}
    )
    assert "`fileIds`" in refused(people["member"], "combineFiles", {"fileIds": [text.pk], "name": "x.txt"})
    assert File.objects.count() == before


def test_a_write_file_step_writes_when_the_run_reaches_it(people):
    task = TaskFactory(
        actor=people["member"],
        steps=[
            {
                "title": "Write the minutes",
                "kind": "write_file",
                "file": {"name": "minutes.txt", "text": "Nothing to report."},
            }
        ],
    )

    answer = ok(people["member"], "startTask", {"taskId": task.pk})

    file = File.objects.get(name="minutes.txt")
    assert answer["status"] == "completed"
    assert file.folder.name == "Task outputs" and file_services.file_bytes(file) == b"Nothing to report."
    step = task.steps.get()
    assert step.result == f"Wrote file {file.pk}."
    assert TaskStepLink.objects.filter(step=step, object_id=file.pk).exists()


def test_a_write_file_step_that_cannot_write_fails_the_task_and_leaves_nothing(people):
    owner = person_with(
        {"tasks.view", "tasks.create", "tasks.edit", "tasks.run"}, email="no-files@acme.example"
    )
    task = TaskFactory(
        actor=owner,
        steps=[{"title": "Write", "kind": "write_file", "file": {"name": "a.txt", "folder": "/New folder"}}],
    )

    answer = ok(owner, "startTask", {"taskId": task.pk})

    assert answer["status"] == "failed"
    assert not File.objects.exists() and not Folder.objects.exists()
    assert "permission" in task.steps.get().result.lower()


def test_a_write_file_step_needs_its_file(people):
    task = TaskFactory(actor=people["member"])
    steps = task.steps.count()

    assert "needs the file to write" in refused(
        people["member"], "addTaskStep", {"taskId": task.pk, "step": {"title": "s", "kind": "write_file"}}
    )
    # createTask takes no write_file steps (its description sends them to addTaskStep).
    assert "`steps.0.kind`: Input should be 'manual', 'agent' or 'notify'" in refused(
        people["member"], "createTask", {"title": "x", "steps": [{"title": "s", "kind": "write_file"}]}
    )
    assert task.steps.count() == steps


def test_files_can_be_attached_to_a_task(people):
    task = TaskFactory(actor=people["member"])
    file = FileFactory(actor=people["member"], name="brief.txt", text="The brief")

    ok(people["member"], "attachEntityFile", {"fileId": file.pk, "entityType": "task", "entityId": task.pk})

    from apps.core.kinds import attachments

    assert [item.id for item in attachments.attachments_of(actor=people["member"], record=task)] == [file.pk]
