"""HR records as people import and export them as spreadsheets (apps.core.transfer).

- `employee`: imported as createEmployee makes an employment record (`employees.employee_create`,
  its cleaning and checks), its department given by name, its manager and linked person by
  e-mail address, as the importer sees them; two rows are one employee when they share a work
  e-mail address (the area keeps one live employee of an address). Exported as the directory
  everyone who may see HR reads: no pay, national identifier or health.
- `employee_pay`: export only, for those who may see pay (hr.restricted): each employee's pay.
  Pay is written by HR one employee at a time (updateEmployee's restricted details), never by rows.
- `leave_request`: export only, the requests the person may see (their own, those they asked for,
  their reports' as line manager, everyone's for approvers). A request is asked by its employee
  and decided by an approver, each step changing balances and the calendar: rows of a file
  would skip the asking.

National identifiers and health notes are in no export: HR reads them one employee at a time."""

from typing import Any

from django.db.models.functions import Lower
from django.utils.translation import gettext_lazy as _

from apps.core import clean, transfer
from apps.core.actors import actor_id
from apps.core.errors import invalid
from apps.core.transfer import Column
from apps.departments import api as departments
from apps.hr.models import Employee, RestrictedDetails
from apps.hr.permissions import HrPerm
from apps.hr.selectors.leave import requests_visible
from apps.hr.services import employees


def _weekdays(text: str) -> list[int]:
    parts = [part for part in text.replace(";", ",").replace(" ", ",").split(",") if part]
    if not all(part.isdigit() for part in parts):
        raise invalid("workingDays", _("give the days worked as numbers, Monday 0 to Sunday 6: 0,1,2,3,4"))
    return [int(part) for part in parts]


def _employment_type(text: str) -> str:
    value = text.strip().lower()
    if value not in Employee.Type.values:
        raise invalid("employment_type", _("one of {choices}"), choices=", ".join(Employee.Type.values))
    return value


COLUMNS = (
    Column("fullName", "full_name", "as colleagues know them"),
    Column("email", "email", "work e-mail, unique"),
    Column("startDate", "start_date", "YYYY-MM-DD"),
    Column("endDate", "end_date", "YYYY-MM-DD, the last day of work"),
    Column("jobTitle", "job_title"),
    Column(
        "employmentType",
        "employment_type",
        "employee (the default), contractor or intern",
        parse=_employment_type,
    ),
    Column("departmentName", "department_name", "a department's name"),
    Column("managerEmail", "manager_email", "the work e-mail of another employee"),
    Column("personEmail", "person_email", "a person of the workspace the record is theirs"),
    Column("location", "location"),
    Column("country", "country", "ISO code whose public holidays are known (GB, DE, US)"),
    Column("region", "region", "its subdivision (ENG, BY)"),
    Column("timeZone", "time_zone", "IANA, e.g. Europe/London"),
    Column("fte", "fte", "1 = full time"),
    Column("hoursPerWeek", "hours_per_week"),
    Column("workingDays", "working_days", "Monday 0 to Sunday 6, e.g. 0,1,2,3,4", parse=_weekdays),
)


def _address(text: Any) -> str:
    return str(text or "").strip().lower()


def _fields(actor: Any, fields: dict[str, Any]) -> dict[str, Any]:
    """The row's fields as the service takes them: the department and the manager by their ids."""
    given = dict(fields)
    department_name = given.pop("department_name", None)
    if department_name:
        department = departments.department_named(actor, department_name)
        if department is None:
            raise invalid(
                "department_name",
                _("no department called {name!r}; listDepartments lists them"),
                name=department_name,
            )
        given["department_id"] = department.pk
    manager_email = given.pop("manager_email", None)
    if manager_email:
        manager = (
            Employee.objects.restrict(actor, "view")
            .filter(email__iexact=_address(manager_email))
            .order_by("id")
            .first()
        )
        if manager is None:
            raise invalid(
                "manager_email",
                _("no employee has the work e-mail {email!r}; searchEmployees finds them"),
                email=manager_email,
            )
        given["manager_id"] = manager.pk
    if given.get("person_email"):
        # The service's own lookup, naming the column when nobody has the address.
        clean.person_by_email(given["person_email"], field="person_email")
    return given


def check(actor: Any, fields: dict[str, Any]) -> None:
    if existing(actor, set(keys(fields))):
        return  # the import leaves it out as a duplicate
    employees._apply(actor, Employee(created_by_id=actor_id(actor)), _fields(actor, fields), True)


def create(actor: Any, fields: dict[str, Any]) -> int:
    return employees.employee_create(actor=actor, fields=_fields(actor, fields)).pk


def keys(fields: dict[str, Any]) -> list[str]:
    email = _address(fields.get("email"))
    return [f"email:{email}"] if email else []


