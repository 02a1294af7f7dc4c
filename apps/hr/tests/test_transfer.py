"""HR records through the Platform's import and export tools (apps.hr.transfer): the directory
exported without pay, pay exported only for who may see it, leave requests as each person sees
them; employees imported by row and column then committed once, an existing work address a
duplicate, a role that may not create employees refused."""

import csv
import io
from datetime import date

from apps.catalogue.testing import ok, person_with, refused
from apps.departments.tests.factories import DepartmentFactory
from apps.hr.models import Employee
from apps.hr.services import employees, leave
from apps.hr.tests.factories import EmployeeFactory, employee_of, monday_ahead
from apps.platform.models import DataImport
from apps.platform.tests.test_transfer_tools import _commit, _validate


def _exported(user, kind, query=""):
    answer = ok(user, "exportDataCsv", {"entityType": kind, "query": query})
    return list(csv.DictReader(io.StringIO(answer["csvText"])))


def test_the_directory_is_exported_without_pay_and_pay_only_to_who_may_see_it(people):
    boss = EmployeeFactory(actor=people["owner"], full_name="Xferhr Boss", email="boss@xferhr.example")
    worker = EmployeeFactory(
        actor=people["owner"],
        full_name="Xferhr Worker",
        email="worker@xferhr.example",
        manager_id=boss.pk,
        job_title="@admin",
    )
    employees.restricted_update(
        actor=people["owner"],
        employee=worker,
        fields={"pay_amount": 51000, "pay_currency": "EUR", "pay_period": "year", "national_id": "QQ123"},
    )

    for role in ("member", "admin"):
        rows = {row["fullName"]: row for row in _exported(people[role], "employee", "Xferhr")}
        assert set(rows) == {"Xferhr Boss", "Xferhr Worker"}
        assert rows["Xferhr Worker"]["managerEmail"] == "boss@xferhr.example"
        assert rows["Xferhr Worker"]["jobTitle"] == "'@admin"
        assert not any(
            "pay" in header.lower() or "national" in header.lower() for header in rows["Xferhr Boss"]
        )

    assert "permission" in refused(people["member"], "exportDataCsv", {"entityType": "employee_pay"})
    pay = {row["fullName"]: row for row in _exported(people["admin"], "employee_pay", "Xferhr")}
    assert (pay["Xferhr Worker"]["payAmount"], pay["Xferhr Worker"]["payPeriod"]) == ("51000.00", "year")
    assert pay["Xferhr Boss"]["payAmount"] == ""
    assert "QQ123" not in str(pay)


def test_leave_requests_are_exported_as_each_person_sees_them(people):
    mine = employee_of(people["member"], actor=people["owner"])
    other = EmployeeFactory(actor=people["owner"], full_name="Xferleave Other")
    start = monday_ahead(weeks=7)
    own = leave.request_submit(
        actor=people["member"], employee=mine, policy=leave.policy_default(), start=start, end=start
    )
    theirs = leave.request_submit(
        actor=people["owner"], employee=other, policy=leave.policy_default(), start=start, end=start
    )

    member_ids = {int(row["id"]) for row in _exported(people["member"], "leave_request")}
    admin_rows = {int(row["id"]): row for row in _exported(people["admin"], "leave_request")}

    assert own.pk in member_ids and theirs.pk not in member_ids
    assert {own.pk, theirs.pk} <= set(admin_rows)
    row = admin_rows[theirs.pk]
    assert (row["employeeName"], row["startDate"], row["status"]) == (
        "Xferleave Other",
        start.isoformat(),
        "pending",
    )


def test_an_employee_import_is_checked_by_row_and_column_then_committed_once(people):
    admin = people["admin"]
    DepartmentFactory(actor=admin, name="Xferhr Engineering")
    held = EmployeeFactory(actor=admin, full_name="Xferhr Held", email="held@xferhr.example")
    before = Employee.objects.count()
    text = (
        "Full name,email,startDate,departmentName,managerEmail,fte,workingDays,employmentType,personEmail\n"
        "Ada Xfer,ada@xferhr.example,2031-02-01,Xferhr Engineering,held@xferhr.example,0.8,0;1;2;3,"
        "Contractor,\n"  # 2: fine
        "Bob Xfer,bob@xferhr.example,someday,,,,,,\n"  # 3: start date
        "Cy Xfer,cy@xferhr.example,2031-02-01,Nowhere,,,,,\n"  # 4: department
        "Dee Xfer,dee@xferhr.example,2031-02-01,,nobody@xferhr.example,,,,\n"  # 5: manager
        "Eve Xfer,ADA@xferhr.example,2031-02-01,,,,,,\n"  # 6: repeats row 2
        "Held Again,held@xferhr.example,2031-02-01,,,,,,\n"  # 7: an employee we have
        "Fay Xfer,fay@xferhr.example,2031-02-01,,,2,,,\n"  # 8: fte
        "Gus Xfer,gus@xferhr.example,2031-02-01,,,,,wizard,\n"  # 9: type
        "Hal Xfer,hal@xferhr.example,2031-02-01,,,,,,nobody@acme.example\n"  # 10: person
    )

    plan = _validate(admin, text, kind="employee")

    assert (plan["rows"], plan["toImport"], plan["invalidRows"], plan["duplicateRows"]) == (9, 1, 6, 2)
    assert {(p["row"], p["column"]) for p in plan["problems"]} == {
        (3, "startDate"),
        (4, "departmentName"),
        (5, "managerEmail"),
        (8, "fte"),
        (9, "employmentType"),
        (10, "personEmail"),
    }
    assert [(d["row"], d["ofRow"], d["existingId"]) for d in plan["duplicates"]] == [
        (6, 2, None),
        (7, None, held.pk),
    ]
    assert Employee.objects.count() == before

    first = _commit(admin, plan["token"], skipInvalidRows=True)
    again = _commit(admin, plan["token"], skipInvalidRows=True)

    ada = Employee.objects.get(email="ada@xferhr.example")
    assert first["createdIds"] == again["createdIds"] == [ada.pk] and again["alreadyCommitted"]
    assert (ada.department.name, ada.manager, str(ada.fte), ada.working_days, ada.start_date) == (
        "Xferhr Engineering",
        held,
        "0.800",
        [0, 1, 2, 3],
        date(2031, 2, 1),
    )
    assert (ada.employment_type, ada.created_by) == ("contractor", admin)
    assert Employee.objects.count() == before + 1


def test_a_role_that_may_not_create_employees_may_not_import_them(people):
    text = "fullName,email,startDate\nNo Xfer,no@xferhr.example,2031-01-01\n"
    clerk = person_with({"hr.view", "platform.view", "platform.import"}, email="hr-clerk@acme.example")

    for person in (people["member"], clerk):
        assert "permission" in refused(
            person, "validateDataImport", {"entityType": "employee", "csvText": text}
        )
        assert not DataImport.objects.filter(created_by=person).exists()
    assert not Employee.objects.filter(email="no@xferhr.example").exists()
