"""Reads for the HR dashboard and the examination of one employee."""

from datetime import date, timedelta
from typing import Any

from django.db.models import Q
from django.utils import timezone

from apps.core.actors import Actor
from apps.hr.models import Employee, LeaveRequest, OnboardingItem, TimeEntry
from apps.hr.selectors import employees, leave
from apps.hr.selectors import time as times
from apps.hr.services.onboarding import items_visible


def dashboard(*, actor: Actor) -> dict[str, Any]:
    today = timezone.localdate()
    soon = today + timedelta(days=30)
    staff = employees.employee_rows(actor=actor)
    current = staff.filter(start_date__lte=today).filter(Q(end_date__isnull=True) | Q(end_date__gte=today))
    requests = leave.requests_visible(actor=actor)
    away = requests.filter(status=LeaveRequest.Status.APPROVED, start_date__lte=today, end_date__gte=today)
    sees_time = TimeEntry.access.all_rows(actor)
    overdue = items_visible(actor=actor).filter(due_date__lt=today, done_at__isnull=True)
    return {
        "headcount": current.count(),
        "joining": list(staff.filter(start_date__gt=today, start_date__lte=soon).order_by("start_date")[:20]),
        "leaving": list(staff.filter(end_date__gte=today, end_date__lte=soon).order_by("end_date")[:20]),
        "pending_leave": requests.filter(status=LeaveRequest.Status.PENDING).count(),
        "on_leave_today": [r.employee.full_name for r in away[:50]],
        "clocked_in": times.clocked_in(actor=actor).count() if sees_time else None,
        "overdue_onboarding": overdue.count(),
    }


def open_items(*, actor: Actor, employee: Employee) -> Any:
    return items_visible(actor=actor).filter(checklist__employee=employee, done_at__isnull=True)


def upcoming_leave(*, actor: Actor, employee: Employee, since: date) -> Any:
    return (
        leave.requests_visible(actor=actor)
        .filter(employee=employee, end_date__gte=since)
        .exclude(status__in=[LeaveRequest.Status.DENIED, LeaveRequest.Status.CANCELLED])
        .order_by("start_date")
    )


__all__ = ["OnboardingItem", "dashboard", "open_items", "upcoming_leave"]
