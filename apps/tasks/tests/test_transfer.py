"""Tasks through the Platform's import and export tools (apps/tasks/transfer.py), called through
the catalogue's dispatcher: an export by two roles (another person's private task absent, a
template left out), an import validated (problems by row and column, nothing made) then committed
twice with one effect, a task still to be done of the same title found as a duplicate, and a role
that may not make tasks refused."""

import csv
import io
from datetime import datetime

from apps.catalogue.testing import ok, person_without, refused
from apps.platform.models import DataImport
from apps.platform.tests.test_transfer_tools import _commit, _validate
from apps.tasks.models import Task, TaskColumn, TaskEvent
from apps.tasks.tests.factories import TaskFactory, TemplateFactory


def _export(user, query):
    answer = ok(user, "exportDataCsv", {"entityType": "task", "query": query})
    return list(csv.DictReader(io.StringIO(answer["csvText"])))


def test_an_export_holds_the_tasks_each_role_may_read(people):
    TaskFactory(
        actor=people["member"], title="Exportmarker backups", priority="high", due_at=datetime(2027, 1, 5, 9)
    )
    TaskFactory(actor=people["member"], title="-Exportmarker formula", description="=1+2")
    TaskFactory(actor=people["admin"], title="Exportmarker secret", visibility="private")
    TemplateFactory(actor=people["member"], title="Exportmarker template")

    rows = _export(people["member"], "Exportmarker")

    assert sorted(row["title"] for row in rows) == ["'-Exportmarker formula", "Exportmarker backups"]
    backups = next(row for row in rows if row["title"] == "Exportmarker backups")
    assert list(backups)[:3] == ["id", "title", "description"]
    assert (backups["priority"], backups["status"], backups["ownerEmail"]) == (
        "high",
        "draft",
        "member@acme.example",
    )
    assert backups["dueAt"].startswith("2027-01-05T09:00")
    assert {row["description"] for row in rows if row["title"].startswith("'-")} == {"'=1+2"}

    theirs = _export(people["admin"], "Exportmarker")
    assert sorted(row["title"] for row in theirs) == [
        "'-Exportmarker formula",
        "Exportmarker backups",
        "Exportmarker secret",
    ]


def test_an_import_is_checked_by_row_and_column_then_made_once(people):
    held = TaskFactory(actor=people["member"], title="Importmarker held")
    before = (Task.objects.count(), TaskEvent.objects.count())
    text = (
        "Title,description,priority,due at,visibility\n"
        "Importmarker backups,Weekly,urgent,2027-02-01T10:30,private\n"  # 2: fine
        "Importmarker soon,,soon,,\n"  # 3: priority
        "Importmarker when,,,next week,\n"  # 4: due
        ",only a description,,,\n"  # 5: no title
        "Importmarker who,,,,everyone\n"  # 6: visibility
        "IMPORTMARKER  backups,,,,\n"  # 7: repeats row 2
        "importmarker held,,,,\n"  # 8: a task we have, still to do
        "Importmarker review,,,2027-03-01,\n"  # 9: fine
    )

    plan = _validate(people["member"], text, kind="task")

    problems = {(p["row"], p["column"]) for p in plan["problems"]}
    assert problems == {(3, "priority"), (4, "dueAt"), (5, "title"), (6, "visibility")}
    assert all(p["problem"] for p in plan["problems"])
    assert [(d["row"], d["key"], d["ofRow"], d["existingId"]) for d in plan["duplicates"]] == [
        (7, "title:importmarker backups", 2, None),
        (8, "title:importmarker held", None, held.pk),
    ]
    assert (plan["toImport"], plan["invalidRows"]) == (2, 4)
    assert (Task.objects.count(), TaskEvent.objects.count()) == before

    first = _commit(people["member"], plan["token"], skipInvalidRows=True)
    again = _commit(people["member"], plan["token"], skipInvalidRows=True)

    made = list(Task.objects.filter(pk__in=first["createdIds"]).order_by("id"))
    assert [task.pk for task in made] == again["createdIds"] and again["alreadyCommitted"] is True
    backups, review = made
    assert (backups.title, backups.description, backups.priority, backups.visibility, backups.status) == (
        "Importmarker backups",
        "Weekly",
        "urgent",
        "private",
        "draft",
    )
    assert (backups.due_at.hour, backups.due_at.minute, backups.owner) == (10, 30, people["member"])
    assert review.due_at.date().isoformat() == "2027-03-01" and review.priority == "normal"
    # Made as createTask makes one: its board and its history.
    assert TaskColumn.objects.filter(task__in=made).count() == 6
    assert TaskEvent.objects.filter(task__in=made, kind="created").count() == 2
    assert Task.objects.count() == before[0] + 2


def test_a_finished_task_of_the_same_title_is_no_duplicate(people):
    done = TaskFactory(actor=people["member"], title="Finishedmarker report")
    Task.objects.filter(pk=done.pk).update(status=Task.Status.COMPLETED)

    plan = _validate(people["member"], "title\nFinishedmarker report\n", kind="task")

    assert (plan["toImport"], plan["duplicates"]) == (1, [])


def test_a_role_that_may_not_make_tasks_may_not_import_them(people):
    person = person_without("tasks.create", email="no-tasks-create@acme.example")
    text = "title\nRefusedmarker task\n"

    assert "permission" in refused(person, "validateDataImport", {"entityType": "task", "csvText": text})
    assert not Task.objects.filter(title="Refusedmarker task").exists()
    assert not DataImport.objects.filter(created_by=person).exists()
