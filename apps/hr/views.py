"""The HR settings page: employees, leave requests waiting for a decision, and time."""

from django.http import HttpResponse
from django.shortcuts import render

from apps.accounts.requests import AuthenticatedHttpRequest
from apps.core.pages import READ, page
from apps.hr.models import Employee
from apps.hr.permissions import HrPerm


@page(HrPerm.VIEW, methods=READ)
def home(request: AuthenticatedHttpRequest) -> HttpResponse:
    employees = Employee.objects.restrict(request.user).select_related("department", "manager")
    return render(request, "hr/home.html", {"nav": "hr", "employees": employees[:500]})
