"""The Departments settings page: departments with their people and contacts, and the deleted
ones, which people allowed to delete departments can restore."""

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from apps.contacts import related
from apps.core.actors import can
from apps.core.pages import READ, page
from apps.departments import selectors, services
from apps.departments.models import Department
from apps.departments.permissions import DepartmentsPerm


@page(DepartmentsPerm.VIEW, methods=READ)
def department_list(request: HttpRequest) -> HttpResponse:
    rows = Department.objects.restrict(request.user, trash="include").select_related("parent", "head")
    departments = list(selectors.with_counts(rows).order_by("name", "id")[:500])
    for department in departments:
        department.shown_members = list(department.members.select_related("user")[:50])
        department.shown_contacts = list(related.visible(request.user, department.contact_links)[:50])
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
def department_restore(request: HttpRequest, department_id: int) -> HttpResponse:
    department = Department.objects.fetch(request.user, department_id, "delete", trash=True)
    services.department_restore(actor=request.user, department=department)
    messages.success(request, f"{department.name} is back.")
    return redirect("departments:list")
