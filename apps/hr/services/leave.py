"""Writes about leave: requests and their decisions, and the balance ledger.

A balance is never stored: it is the sum of ledger entries up to a date. Accruals, the closing of
a year (its balance out on 31 December, what the policy lets carry over in on 1 January) and the
expiry of carried days are written as they fall due (`ledger_ensure`); a change dated earlier
than such derived entries removes them and they are written again from the changed ledger."""

import logging
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

from django.db import transaction
from django.db.models import Q, Sum
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.accounts.models import person
from apps.core import clean
from apps.core.actors import Actor, require
from apps.core.clean import plain
from apps.core.errors import invalid
from apps.hr.errors import ApproverIsRequester, NotTheirApprover, NotYourAdjustment, NotYourLeave
from apps.hr.lib import leave
from apps.hr.models import (
    CompanyHoliday,
    Employee,
    LeaveEntry,
    LeavePolicy,
    LeaveRequest,
    LeaveType,
    PolicyAssignment,
)
from apps.hr.permissions import HrPerm
from apps.hr.services import calendar_link

logger = logging.getLogger(__name__)
Kind = LeaveEntry.Kind
OPEN = (LeaveRequest.Status.PENDING, LeaveRequest.Status.APPROVED)
DERIVED = (Kind.CARRY_OVER, Kind.EXPIRY)


# The kinds of leave every workspace starts with: (code, name, paid, counted against a balance,
# needs approval, half days). Annual leave keeps the policy it had; the others start with an
# empty policy of their own (sick, parental and unpaid leave are recorded, not counted; time in
# lieu is earned by adjustments).
STANDARD_TYPES = (
    ("annual", "Annual leave", True, True, True, True),
    ("sick", "Sick leave", True, False, False, True),
    ("parental", "Parental leave", True, False, True, False),
    ("unpaid", "Unpaid leave", False, False, True, True),
    ("toil", "Time in lieu", True, True, True, True),
)
ANNUAL = "annual"


def types_ensure() -> None:
    """Makes the standard leave types a workspace has never had (one deleted stays deleted)."""
    codes = set(LeaveType.objects.values_list("code", flat=True))
    for code, name, paid, counts, approval, halves in STANDARD_TYPES:
        if code in codes:
            continue
        if LeaveType.objects.live().filter(name__iexact=name).exists():
            name = f"{name} ({code})"
        LeaveType.objects.create(
            code=code,
            name=name,
            paid=paid,
            counts_against_balance=counts,
            needs_approval=approval,
            allow_half_days=halves,
        )


def types_live() -> Any:
    types_ensure()
    return LeaveType.objects.live().order_by("id")


def type_named(name: str | None) -> LeaveType:
    """The leave type of that code or name (annual leave when none is given)."""
    wanted = (name or ANNUAL).strip()
    rows = types_live()
    found = rows.filter(Q(code__iexact=wanted) | Q(name__iexact=wanted)).first()
    if found is None:
        codes = ", ".join(rows.values_list("code", flat=True)) or "none yet"
        raise invalid("type", _("no leave type {name!r}; the types are: {codes}"), name=wanted, codes=codes)
    return found


def policy_of_type(leave_type: LeaveType) -> LeavePolicy:
    """The type's default policy, made the first time the type is used (annual leave: 25 days a
    year, accrued monthly; up to 5 days carry over and expire at the end of March; the other
    types earn nothing by themselves)."""
    rows = LeavePolicy.objects.live().filter(leave_type=leave_type)
    policy = rows.filter(is_default=True).first() or rows.order_by("id").first()
    if policy is None:
        name = leave_type.name
        if LeavePolicy.objects.live().filter(name__iexact=name).exists():
            name = f"{name} ({leave_type.code})"
        annual = leave_type.code == ANNUAL
        policy = LeavePolicy.objects.create(
            leave_type=leave_type,
            name=name,
            annual_days=Decimal(25 if annual else 0),
            carry_over_cap=Decimal(5 if leave_type.counts_against_balance else 0),
            allow_half_days=leave_type.allow_half_days,
            is_default=True,
        )
    return policy


def policy_default() -> LeavePolicy:
    """The workspace's default policy of annual leave, made the first time leave is used."""
    return policy_of_type(type_named(ANNUAL))