def existing(actor: Any, wanted: set[str]) -> dict[str, int]:
    emails = [key.partition(":")[2] for key in wanted if key.startswith("email:")]
    if not emails:
        return {}
    rows = (
        Employee.objects.restrict(actor, "view")
        .annotate(lower_email=Lower("email"))
        .filter(lower_email__in=emails)
        .order_by("id")
    )
    found: dict[str, int] = {}
    for pk, email in rows.values_list("pk", "email"):
        found.setdefault(f"email:{_address(email)}", pk)
    return found


transfer.importable(
    transfer.Importable(
        kind="employee",
        label=_("Employee"),
        permission=HrPerm.EMPLOYEES,
        columns=COLUMNS,
        check=check,
        create=create,
        keys=keys,
        existing=existing,
        description="email: an employee with the same work e-mail address",
    )
)


def _email_of(person: Any) -> str:
    return person.email if person is not None else ""


# The import's columns after the employee's id: the directory, never the restricted details.
transfer.exportable(
    transfer.Exportable(
        kind="employee",
        label=_("Employee"),
        permission=HrPerm.VIEW,
        columns=(
            ("id", lambda employee: employee.pk),
            ("fullName", lambda employee: employee.full_name),
            ("email", lambda employee: employee.email),
            ("startDate", lambda employee: employee.start_date),
            ("endDate", lambda employee: employee.end_date),
            ("jobTitle", lambda employee: employee.job_title),
            ("employmentType", lambda employee: employee.employment_type),
            ("departmentName", lambda employee: employee.department.name if employee.department else ""),
            ("managerEmail", lambda employee: employee.manager.email if employee.manager else ""),
            ("managerName", lambda employee: employee.manager.full_name if employee.manager else ""),
            ("personEmail", lambda employee: _email_of(employee.user)),
            ("location", lambda employee: employee.location),
            ("country", lambda employee: employee.country),
            ("region", lambda employee: employee.region),
            ("timeZone", lambda employee: employee.time_zone),
            ("fte", lambda employee: employee.fte),
            ("hoursPerWeek", lambda employee: employee.hours_per_week),
            ("workingDays", lambda employee: ",".join(str(day) for day in employee.working_days)),
            ("createdAt", lambda employee: employee.created_at),
        ),
        rows=lambda actor: (
            Employee.objects.restrict(actor, "view")
            .select_related("department", "manager", "user")
            .order_by("full_name", "id")
        ),
        search=("full_name", "email", "job_title", "location"),
    )
)


def _restricted(employee: Employee) -> RestrictedDetails | None:
    try:
        return employee.restricted
    except RestrictedDetails.DoesNotExist:
        return None


def _pay(name: str) -> Any:
    def value(employee: Employee) -> Any:
        details = _restricted(employee)
        return getattr(details, name) if details is not None else ""

    return value


transfer.exportable(
    transfer.Exportable(
        kind="employee_pay",
        label=_("Employee pay"),
        permission=HrPerm.RESTRICTED,
        columns=(
            ("id", lambda employee: employee.pk),
            ("fullName", lambda employee: employee.full_name),
            ("email", lambda employee: employee.email),
            ("jobTitle", lambda employee: employee.job_title),
            ("departmentName", lambda employee: employee.department.name if employee.department else ""),
            ("payAmount", _pay("pay_amount")),
            ("payCurrency", _pay("pay_currency")),
            ("payPeriod", _pay("pay_period")),
        ),
        rows=lambda actor: (
            Employee.objects.restrict(actor, "view")
            .select_related("department", "restricted")
            .order_by("full_name", "id")
        ),
        search=("full_name", "email", "job_title"),
    )
)


transfer.exportable(
    transfer.Exportable(
        kind="leave_request",
        label=_("Leave request"),
        permission=HrPerm.VIEW,
        columns=(
            ("id", lambda request: request.pk),
            ("employeeName", lambda request: request.employee.full_name),
            ("employeeEmail", lambda request: request.employee.email),
            ("leaveType", lambda request: request.policy.leave_type.name),
            ("policy", lambda request: request.policy.name),
            ("startDate", lambda request: request.start_date),
            ("endDate", lambda request: request.end_date),
            ("startHalf", lambda request: request.start_half),
            ("endHalf", lambda request: request.end_half),
            ("days", lambda request: request.days),
            ("status", lambda request: request.status),
            ("note", lambda request: request.note),
            ("requestedByEmail", lambda request: _email_of(request.requested_by)),
            ("decidedByEmail", lambda request: _email_of(request.decided_by)),
            ("decidedAt", lambda request: request.decided_at),
            ("decisionNote", lambda request: request.decision_note),
            ("createdAt", lambda request: request.created_at),
        ),
        rows=lambda actor: (
            requests_visible(actor=actor)
            .select_related("policy__leave_type", "requested_by")
            .order_by("-start_date", "id")
        ),
        search=("employee__full_name", "employee__email", "note", "policy__leave_type__name"),
    )
)
