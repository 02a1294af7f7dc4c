"""Departments through the Platform's import and export tools (apps.departments.transfer): an
export as everyone who sees departments reads them, an import checked by row and column then
committed once, a department of an existing name a duplicate, a role that may not add
departments refused."""

import csv
import io

from apps.catalogue.testing import ok, person_without, refused
from apps.departments import services
from apps.departments.models import Department
from apps.departments.tests.factories import DepartmentFactory
from apps.platform.models import DataImport
from apps.platform.tests.test_transfer_tools import _commit, _validate


def _exported(user, kind, query=""):
    answer = ok(user, "exportDataCsv", {"entityType": kind, "query": query})
    return list(csv.DictReader(io.StringIO(answer["csvText"])))


def test_an_export_names_the_parent_and_the_head_and_neutralises_formulas(people):
    top = DepartmentFactory(actor=people["admin"], name="Xferdept Top", head_email=people["member"].email)
    DepartmentFactory(actor=people["admin"], name="Xferdept Sales", parent_id=top.pk)
    DepartmentFactory(actor=people["admin"], name="Xferdept Ops", description="=SUM(A1:A2)")
    gone = DepartmentFactory(actor=people["admin"], name="Xferdept Gone")
    services.department_delete(actor=people["admin"], department=gone)
    for person in (people["admin"], people["member"]):
        services.member_add(actor=people["admin"], department=top, person=person)

    # Departments are the workspace's (no private ones): every role that sees them exports them
    # all, those in the trash aside.
    for role in ("member", "viewer"):
        rows = {row["name"]: row for row in _exported(people[role], "department", "Xferdept")}
        assert set(rows) == {"Xferdept Top", "Xferdept Sales", "Xferdept Ops"}
        assert rows["Xferdept Top"]["memberEmails"] == f"{people['admin'].email}; {people['member'].email}"
        assert rows["Xferdept Sales"]["parentName"] == "Xferdept Top"
        assert rows["Xferdept Top"]["headEmail"] == people["member"].email
        assert rows["Xferdept Ops"]["description"] == "'=SUM(A1:A2)"


def test_a_role_that_may_not_see_departments_may_not_export_them(people):
    person = person_without("departments.view", email="no-departments@acme.example")

    assert "permission" in refused(person, "exportDataCsv", {"entityType": "department"})


def test_an_import_is_checked_by_row_and_column_then_committed_once(people):
    DepartmentFactory(actor=people["admin"], name="Xferimp Held")
    DepartmentFactory(actor=people["admin"], name="Xferimp Parent")
    before = Department.objects.count()
    text = (
        "name,parentName,headEmail,email\n"
        "Xferimp Alpha,Xferimp Parent,member@acme.example,alpha@acme.example\n"  # 2: fine
        "Xferimp Beta,Nowhere,,\n"  # 3: unknown parent
        "Xferimp Gamma,,nobody@acme.example,\n"  # 4: no such person
        "xferimp  alpha,,,\n"  # 5: repeats row 2
        "XFERIMP HELD,,,\n"  # 6: a department we have
        ",,,bad-address\n"  # 7: no name, a bad address
    )

    plan = _validate(people["member"], text, kind="department")

    assert (plan["rows"], plan["toImport"], plan["invalidRows"], plan["duplicateRows"]) == (6, 1, 3, 2)
    problems = {(p["row"], p["column"]) for p in plan["problems"]}
    assert problems == {(3, "parentName"), (4, "headEmail"), (7, "name")}
    held = Department.objects.get(name="Xferimp Held")
    assert [(d["row"], d["ofRow"], d["existingId"]) for d in plan["duplicates"]] == [
        (5, 2, None),
        (6, None, held.pk),
    ]
    assert Department.objects.count() == before

    first = _commit(people["member"], plan["token"], skipInvalidRows=True)
    again = _commit(people["member"], plan["token"], skipInvalidRows=True)

    made = Department.objects.get(name="Xferimp Alpha")
    assert first["createdIds"] == again["createdIds"] == [made.pk] and again["alreadyCommitted"]
    assert (made.parent.name, made.head, made.email, made.created_by) == (
        "Xferimp Parent",
        people["member"],
        "alpha@acme.example",
        people["member"],
    )
    assert Department.objects.count() == before + 1


def test_a_role_that_may_not_add_departments_may_not_import_them(people):
    person = person_without("departments.edit", email="no-departments-edit@acme.example")

    message = refused(person, "validateDataImport", {"entityType": "department", "csvText": "name\nXferno\n"})

    assert "permission" in message
    assert not Department.objects.filter(name="Xferno").exists()
    assert not DataImport.objects.filter(created_by=person).exists()