def policy_named(name: str | None) -> LeavePolicy:
    if not name:
        return policy_default()
    found = LeavePolicy.objects.live().filter(name__iexact=name.strip()).first()
    if found is None:
        names = ", ".join(LeavePolicy.objects.live().values_list("name", flat=True)) or "none yet"
        raise invalid(
            "policy", _("no leave policy {name!r}; the policies are: {names}"), name=name, names=names
        )
    return found


def policy_for(
    *, employee: Employee, type_name: str | None = None, policy_name: str | None = None
) -> LeavePolicy:
    """The policy a request or balance of the employee reads: the one named, else the employee's
    policy of the type (annual leave by default): the one assigned to them, else the type's
    default."""
    if policy_name:
        found = policy_named(policy_name)
        if type_name and found.leave_type_id != type_named(type_name).pk:
            raise invalid(
                "policy",
                _("{policy!r} is a policy of {its}, not of {type}"),
                policy=found.name,
                its=found.leave_type.name,
                type=type_name,
            )
        return found
    leave_type = type_named(type_name)
    assigned = (
        PolicyAssignment.objects.filter(
            employee=employee, leave_type=leave_type, policy__deleted_at__isnull=True
        )
        .select_related("policy")
        .first()
    )
    return assigned.policy if assigned is not None else policy_of_type(leave_type)


def closed_days(employee: Employee, start: date, end: date) -> frozenset[date]:
    """The company holidays from start to end that close the employee's place of work."""
    rows = CompanyHoliday.objects.live().filter(date__gte=start, date__lte=end)
    rows = rows.filter(Q(location="") | Q(location__iexact=employee.location.strip()))
    return frozenset(rows.values_list("date", flat=True))


# --- the ledger -------------------------------------------------------------------------------------


def _sum(rows: Any) -> Decimal:
    return rows.aggregate(total=Sum("days"))["total"] or Decimal(0)


def balance_on(employee: Employee, policy: LeavePolicy, day: date) -> Decimal:
    return _sum(LeaveEntry.objects.filter(employee=employee, policy=policy, effective__lte=day))


def ledger_ensure(*, employee: Employee, policy: LeavePolicy, through: date) -> None:
    """Writes the entries due up to `through`: accruals of each period employed, and for each
    year that has ended by then, its closing, carry-over and the expiry of carried days."""
    last_day = min(through, employee.end_date) if employee.end_date else through
    if last_day < employee.start_date:
        return
    for year in range(employee.start_date.year, last_day.year + 1):
        _accrue_year(employee, policy, year, through)
        if through >= date(year + 1, 1, 1):
            _close_year(employee, policy, year, through)


def _entry(
    employee: Employee, policy: LeavePolicy, kind: str, period: date, days: Decimal, **extra: Any
) -> None:
    LeaveEntry.objects.get_or_create(
        employee=employee,
        policy=policy,
        kind=kind,
        period=period,
        defaults={"days": days, "effective": extra.pop("effective", period), **extra},
    )


def _accrue_year(employee: Employee, policy: LeavePolicy, year: int, through: date) -> None:
    if policy.accrual == LeavePolicy.Accrual.YEARLY:
        days = leave.year_accrual(policy, employee, year)
        first = max(date(year, 1, 1), employee.start_date)
        if days and first <= through:
            _entry(employee, policy, Kind.ACCRUAL, date(year, 1, 1), days, effective=first, note=f"{year}")
        return
    for month in range(1, 13):
        first = date(year, month, 1)
        if first > through:
            break
        days = leave.month_accrual(policy, employee, year, month)
        if days:
            effective = max(first, employee.start_date)
            _entry(
                employee, policy, Kind.ACCRUAL, first, days, effective=effective, note=first.strftime("%Y-%m")
            )


