"""Employees in the catalogue: thin doors onto apps.hr.services.employees and its selectors."""

from datetime import date
from typing import Annotated, Literal

from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.kit import open_tool
from apps.catalogue.registry import Marker, tool
from apps.catalogue.shapes import Changes, Limit, Offset, Page, PersonRef, id_field, paginate
from apps.hr.permissions import HrPerm
from apps.hr.selectors import employees as selectors
from apps.hr.services import employees as services
from apps.hr.shapes import EffectOut, EmployeeOut, EmployeeSummary, EmployeeUpdated
from apps.hr.tools.common import EmployeeId
from apps.tenancy import links

Country = Annotated[str, Field(description="ISO code, for public holidays")]
Region = Annotated[str, Field(description="Subdivision, e.g. BY")]


def employee_out(ctx: ToolContext, employee: object) -> EmployeeOut:
    restricted = selectors.restricted_of(actor=ctx.actor, employee=employee)  # type: ignore[arg-type]
    link = links.page("hr:employee", employee_id=employee.pk)  # type: ignore[attr-defined]
    return EmployeeOut.full(employee, restricted=restricted, url=link)


@tool("createEmployee", permission=HrPerm.EMPLOYEES, title="Create an employee")
def create_employee(
    ctx: ToolContext,
    *,
    full_name: Annotated[str, Field(min_length=1, description="As colleagues know them")],
    start_date: Annotated[date, Field(description="First day of work")],
    email: Annotated[str, Field(description="Work e-mail")] = "",
    job_title: Annotated[str, Field(description="e.g. Accountant")] = "",
    department_id: Annotated[int | None, id_field("listDepartments")] = None,
    manager_id: Annotated[int | None, id_field("searchEmployees")] = None,
    country: Country = "GB",
    region: Region = "",
    fte: Annotated[float, Field(gt=0, le=1, description="1 = full time")] = 1,
    person_email: Annotated[str, Field(description="Link a workspace person")] = "",
) -> EmployeeOut:
    """Add an employment record (job, start, manager, FTE). To give them an account: inviteEmployeeToTeam."""
    fields = {
        "full_name": full_name,
        "start_date": start_date,
        "email": email,
        "job_title": job_title,
        "department_id": department_id,
        "manager_id": manager_id,
        "country": country,
        "region": region,
        "fte": fte,
    }
    if person_email:
        fields["person_email"] = person_email
    return employee_out(ctx, services.employee_create(actor=ctx.actor, fields=fields))


@tool("getEmployee", permission=HrPerm.VIEW, title="Get an employee", read_only=True)
def get_employee(ctx: ToolContext, *, employee_id: EmployeeId) -> EmployeeOut:
    """Read one employment record; pay and health only with HR's restricted permission."""
    return employee_out(ctx, selectors.employee_get(actor=ctx.actor, employee_id=employee_id))


class EmployeeChanges(Changes):
    full_name: str = ""
    email: str = ""
    job_title: str = ""
    department_id: int | None = None
    manager_id: int | None = None
    location: str = ""
    country: str = ""
    region: str = ""
    time_zone: str = ""
    end_date: date | None = None
    fte: float = 1
    working_days: list[int] = Field(default=[], description="Monday 0")
    hours_per_week: float = 40
    pay_amount: float | None = None
    pay_currency: str = ""
    pay_period: Literal["year", "month", "hour"] = "year"
    national_id: str = ""
    health_notes: str = ""


@tool("updateEmployee", permission=HrPerm.EMPLOYEES, title="Update an employee", idempotent=True)
def update_employee(
    ctx: ToolContext,
    *,
    employee_id: EmployeeId,
    changes: Annotated[EmployeeChanges, Field(description="Only what changes; pay, ids, health: restricted")],
) -> EmployeeUpdated:
    """Change an employment record: job, manager, FTE, end date (a leaver), restricted details."""
    employee = selectors.employee_get(actor=ctx.actor, employee_id=employee_id, action="change")
    given = changes.given()
    restricted = {name: given.pop(name) for name in services.RESTRICTED if name in given}
    if restricted:
        services.restricted_update(actor=ctx.actor, employee=employee, fields=restricted)
    effects = (
        services.employee_update(actor=ctx.actor, employee=employee, fields=given).effects if given else []
    )
    found = employee_out(ctx, selectors.employee_get(actor=ctx.actor, employee_id=employee_id))
    return EmployeeUpdated(
        **dict(found),
        effects=[EffectOut(kind=e.kind, id=e.id, text=e.text) for e in effects],  # type: ignore[arg-type]
    )


@tool("listEmployees", permission=HrPerm.VIEW, title="List employees", read_only=True)
def list_employees(
    ctx: ToolContext,
    *,
    status: Annotated[
        Literal["current", "former", "future", "all"], Field(description="Default current")
    ] = "current",
    department_id: Annotated[int | None, id_field("listDepartments")] = None,
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[EmployeeSummary]:
    """Page through employees by status and department; by name or job: searchEmployees."""
    rows = selectors.employee_list(actor=ctx.actor, status=status, department_id=department_id)
    return paginate(rows, limit=limit, offset=offset, item=EmployeeSummary.of)


@tool("searchEmployees", permission=HrPerm.VIEW, title="Search employees", read_only=True)
def search_employees(
    ctx: ToolContext,
    *,
    query: Annotated[str, Field(min_length=1, max_length=200, description="Name, e-mail, job, place")],
    limit: Limit = 10,
) -> Page[EmployeeSummary]:
    """Find employees by name, e-mail, job title, location or department."""
    rows = selectors.employee_search(actor=ctx.actor, query=query)
    return paginate(rows, limit=limit, offset=0, item=EmployeeSummary.of)


open_tool(
    "openEmployee",
    permission=HrPerm.VIEW,
    title="Open an employee",
    description="Link to an employee's HR page; the HR area itself: openHumanResources.",
    page="hr:employee",
    id_argument=("employee_id", EmployeeId),
    fetch=lambda actor, employee_id: selectors.employee_get(actor=actor, employee_id=employee_id),
)


@tool(
    "inviteEmployeeToTeam",
    permission=HrPerm.EMPLOYEES,
    title="Invite an employee to the workspace",
    markers=Marker.HIGH_RISK,
)
def invite_employee_to_team(
    ctx: ToolContext,
    *,
    employee_id: EmployeeId,
    role: Annotated[str, Field(description="Role key: member, viewer...")] = "member",
) -> PersonRef:
    """Create a workspace account for an employee (their work e-mail) and mail them a sign-in link."""
    employee = selectors.employee_get(actor=ctx.actor, employee_id=employee_id, action="change")
    return PersonRef.of(services.employee_invite(actor=ctx.actor, employee=employee, role_key=role))
