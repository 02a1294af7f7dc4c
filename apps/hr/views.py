"""The HR settings pages: employees, leave requests waiting for a decision (approved or denied
here too), and the time clock; each employee's page, restricted details only for HR; and Hiring,
its pipelines with their stages and candidates, and each candidate's page with their CV, consent,
stage history and the rankings given as advice."""

from datetime import timedelta

from django.contrib import messages
from django.db.models import Count, Q
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone

from apps.accounts.requests import AuthenticatedHttpRequest
from apps.core.pages import READ, page
from apps.hr.models import (
    Candidate,
    CompanyHoliday,
    Employee,
    HiringAdvice,
    HiringPipeline,
    LeaveRequest,
    TimeEntry,
)
from apps.hr.permissions import HrPerm
from apps.hr.selectors import employees as selectors
from apps.hr.selectors import leave as leave_selectors
from apps.hr.selectors import time as times
from apps.hr.services import leave
from apps.hr.services.onboarding import items_visible


@page(HrPerm.VIEW, methods=READ)
def home(request: AuthenticatedHttpRequest) -> HttpResponse:
    actor = request.user
    today = timezone.localdate()
    staff = selectors.employee_list(actor=actor, status="all")
    requests = leave_selectors.requests_visible(actor=actor)
    sees_time = TimeEntry.access.all_rows(actor)
    own = selectors.employee_of(actor)
    pending = requests.filter(status=LeaveRequest.Status.PENDING).order_by("start_date", "id")[:200]
    # HR decides on every request, a line manager on their reports' (never on their own).
    deciding = set(
        requests.filter(LeaveRequest.access.deciding(LeaveRequest, actor), status=LeaveRequest.Status.PENDING)
        .exclude(requested_by=actor)
        .exclude(employee__user=actor)
        .values_list("pk", flat=True)
    )
    clock: list[TimeEntry] = []
    if sees_time:
        clock = list(times.clocked_in(actor=actor).select_related("employee").order_by("clock_in")[:200])
    elif own is not None and TimeEntry.access.may(actor, "view"):
        week = times.entries_of(actor=actor, employee=own, start=today - timedelta(days=6), end=today)
        clock = list(week.select_related("employee"))
    own_balances = leave.balances_per_type(employee=own) if own is not None else []
    return render(
        request,
        "hr/home.html",
        {
            "nav": "hr",
            "leave_types": leave.types_live().prefetch_related("policies"),
            "own_balances": own_balances,
            "adjustments": leave_selectors.adjustments_visible(actor=actor)[:100],
            "company_holidays": CompanyHoliday.objects.live().filter(date__gte=today)[:100],
            "employees": staff[:500],
            "pending": pending,
            "coming": requests.filter(status=LeaveRequest.Status.APPROVED, end_date__gte=today).order_by(
                "start_date", "id"
            )[:200],
            "deciding": deciding,
            "sees_time": sees_time,
            "clock": clock,
            "overdue": items_visible(actor=actor)
            .filter(due_date__lt=today, done_at__isnull=True)
            .order_by("due_date")[:100],
        },
    )


@page(HrPerm.VIEW, methods=("POST",), back="hr:home")
def leave_decide(request: AuthenticatedHttpRequest, request_id: int) -> HttpResponse:
    found = leave_selectors.requests_visible(actor=request.user).fetch(request.user, request_id)
    if request.POST.get("decision") == "approve":
        leave.request_approve(actor=request.user, request=found)
        messages.success(request, f"Leave of {found.employee.full_name} approved.")
    else:
        decided = leave.request_deny(actor=request.user, request=found, reason=request.POST.get("reason", ""))
        messages.success(request, f"Leave of {found.employee.full_name} is {decided.status}.")
    return redirect("hr:home")


@page(HrPerm.VIEW, methods=READ, back="hr:home")
def employee_detail(request: AuthenticatedHttpRequest, employee_id: int) -> HttpResponse:
    actor = request.user
    employee = Employee.objects.select_related("department", "manager", "user").fetch(actor, employee_id)
    today = timezone.localdate()
    balance = None
    balances: list[leave.Balance] = []
    adjustments = None
    if LeaveRequest.access.covers(actor, employee=employee):
        balance = leave.balance_of(employee=employee, policy=leave.policy_default())
        balances = leave.balances_per_type(employee=employee)
        adjustments = leave.adjustments_of(employee=employee)[:50]
    entries: list[TimeEntry] = []
    if TimeEntry.access.may(actor, "view") and TimeEntry.access.covers(actor, employee=employee):
        entries = list(
            times.entries_of(actor=actor, employee=employee, start=today - timedelta(days=13), end=today)
        )
    return render(
        request,
        "hr/employee.html",
        {
            "nav": "hr",
            "employee": employee,
            "restricted": selectors.restricted_of(actor=actor, employee=employee),
            "sees_health": "health" in Employee.access.fields_allowed(actor, employee),
            "balance": balance,
            "balances": balances,
            "adjustments": adjustments,
            "requests": leave_selectors.requests_visible(actor=actor).filter(employee=employee)[:50],
            "entries": entries,
            "items": items_visible(actor=actor)
            .filter(checklist__employee=employee)
            .order_by("due_date", "id"),
        },
    )


@page(HrPerm.HIRING, methods=READ)
def hiring(request: AuthenticatedHttpRequest) -> HttpResponse:
    candidates = Candidate.objects.restrict(request.user)
    pipelines = (
        HiringPipeline.objects.restrict(request.user)
        .prefetch_related("stages")
        .annotate(live=Count("candidates", filter=Q(candidates__in=candidates)))
        .order_by("name", "id")[:100]
    )
    rows = candidates.select_related("pipeline", "stage").order_by("-last_activity_at", "-id")[:500]
    return render(request, "hr/hiring.html", {"nav": "hr-hiring", "pipelines": pipelines, "candidates": rows})


@page(HrPerm.HIRING, methods=READ)
def candidate(request: AuthenticatedHttpRequest, candidate_id: int) -> HttpResponse:
    found = Candidate.objects.select_related("pipeline", "stage", "duplicate_of").fetch(
        request.user, candidate_id
    )
    history = found.history.select_related("from_stage", "to_stage", "by")
    advice = [
        a
        for a in HiringAdvice.objects.order_by("-at")[:200]
        if any(r["candidate"] == found.pk for r in a.ranking)
    ]
    return render(
        request,
        "hr/candidate.html",
        {"nav": "hr-hiring", "candidate": found, "history": history, "advice": advice[:20]},
    )