def _close_year(employee: Employee, policy: LeavePolicy, year: int, through: date) -> None:
    if employee.end_date and employee.end_date <= date(year, 12, 31):
        return  # gone by the end of the year: nothing carries over
    closing, opening = date(year, 12, 31), date(year + 1, 1, 1)
    if LeaveEntry.objects.filter(
        employee=employee, policy=policy, kind=Kind.CARRY_OVER, period=closing
    ).exists():
        carried = _sum(
            LeaveEntry.objects.filter(employee=employee, policy=policy, kind=Kind.CARRY_OVER, period=opening)
        )
    else:
        left = balance_on(employee, policy, closing)
        carried = min(max(left, Decimal(0)), policy.carry_over_cap)
        _entry(employee, policy, Kind.CARRY_OVER, closing, -left, note=f"{year} closed")
        if carried:
            _entry(employee, policy, Kind.CARRY_OVER, opening, carried, note=f"carried over from {year}")
    months = policy.carry_over_expiry_months
    if not carried or not months:
        return
    expires = date(year + 1 + (months // 12), months % 12 + 1, 1)
    if through < expires:
        return
    # Leave taken before the expiry uses the carried days first.
    taken = -_sum(
        LeaveEntry.objects.filter(
            employee=employee, policy=policy, kind=Kind.TAKEN, effective__gte=opening, effective__lt=expires
        )
    )
    unused = carried - min(max(taken, Decimal(0)), carried)
    if unused > 0:
        _entry(employee, policy, Kind.EXPIRY, expires, -unused, note=f"carried days from {year} expired")


def _reopen(employee: Employee, policy: LeavePolicy, since: date) -> None:
    """A change dated `since`: the closings and expiries from then on are written again."""
    LeaveEntry.objects.filter(
        employee=employee, policy=policy, kind__in=DERIVED, effective__gte=since
    ).delete()


def accruals_rebuild(*, employee: Employee) -> None:
    """The employee's FTE, start or end changed: accruals from this month on (or from the new end,
    when earlier) are made again with the new figures."""
    today = timezone.localdate()
    since = today.replace(day=1)
    if employee.end_date and employee.end_date < since:
        since = employee.end_date.replace(day=1)
    if employee.start_date > since:
        since = employee.start_date.replace(day=1)
    rows = LeaveEntry.objects.filter(employee=employee)
    rows.filter(kind=Kind.ACCRUAL, period__gte=since).delete()
    rows.filter(kind__in=DERIVED, effective__gte=since).delete()
    for policy in LeavePolicy.objects.filter(pk__in=rows.values("policy")).distinct():
        ledger_ensure(employee=employee, policy=policy, through=max(today, since))


def may_adjust(actor: Actor, employee: Employee) -> bool:
    """HR (who decide on everyone's leave) and the employee's line manager adjust a balance,
    never their own."""
    if getattr(actor, "pk", None) is not None and employee.user_id == actor.pk:
        return False
    return LeaveRequest.access.decides(actor, LeaveRequest(employee=employee))


@transaction.atomic
def balance_adjust(
    *,
    actor: Actor,
    employee: Employee,
    policy: LeavePolicy,
    days: Decimal,
    reason: str,
    effective: date | None = None,
) -> LeaveEntry:
    """Days in (time in lieu earned, a correction) or out of a balance, with the reason, who and
    when kept in its ledger."""
    require(actor, HrPerm.VIEW)
    if not may_adjust(actor, employee):
        raise NotYourAdjustment()
    reason = " ".join(reason.split())
    if not reason:
        raise invalid("reason", _("say why the balance changes; the reason stays in its ledger"))
    if len(reason) > 200:
        raise invalid("reason", _("at most 200 characters ({count} given)"), count=len(reason))
    if days == 0 or abs(days) > 366 or days != days.quantize(Decimal("0.001")):
        raise invalid("days", _("days in (positive) or out (negative), up to 366, to three decimals"))
    effective = effective or timezone.localdate()
    if effective < employee.start_date or (employee.end_date and effective > employee.end_date):
        raise invalid(
            "effective", _("{effective} is outside the employment"), effective=effective.isoformat()
        )
    employee = _lock(employee)
    if days < 0 and policy.leave_type.counts_against_balance:
        available = balance_of(employee=employee, policy=policy, year=effective.year).available
        if available + days < 0:
            raise invalid(
                "days",
                _("only {available} days of {name} are available in {year}; {days} leaves less than none"),
                available=plain(available),
                name=policy.name,
                year=effective.year,
                days=plain(days),
            )
    _reopen(employee, policy, effective)
    entry = LeaveEntry.objects.create(
        employee=employee,
        policy=policy,
        kind=Kind.ADJUSTMENT,
        days=days,
        effective=effective,
        note=reason,
        created_by=person(actor),
    )
    logger.info("leave balance of employee %s adjusted by %s days", employee.pk, days)
    return entry


def adjustments_of(*, employee: Employee, year: int | None = None) -> Any:
    """The employee's balance adjustments (every type), latest first."""
    rows = LeaveEntry.objects.filter(employee=employee, kind=Kind.ADJUSTMENT)
    if year:
        rows = rows.filter(effective__year=year)
    return rows.select_related("policy__leave_type", "created_by").order_by("-effective", "-id")


@dataclass
class Balance:
    policy: LeavePolicy
    balance_today: Decimal
    year_end_balance: Decimal
    pending: Decimal
    available: Decimal
    taken_this_year: Decimal
    carried_over: Decimal


def balance_of(*, employee: Employee, policy: LeavePolicy, year: int | None = None) -> Balance:
    today = timezone.localdate()
    year = year or today.year
    year_end = date(year, 12, 31)
    ledger_ensure(employee=employee, policy=policy, through=max(year_end, today))
    entries = LeaveEntry.objects.filter(employee=employee, policy=policy)
    in_year = entries.filter(effective__gte=date(year, 1, 1), effective__lte=year_end)
    # The balance at the end of the year, before that year is closed.
    year_end_balance = _sum(
        entries.filter(effective__lte=year_end).exclude(kind=Kind.CARRY_OVER, period=year_end)
    )
    pending = _sum(
        LeaveRequest.objects.live().filter(
            employee=employee, policy=policy, status=LeaveRequest.Status.PENDING, start_date__year=year
        )
    )
    return Balance(
        policy=policy,
        balance_today=_sum(entries.filter(effective__lte=today)),
        year_end_balance=year_end_balance,
        pending=pending,
        available=year_end_balance - pending,
        taken_this_year=-_sum(in_year.filter(kind=Kind.TAKEN)),
        carried_over=_sum(in_year.filter(kind=Kind.CARRY_OVER, days__gt=0)),
    )


def balances_per_type(*, employee: Employee, year: int | None = None) -> list[Balance]:
    """The employee's balance of each leave type, on their policy of it."""
    return [
        balance_of(employee=employee, policy=policy_for(employee=employee, type_name=kind.code), year=year)
        for kind in types_live()
    ]


# --- requests -----------------------------------------------------------------------------------------


def _lock(employee: Employee) -> Employee:
    return Employee.objects.select_for_update().get(pk=employee.pk)


# Leave is asked for within so many days of today, either way (the policy's max_past_days also
# bounds the past): a date decades out would have the balance accrued year by year up to it.
LEAVE_WINDOW_DAYS = 10 * 366


@transaction.atomic
def request_submit(
    *,
    actor: Actor,
    employee: Employee,
    policy: LeavePolicy,
    start: date,
    end: date,
    start_half: bool = False,
    end_half: bool = False,
    note: str = "",
) -> LeaveRequest:
    require(actor, HrPerm.VIEW)
    # Everyone requests their own leave, whatever their role; HR requests anyone's.
    if not LeaveRequest.access.covers(actor, "change", employee=employee):
        raise NotYourLeave()
    employee = _lock(employee)
    today = timezone.localdate()
    for field, value in (("startDate", start), ("endDate", end)):
        if abs((value - today).days) > LEAVE_WINDOW_DAYS:
            raise invalid(
                field,
                _("{day} is more than ten years from today: leave is asked for within ten years"),
                day=value.isoformat(),
            )
    if end < start:
        raise invalid("endDate", _("the last day is before the first ({start})"), start=start.isoformat())
    if start.year != end.year:
        raise invalid(
            "endDate", _("leave crosses into {year}: request it as two, split at 31 December"), year=end.year
        )
    if start < today and (today - start).days > policy.max_past_days:
        raise invalid(
            "startDate",
            _("{start} is more than {max_past_days} days ago, the limit of {name}"),
            start=start.isoformat(),
            max_past_days=policy.max_past_days,
            name=policy.name,
        )
    if start < employee.start_date or (employee.end_date and end > employee.end_date):
        raise invalid("startDate", _("the leave falls outside the employment (start to end date)"))
    if (start_half or end_half) and not policy.allow_half_days:
        raise invalid("startHalf", _("{name} is taken in whole days"), name=policy.name)
    if (start_half or end_half) and not policy.leave_type.allow_half_days:
        raise invalid("startHalf", _("{name} is taken in whole days"), name=policy.leave_type.name)
    if start == end and start_half and end_half:
        raise invalid(
            "endHalf", _("a one-day request is either the morning (endHalf) or the afternoon (startHalf)")
        )
    closed = closed_days(employee, start, end)
    days = leave.working_days(employee, start, end, start_half=start_half, end_half=end_half, closed=closed)
    if days <= 0:
        raise invalid(
            "startDate",
            _("no working days in that period (weekends, days off, public and company holidays)"),
        )
    clash = (
        LeaveRequest.objects.live()
        .filter(employee=employee, status__in=OPEN, start_date__lte=end, end_date__gte=start)
        .first()
    )
    if clash is not None:
        raise invalid(
            "startDate",
            _("overlaps leave request {clash} ({start_date} to {end_date}, {status})"),
            clash=clash.pk,
            start_date=clash.start_date.isoformat(),
            end_date=clash.end_date.isoformat(),
            status=clash.status,
        )
    balance = balance_of(employee=employee, policy=policy, year=start.year)
    if policy.leave_type.counts_against_balance and days > balance.available:
        raise invalid(
            "endDate",
            _(
                "needs {days} days but {available} of {name} are available in {year} (pending requests "
                "counted)"
            ),
            days=days,
            available=plain(balance.available),
            name=policy.name,
            year=start.year,
        )
    request = LeaveRequest.objects.create(
        employee=employee,
        policy=policy,
        start_date=start,
        end_date=end,
        start_half=start_half,
        end_half=end_half,
        days=days,
        note=clean.long_text(note, field="note", limit=500),
        requested_by=person(actor),
        created_by=person(actor),
    )
    if not policy.leave_type.needs_approval:
        # Reported, not asked for (sick leave): recorded as taken now.
        _take(actor, request, employee, "")
    _tell_manager(actor, request)
    logger.info("leave request %s submitted for employee %s", request.pk, employee.pk)
    return request


def _tell_manager(actor: Actor, request: LeaveRequest) -> None:
    manager = request.employee.manager
    if manager is None or manager.user is None or manager.user_id == getattr(actor, "pk", None):
        return
    from apps.notifications.api import notify

    notify(
        recipient=manager.user,
        actor=person(actor),
        title=f"Leave request from {request.employee.full_name}",
        body=f"{request.start_date.isoformat()} to {request.end_date.isoformat()}: {request.days} days",
    )


def _check_approver(actor: Actor, request: LeaveRequest) -> None:
    # HR (hr.approve_leave) and the employee's line manager (LeaveRequest.access.deciders).
    if not LeaveRequest.access.decides(actor, request):
        raise NotTheirApprover()
    actor_pk = getattr(actor, "pk", None)
    if actor_pk is not None and actor_pk in (request.requested_by_id, request.employee.user_id):
        raise ApproverIsRequester()


@transaction.atomic
def request_approve(*, actor: Actor, request: LeaveRequest, note: str = "") -> LeaveRequest:
    request = LeaveRequest.objects.select_for_update().select_related("employee", "policy").get(pk=request.pk)
    _check_approver(actor, request)
    if request.status != LeaveRequest.Status.PENDING:
        raise invalid(
            "requestId",
            _("leave request {request} is {status}, not pending"),
            request=request.pk,
            status=request.status,
        )
    employee = _lock(request.employee)
    balance = balance_of(employee=employee, policy=request.policy, year=request.start_date.year)
    # Pending requests (this one included) are counted in `available`; what is approved must fit
    # what is left at the end of the year.
    if request.policy.leave_type.counts_against_balance and request.days > balance.year_end_balance:
        raise invalid(
            "requestId",
            _("needs {days} days but {left} are left in {year}"),
            days=request.days,
            left=plain(balance.year_end_balance),
            year=request.start_date.year,
        )
    _take(actor, request, employee, note)
    _tell_requester(actor, request, "approved")
    logger.info("leave request %s approved by %s", request.pk, getattr(actor, "pk", None))
    return request


def _take(actor: Actor, request: LeaveRequest, employee: Employee, note: str) -> None:
    """The request approved: its days leave the balance and it shows in Calendars."""
    _reopen(employee, request.policy, request.start_date)
    LeaveEntry.objects.create(
        employee=employee,
        policy=request.policy,
        kind=Kind.TAKEN,
        days=-request.days,
        effective=request.start_date,
        request=request,
        note=f"request {request.pk}",
        created_by=person(actor),
    )
    request.status = LeaveRequest.Status.APPROVED
    request.decided_by, request.decided_at = person(actor), timezone.now()
    request.decision_note = clean.long_text(note, field="note", limit=500)
    request.calendar_event_id = calendar_link.show(actor=actor, request=request)
    request.save()


@transaction.atomic
def request_deny(*, actor: Actor, request: LeaveRequest, reason: str) -> LeaveRequest:
    """Denies a pending request, or cancels an approved one: its days return to the balance."""
    request = LeaveRequest.objects.select_for_update().select_related("employee", "policy").get(pk=request.pk)
    if not " ".join(str(reason or "").split()):
        raise invalid("reason", _("say why, for the employee"))
    reason = clean.text(reason, field="reason", limit=500)
    actor_pk = getattr(actor, "pk", None)
    own = actor_pk is not None and actor_pk in (request.requested_by_id, request.employee.user_id)
    if own and request.status == LeaveRequest.Status.PENDING:
        # Withdrawn by the one who asked: nothing was taken, so nobody else need decide.
        return _decide_against(actor, request, reason, withdrawn=True)
    _check_approver(actor, request)
    return _decide_against(actor, request, reason)


def _decide_against(
    actor: Actor, request: LeaveRequest, reason: str, *, withdrawn: bool = False
) -> LeaveRequest:
    if request.status == LeaveRequest.Status.PENDING:
        request.status = LeaveRequest.Status.CANCELLED if withdrawn else LeaveRequest.Status.DENIED
    elif request.status == LeaveRequest.Status.APPROVED:
        _reopen(request.employee, request.policy, request.start_date)
        LeaveEntry.objects.create(
            employee=request.employee,
            policy=request.policy,
            kind=Kind.TAKEN,
            days=request.days,
            effective=request.start_date,
            request=request,
            note=f"request {request.pk} cancelled: days returned",
            created_by=person(actor),
        )
        calendar_link.remove(actor=actor, request=request)
        request.status = LeaveRequest.Status.CANCELLED
    else:
        raise invalid(
            "requestId",
            _("leave request {request} is already {status}"),
            request=request.pk,
            status=request.status,
        )
    request.decided_by, request.decided_at = person(actor), timezone.now()
    request.decision_note = reason
    request.save()
    _tell_requester(actor, request, str(request.status))
    logger.info("leave request %s %s by %s", request.pk, request.status, getattr(actor, "pk", None))
    return request


@dataclass
class Effect:
    """One thing a change to an employment changed or left for someone to do, for the answer."""

    kind: str
    id: int | None
    text: str


def employment_ended(*, actor: Actor, employee: Employee) -> list[Effect]:
    """The employee's end date was set: leave after it is cancelled (its calendar entry with it),
    requests waiting for a decision that reach past it are refused as outside the employment, and
    approved leave that runs over it is flagged to be shortened (part of it was taken while
    employed). The caller rebuilds the accruals (prorated to the end) before reading balances."""
    end = employee.end_date
    assert end is not None
    reason = _("outside the employment, which ends on {end}").format(end=end.isoformat())
    effects: list[Effect] = []
    rows = (
        LeaveRequest.objects.live()
        .select_for_update()
        .select_related("employee", "policy")
        .filter(employee=employee, status__in=OPEN, end_date__gt=end)
        .order_by("start_date", "id")
    )
    for request in rows:
        span = f"{request.start_date.isoformat()} to {request.end_date.isoformat()}"
        if request.status == LeaveRequest.Status.APPROVED and request.start_date <= end:
            text = _(
                "approved leave {span} runs past the end date {end}: deny it and request it again, shorter"
            )
            effects.append(
                Effect("leave_to_shorten", request.pk, text.format(span=span, end=end.isoformat()))
            )
            continue
        approved = request.status == LeaveRequest.Status.APPROVED
        _decide_against(actor, request, reason)
        if approved:
            text = _("approved leave {span} cancelled, its days returned and its calendar entry removed")
            effects.append(Effect("leave_cancelled", request.pk, text.format(span=span)))
        else:
            text = _("pending request {span} refused: {reason}")
            effects.append(Effect("request_refused", request.pk, text.format(span=span, reason=reason)))
    return effects


def holiday_changed(*, actor: Actor, holiday: CompanyHoliday, added: bool) -> list[Effect]:
    """A company holiday was added or removed: the open leave that covers its day, of the employees
    whose place of work it closes, is counted again (the difference in the ledger, dated like the
    leave). Leave left with no working day is refused or cancelled, saying why."""
    day, place = holiday.date, holiday.location.strip().lower()
    why = (
        _("{date} became a company holiday ({name})")
        if added
        else _("{date} is no longer a company holiday ({name})")
    ).format(date=day.isoformat(), name=holiday.name)
    rows = (
        LeaveRequest.objects.live()
        .select_for_update()
        .select_related("employee", "policy")
        .filter(status__in=OPEN, start_date__lte=day, end_date__gte=day)
        .order_by("start_date", "id")
    )
    effects: list[Effect] = []
    for request in rows:
        employee = request.employee
        if place and employee.location.strip().lower() != place:
            continue
        days = leave.working_days(
            employee,
            request.start_date,
            request.end_date,
            start_half=request.start_half,
            end_half=request.end_half,
            closed=closed_days(employee, request.start_date, request.end_date),
        )
        span = f"{request.start_date.isoformat()} to {request.end_date.isoformat()}"
        if days == request.days:
            continue
        if days <= 0:
            approved = request.status == LeaveRequest.Status.APPROVED
            _decide_against(actor, request, why)
            kind, text = (
                ("leave_cancelled", _("approved leave {span} cancelled, its days returned: {why}"))
                if approved
                else ("request_refused", _("pending request {span} refused: {why}"))
            )
            effects.append(Effect(kind, request.pk, text.format(span=span, why=why)))
            continue
        if request.status == LeaveRequest.Status.APPROVED:
            _reopen(employee, request.policy, request.start_date)
            LeaveEntry.objects.create(
                employee=employee,
                policy=request.policy,
                kind=Kind.TAKEN,
                days=request.days - days,
                effective=request.start_date,
                request=request,
                note=f"request {request.pk} recounted: {why}"[:200],
                created_by=person(actor),
            )
        text = _("leave {span} now counts {days} days (was {was}): {why}").format(
            span=span, days=plain(days), was=plain(request.days), why=why
        )
        effects.append(Effect("leave_recounted", request.pk, text))
        request.days = days
        request.save(update_fields=["days"])
    return effects


def balances_at_end(*, employee: Employee) -> list[Effect]:
    """What each policy leaves the employee at the end of their employment, from the ledger."""
    end = employee.end_date
    assert end is not None
    effects = []
    for policy in LeavePolicy.objects.filter(entries__employee=employee).distinct().order_by("name"):
        left = balance_of(employee=employee, policy=policy, year=end.year).year_end_balance
        text = _("{name}: {left} days left on {end}, accruals prorated to the end date").format(
            name=policy.name, left=plain(left), end=end.isoformat()
        )
        effects.append(Effect("balance_prorated", None, text))
    return effects


def _tell_requester(actor: Actor, request: LeaveRequest, what: str) -> None:
    recipient = request.employee.user or request.requested_by
    if recipient is None or recipient.pk == getattr(actor, "pk", None):
        return
    from apps.notifications.api import notify

    notify(
        recipient=recipient,
        actor=person(actor),
        title=f"Leave {what}",
        body=f"{request.start_date.isoformat()} to {request.end_date.isoformat()} ({request.days} days)",
    )
