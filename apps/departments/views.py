"""The Departments settings page: departments with their people and contacts, and the deleted
ones, which people allowed to delete departments can restore."""

from django.contrib import messages
from django.db.models import Prefetch
from django.http import HttpResponse
from django.shortcuts import redirect, render

from apps.accounts.requests import AuthenticatedHttpRequest
from apps.contacts import api as contacts_api
from apps.core.actors import can
from apps.core.pages import READ, page
from apps.departments import selectors, services
from apps.departments.models import Department, DepartmentContact, Member
from apps.departments.permissions import DepartmentsPerm


@page(DepartmentsPerm.VIEW, methods=READ)
def department_list(request: AuthenticatedHttpRequest) -> HttpResponse:
    members = Member.objects.select_related("user")
    contacts = contacts_api.visible(request.user, DepartmentContact.objects.all())
    rows = (
        Department.objects.restrict(request.user, trash="include")
        .select_related("parent", "head")
        .prefetch_related(
            Prefetch("members", queryset=members[:50], to_attr="shown_members"),
            Prefetch("contact_links", queryset=contacts[:50], to_attr="shown_contacts"),
        )
    )
    departments = list(selectors.with_counts(request.user, rows).order_by("name", "id")[:500])
    return render(
        request,
        "departments/list.html",
        {
            "nav": "departments",
            "departments": [d for d in departments if not d.in_trash],
            "deleted": [d for d in departments if d.in_trash],
            "may_restore": can(request.user, DepartmentsPerm.DELETE),
        },
    )


@page(DepartmentsPerm.DELETE, methods=("POST",))
def department_restore(request: AuthenticatedHttpRequest, department_id: int) -> HttpResponse:
    department = Department.objects.fetch(request.user, department_id, "delete", trash=True)
    services.department_restore(actor=request.user, department=department)
    messages.success(request, f"{department.name} is back.")
    return redirect("departments:list")
