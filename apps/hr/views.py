"""The HR settings page: employees, leave requests waiting for a decision, and time."""

from django.http import HttpResponse
from django.shortcuts import render

from apps.accounts.requests import AuthenticatedHttpRequest
from apps.core.pages import READ, page
from apps.hr.models import Employee
from apps.hr.permissions import HrPerm
from apps.hr.selectors import employees as selectors


@page(HrPerm.VIEW, methods=READ)
def home(request: AuthenticatedHttpRequest) -> HttpResponse:
    employees = Employee.objects.restrict(request.user).select_related("department", "manager")
    return render(request, "hr/home.html", {"nav": "hr", "employees": employees[:500]})


@page(HrPerm.VIEW, methods=READ, back="hr:home")
def employee_detail(request: AuthenticatedHttpRequest, employee_id: int) -> HttpResponse:
    employee = Employee.objects.select_related("department", "manager", "user").fetch(
        request.user, employee_id
    )
    restricted = selectors.restricted_of(actor=request.user, employee=employee)
    return render(request, "hr/employee.html", {"nav": "hr", "employee": employee, "restricted": restricted})
