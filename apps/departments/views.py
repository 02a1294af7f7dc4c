"""The Departments settings page: departments with their people and contacts, and the deleted
ones, which people allowed to delete departments can restore."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from apps.contacts import related
from apps.core.actors import can
from apps.core.errors import AppError
from apps.departments import selectors, services
from apps.departments.models import Department
from apps.departments.permissions import DepartmentsPerm


@login_required
def department_list(request: HttpRequest) -> HttpResponse:
    if not can(request.user, DepartmentsPerm.VIEW):
        raise PermissionDenied
    rows = selectors.with_counts(selectors.department_visible(actor=request.user, include_deleted=True))
    departments = list(rows.order_by("name", "id")[:500])
    for department in departments:
        department.shown_members = list(department.members.select_related("user")[:50])
        department.shown_contacts = list(related.visible(request.user, department.contact_links)[:50])
    return render(
        request,
        "departments/list.html",
        {
            "nav": "departments",
            "departments": [d for d in departments if d.deleted_at is None],
            "deleted": [d for d in departments if d.deleted_at is not None],
            "may_restore": can(request.user, DepartmentsPerm.DELETE),
        },
    )


@login_required
@require_POST
def department_restore(request: HttpRequest, department_id: int) -> HttpResponse:
    department = Department.objects.filter(pk=department_id, deleted_at__isnull=False).first()
    if department is None or not can(request.user, DepartmentsPerm.VIEW):
        raise Http404
    try:
        with transaction.atomic():
            services.department_restore(actor=request.user, department=department)
    except AppError as error:
        if error.http_status == 403:
            raise PermissionDenied from None
        messages.error(request, str(error.message))
    else:
        messages.success(request, f"{department.name} is back.")
    return redirect("departments:list")
