"""The HR tools of employees, leave, time and onboarding through the real dispatcher: per tool a
refusal for a role without its permission and a bad input that names the problem and writes
nothing; then the area's rules: restricted fields, the leave ledger (a part-time joiner's
accrual, public holidays, half days, overlap, approvers, cancellation, carry-over and expiry,
the calendar), the time clock (pairs, DST, audit, rest and weekly warnings) and onboarding."""

from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from apps.catalogue.dispatch import ToolNotFound
from apps.catalogue.testing import (
    assert_refused_without_its_permission,
    call,
    confirmed,
    ok,
    refused,
    tools_of,
)
from apps.core.errors import ValidationFailed
from apps.hr.models import (
    Employee,
    LeaveEntry,
    LeavePolicy,
    LeaveRequest,
    OnboardingChecklist,
    OnboardingItem,
    RestrictedDetails,
    TimeEntry,
    TimeEntryEdit,
)
from apps.hr.services import employees, leave, onboarding
from apps.hr.services import time as clock
from apps.hr.tests.factories import EmployeeFactory, employee_of
from apps.hr.tests.samples import monday_ahead

MINE = {
    "createEmployee",
    "getEmployee",
    "updateEmployee",
    "listEmployees",
    "searchEmployees",
    "examineEmployee",
    "openEmployee",
    "openHumanResources",
    "getHrDashboard",
    "inviteEmployeeToTeam",
    "submitLeaveRequest",
    "approveLeaveRequest",
    "denyLeaveRequest",
    "getLeaveRequests",
    "getLeaveBalance",
    "clockIn",
    "clockOut",
    "getTimeEntries",
    "startOnboarding",
    "getOnboardingChecklist",
    "toggleOnboardingItem",
}
SPECS = [spec for spec in tools_of("hr") if spec.name in MINE]
CONFIRM = {"capabilities": {"elicitation": {}}, "elicit": confirmed}
MODELS = (Employee, RestrictedDetails, LeaveRequest, LeaveEntry, TimeEntry, TimeEntryEdit)
MODELS += (OnboardingChecklist, OnboardingItem)


def counts() -> dict[str, int]:
    return {model.__name__: model._default_manager.count() for model in MODELS}


def test_the_area_has_these_21_tools_with_their_markers():
    assert {spec.name for spec in SPECS} == MINE
    high = {spec.name for spec in SPECS if "HIGH RISK" in spec.description}
    assert high == {"inviteEmployeeToTeam"}


@pytest.mark.parametrize("spec", SPECS, ids=lambda spec: spec.name)
def test_a_role_without_the_permission_cannot_call_it(acme, spec):
    assert_refused_without_its_permission(spec)


# --- bad input: a clear error naming the problem, nothing written ----------------------------------


@pytest.fixture
def world(people):
    owner = people["owner"]
    employee = EmployeeFactory(actor=owner, email="bad.input@example.org")
    other = EmployeeFactory(actor=owner)
    start = monday_ahead()
    pending = leave.request_submit(
        actor=owner, employee=other, policy=leave.policy_default(), start=start, end=start
    )
    return {"owner": owner, "employee": employee, "other": other, "pending": pending, "start": start}


def _day(world, days=0):
    return (world["start"] + timedelta(days=days)).isoformat()


BAD = [
    (
        "createEmployee",
        lambda w: {"fullName": "X", "startDate": "2030-01-01", "country": "XX"},
        "not a country",
    ),
    ("getEmployee", lambda w: {"employeeId": 987654}, "not found"),
    (
        "updateEmployee",
        lambda w: {"employeeId": w["employee"].pk, "changes": {"endDate": "2019-01-01"}},
        "on or after the start date",
    ),
    ("listEmployees", lambda w: {"status": "retired"}, "status"),
    ("searchEmployees", lambda w: {"query": ""}, "query"),
    ("examineEmployee", lambda w: {"employeeId": 987654}, "not found"),
    ("openEmployee", lambda w: {"employeeId": 987654}, "not found"),
    ("openHumanResources", lambda w: {"employeeId": 1}, "employeeId"),
    ("getHrDashboard", lambda w: {"when": "today"}, "when"),
    (
        "inviteEmployeeToTeam",
        lambda w: {"employeeId": w["employee"].pk, "role": "wizard"},
        "no role 'wizard'",
    ),
    (
        "submitLeaveRequest",
        lambda w: {"employeeId": w["other"].pk, "startDate": _day(w), "endDate": _day(w, 1)},
        "overlaps leave request",
    ),
    ("approveLeaveRequest", lambda w: {"requestId": w["pending"].pk}, "never the requester"),
    ("denyLeaveRequest", lambda w: {"requestId": 987654, "reason": "no"}, "not found"),
    ("getLeaveRequests", lambda w: {"status": "maybe"}, "status"),
    (
        "getLeaveBalance",
        lambda w: {"employeeId": w["employee"].pk, "policy": "Sabbatical"},
        "no leave policy",
    ),
    ("clockIn", lambda w: {"employeeId": w["employee"].pk, "at": "2099-01-01T09:00:00"}, "in the future"),
    ("clockOut", lambda w: {"employeeId": w["employee"].pk}, "not clocked in"),
    (
        "getTimeEntries",
        lambda w: {"employeeId": w["employee"].pk, "start": "2030-01-01", "end": "2029-01-01"},
        "end",
    ),
    (
        "startOnboarding",
        lambda w: {"employeeId": w["employee"].pk, "templateId": 987654},
        "no onboarding template",
    ),
    ("getOnboardingChecklist", lambda w: {"employeeId": w["employee"].pk}, "no onboarding checklist"),
    ("toggleOnboardingItem", lambda w: {"itemId": 987654}, "no onboarding item"),
]


def test_every_tool_has_a_bad_input_case():
    assert sorted(name for name, _build, _problem in BAD) == sorted(MINE)


@pytest.mark.parametrize(("name", "build", "problem"), BAD, ids=[name for name, _b, _p in BAD])
def test_bad_input_is_a_tool_error_naming_the_problem_and_writes_nothing(world, name, build, problem):
    arguments = build(world)
    before = counts()

    message = refused(world["owner"], name, arguments, **CONFIRM)

    assert problem.lower() in message.lower(), message
    assert counts() == before


# --- employees and restricted fields --------------------------------------------------------------


def test_pay_national_id_and_health_reach_only_hr(people, acme_client):
    owner, member = people["owner"], people["member"]
    made = ok(
        owner,
        "createEmployee",
        {
            "fullName": "Ines Varga",
            "startDate": "2024-02-01",
            "email": "ines.varga@example.org",
            "country": "DE",
            "region": "BY",
        },
    )
    ok(
        owner,
        "updateEmployee",
        {
            "employeeId": made["id"],
            "changes": {
                "payAmount": 73500,
                "payCurrency": "EUR",
                "nationalId": "DE-4471-SECRET",
                "healthNotes": "asthma",
            },
        },
    )

    as_hr = ok(owner, "getEmployee", {"employeeId": made["id"]})
    as_member = ok(member, "getEmployee", {"employeeId": made["id"]})
    examined = ok(member, "examineEmployee", {"employeeId": made["id"]})
    with pytest.raises(ToolNotFound):
        call(member, "updateEmployee", {"employeeId": made["id"], "changes": {"payAmount": 1}})
    acme_client.force_login(member)
    page = acme_client.get(f"/settings/hr/employees/{made['id']}/").content.decode()
    acme_client.force_login(owner)
    hr_page = acme_client.get(f"/settings/hr/employees/{made['id']}/").content.decode()

    assert as_hr["restricted"]["nationalId"] == "DE-4471-SECRET"
    assert Decimal(str(as_hr["restricted"]["payAmount"])) == Decimal("73500")
    assert as_member["restricted"] is None and examined["employee"]["restricted"] is None
    assert "DE-4471-SECRET" not in str(examined) and examined["balance"] is None
    assert "DE-4471-SECRET" not in page and "asthma" not in page and "Ines Varga" in page
    assert "DE-4471-SECRET" in hr_page


def test_health_notes_beyond_their_limit_are_refused_never_cut(people):
    owner = people["owner"]
    employee = EmployeeFactory(actor=owner)
    ok(owner, "updateEmployee", {"employeeId": employee.pk, "changes": {"healthNotes": "asthma"}})

    message = refused(
        owner,
        "updateEmployee",
        {"employeeId": employee.pk, "changes": {"healthNotes": "x" * 2001, "jobTitle": "Lead"}},
    )

    assert "healthNotes" in message and "2000" in message, message
    employee.refresh_from_db()
    assert RestrictedDetails.objects.get(employee=employee).health_notes == "asthma"
    assert employee.job_title != "Lead"


def test_an_employee_reports_to_a_manager_never_in_a_loop(people):
    owner = people["owner"]
    boss = EmployeeFactory(actor=owner)
    report = EmployeeFactory(actor=owner, manager_id=boss.pk)

    message = refused(owner, "updateEmployee", {"employeeId": boss.pk, "changes": {"managerId": report.pk}})

    assert "below them" in message
    assert ok(owner, "examineEmployee", {"employeeId": boss.pk})["reports"] == [
        {"id": report.pk, "name": report.full_name}
    ]


def test_inviting_an_employee_creates_the_person_once_confirmed(people):
    owner = people["owner"]
    employee = EmployeeFactory(actor=owner, email="zora.invite@example.org")

    unconfirmed = call(owner, "inviteEmployeeToTeam", {"employeeId": employee.pk})
    person = ok(owner, "inviteEmployeeToTeam", {"employeeId": employee.pk, "role": "viewer"}, **CONFIRM)
    again = refused(owner, "inviteEmployeeToTeam", {"employeeId": employee.pk}, **CONFIRM)

    assert unconfirmed["isError"] is True
    employee.refresh_from_db()
    assert person["email"] == "zora.invite@example.org" and employee.user.role.key == "viewer"
    assert "already" in again


# --- leave --------------------------------------------------------------------------------------------


def test_a_part_time_joiners_holiday_aware_leave_is_approved_into_the_calendar_then_cancelled(people):
    from apps.calendars.models import Event as CalendarEvent

    owner, admin = people["owner"], people["admin"]
    joiner = ok(
        owner,
        "createEmployee",
        {"fullName": "Pia Lund", "startDate": "2031-03-15", "country": "GB", "region": "ENG", "fte": 0.8},
    )
    ok(owner, "updateEmployee", {"employeeId": joiner["id"], "changes": {"workingDays": [0, 1, 2, 3]}})
    balance = ok(owner, "getLeaveBalance", {"employeeId": joiner["id"], "year": 2031})
    # 25 days a year at 0.8 FTE, accrued monthly from 15 March: 17/31 of March, then 9 months,
    # rounded once for the year (the months' own roundings add up to it).
    expected = Decimal("15.914")
    assert Decimal(str(balance["yearEndBalance"])) == expected

    # Monday 14 April 2031 is Easter Monday; she works Monday to Thursday: Tue, Wed, Thu count.
    request = ok(
        admin,
        "submitLeaveRequest",
        {"employeeId": joiner["id"], "startDate": "2031-04-14", "endDate": "2031-04-18"},
    )
    assert Decimal(str(request["days"])) == 3
    approved = ok(owner, "approveLeaveRequest", {"requestId": request["id"], "note": "enjoy"})
    stored = LeaveRequest.objects.get(pk=request["id"])
    event = CalendarEvent.objects.get(pk=stored.calendar_event_id)
    after = ok(owner, "getLeaveBalance", {"employeeId": joiner["id"], "year": 2031})

    assert approved["status"] == "approved" and event.all_day and "Pia Lund" in event.title
    assert Decimal(str(after["takenThisYear"])) == 3
    assert Decimal(str(after["yearEndBalance"])) == expected - 3

    cancelled = ok(owner, "denyLeaveRequest", {"requestId": request["id"], "reason": "plans changed"})
    returned = ok(owner, "getLeaveBalance", {"employeeId": joiner["id"], "year": 2031})
    event.refresh_from_db()

    assert cancelled["status"] == "cancelled"
    assert Decimal(str(returned["takenThisYear"])) == 0
    assert Decimal(str(returned["yearEndBalance"])) == expected
    assert event.deleted_at is not None and event.status == "cancelled"
    kinds = list(LeaveEntry.objects.filter(request_id=request["id"]).values_list("kind", "days"))
    assert sorted(kinds) == [("taken", Decimal("-3.000")), ("taken", Decimal("3.000"))]


def test_leave_over_the_balance_in_the_past_or_on_no_working_day_is_refused(people):
    owner = people["owner"]
    employee = EmployeeFactory(actor=owner, start_date=date(2031, 11, 1))
    base = {"employeeId": employee.pk}

    over = refused(owner, "submitLeaveRequest", {**base, "startDate": "2031-12-01", "endDate": "2031-12-19"})
    weekend = refused(
        owner, "submitLeaveRequest", {**base, "startDate": "2031-12-06", "endDate": "2031-12-07"}
    )
    past = timezone.localdate() - timedelta(days=40)
    old = EmployeeFactory(actor=owner)
    too_old = refused(
        owner,
        "submitLeaveRequest",
        {"employeeId": old.pk, "startDate": past.isoformat(), "endDate": past.isoformat()},
    )
    both_halves = refused(
        owner,
        "submitLeaveRequest",
        {**base, "startDate": "2031-12-02", "endDate": "2031-12-02", "startHalf": True, "endHalf": True},
    )
    half = ok(
        owner,
        "submitLeaveRequest",
        {**base, "startDate": "2031-12-02", "endDate": "2031-12-02", "endHalf": True},
    )

    assert "available" in over and "no working days" in weekend and "days ago" in too_old
    assert "either the morning" in both_halves
    assert Decimal(str(half["days"])) == Decimal("0.5")


def test_a_member_requests_their_own_leave_and_only_sees_their_own(people):
    member, owner = people["member"], people["owner"]
    start = monday_ahead(weeks=9)
    mine = ok(member, "submitLeaveRequest", {"startDate": start.isoformat(), "endDate": start.isoformat()})
    someone = EmployeeFactory(actor=owner)

    seen = ok(member, "getLeaveRequests", {"status": "all"})
    not_for_others = refused(
        member,
        "submitLeaveRequest",
        {"employeeId": someone.pk, "startDate": start.isoformat(), "endDate": start.isoformat()},
    )
    own_approval = refused(member, "approveLeaveRequest", {"requestId": mine["id"]})

    assert {item["employee"]["id"] for item in seen["items"]} == {mine["employee"]["id"]}
    assert "yourself" in not_for_others and "line manager" in own_approval


def test_ending_employment_reconciles_leave_balance_and_reports(people):
    from apps.calendars.models import Event as CalendarEvent

    owner, admin = people["owner"], people["admin"]
    leaver = EmployeeFactory(actor=owner, start_date=date(2030, 1, 1))
    report = EmployeeFactory(actor=owner, manager_id=leaver.pk)
    policy = leave.policy_default()

    def asked(start, end):
        return leave.request_submit(actor=admin, employee=leaver, policy=policy, start=start, end=end)

    # Monday 3 March 2031 to Friday 7; she leaves on Wednesday 5 March.
    straddling = leave.request_approve(actor=owner, request=asked(date(2031, 3, 3), date(2031, 3, 7)))
    after = leave.request_approve(actor=owner, request=asked(date(2031, 3, 10), date(2031, 3, 11)))
    pending_after = asked(date(2031, 3, 17), date(2031, 3, 17))
    pending_before = asked(date(2031, 2, 24), date(2031, 2, 24))

    answer = ok(owner, "updateEmployee", {"employeeId": leaver.pk, "changes": {"endDate": "2031-03-05"}})
    effects = {(item["kind"], item["id"]) for item in answer["effects"]}
    after.refresh_from_db()
    pending_after.refresh_from_db()
    pending_before.refresh_from_db()
    straddling.refresh_from_db()
    leaver.refresh_from_db()
    accrued = LeaveEntry.objects.filter(employee=leaver, kind="accrual", effective__year=2031).values_list(
        "days", flat=True
    )
    balance = leave.balance_of(employee=leaver, policy=policy, year=2031)

    assert after.status == "cancelled" and "outside the employment" in after.decision_note
    assert CalendarEvent.objects.get(pk=after.calendar_event_id).status == "cancelled"
    assert pending_after.status == "denied" and "2031-03-05" in pending_after.decision_note
    assert pending_before.status == "pending" and straddling.status == "approved"
    assert ("leave_cancelled", after.pk) in effects and ("request_refused", pending_after.pk) in effects
    assert ("leave_to_shorten", straddling.pk) in effects
    assert ("report_needs_manager", report.pk) in effects
    # January, February and 5/31 of March of 25 days a year.
    assert sum(accrued) == Decimal("4.503")
    shown = next(item for item in answer["effects"] if item["kind"] == "balance_prorated")
    assert str(balance.year_end_balance.normalize()) in shown["text"]
    assert answer["endDate"] == "2031-03-05"


@pytest.mark.parametrize("role", ["member", "viewer"])
def test_a_line_manager_sees_and_decides_their_reports_leave_whatever_their_role(people, role):
    owner, manager, bystander = (
        people["owner"],
        people[role],
        people["admin" if role == "viewer" else "viewer"],
    )
    boss = employee_of(manager, actor=owner)
    report = EmployeeFactory(actor=owner, manager_id=boss.pk)
    someone = EmployeeFactory(actor=owner)
    start = monday_ahead(weeks=11)
    day = {"startDate": start.isoformat(), "endDate": start.isoformat()}
    first = ok(owner, "submitLeaveRequest", {"employeeId": report.pk, **day})
    second = ok(
        owner,
        "submitLeaveRequest",
        {
            "employeeId": report.pk,
            **day,
            "startDate": (start + timedelta(days=1)).isoformat(),
            "endDate": (start + timedelta(days=1)).isoformat(),
        },
    )
    theirs = ok(owner, "submitLeaveRequest", {"employeeId": someone.pk, **day})

    seen = ok(manager, "getLeaveRequests", {"status": "all", "limit": 100})
    balance = ok(manager, "getLeaveBalance", {"employeeId": report.pk})
    not_theirs = refused(manager, "getLeaveBalance", {"employeeId": someone.pk})
    approved = ok(manager, "approveLeaveRequest", {"requestId": first["id"]})
    denied = ok(manager, "denyLeaveRequest", {"requestId": second["id"], "reason": "busy week"})
    beyond = refused(manager, "approveLeaveRequest", {"requestId": theirs["id"]})
    unseen = ok(bystander, "getLeaveRequests", {"status": "all", "limit": 100}) if role == "member" else None

    ids = {item["id"] for item in seen["items"]}
    assert {first["id"], second["id"]} <= ids and theirs["id"] not in ids
    assert Decimal(str(balance["yearEndBalance"])) > 0 and "balance" in not_theirs
    assert approved["status"] == "approved" and denied["status"] == "denied"
    assert str(theirs["id"]) in beyond
    if unseen is not None:  # the viewer, managing nobody, sees none of them
        assert not {first["id"], second["id"]} & {item["id"] for item in unseen["items"]}


@pytest.mark.parametrize("role", ["member", "viewer"])
def test_every_employee_requests_their_own_leave_whatever_their_role(people, role):
    person = people[role]
    employee_of(person, actor=people["owner"])
    start = monday_ahead(weeks=13)
    mine = ok(person, "submitLeaveRequest", {"startDate": start.isoformat(), "endDate": start.isoformat()})
    someone = EmployeeFactory(actor=people["owner"])
    for_another = refused(
        person,
        "submitLeaveRequest",
        {"employeeId": someone.pk, "startDate": start.isoformat(), "endDate": start.isoformat()},
    )

    assert mine["status"] == "pending" and "yourself" in for_another


@pytest.mark.parametrize("role", ["member", "viewer"])
def test_an_employee_sees_their_own_pay_and_identity_never_anothers(people, acme_client, role):
    owner, person = people["owner"], people[role]
    own = employee_of(person, actor=owner)
    other = EmployeeFactory(actor=owner)
    for employee, secret in ((own, "OWN-ID-1"), (other, "OTHER-ID-2")):
        fields = {"pay_amount": 51000, "pay_currency": "GBP", "national_id": secret, "health_notes": "asthma"}
        employees.restricted_update(actor=owner, employee=employee, fields=fields)

    mine = ok(person, "getEmployee", {"employeeId": own.pk})
    theirs = ok(person, "getEmployee", {"employeeId": other.pk})
    acme_client.force_login(person)
    page = acme_client.get(f"/settings/hr/employees/{own.pk}/").content.decode()
    other_page = acme_client.get(f"/settings/hr/employees/{other.pk}/").content.decode()

    assert mine["restricted"]["nationalId"] == "OWN-ID-1"
    assert Decimal(str(mine["restricted"]["payAmount"])) == Decimal("51000")
    assert mine["restricted"]["healthNotes"] == ""  # health stays HR's
    assert theirs["restricted"] is None
    assert "OWN-ID-1" in page and "asthma" not in page and "OTHER-ID-2" not in other_page


def test_monthly_accrual_adds_up_to_the_entitlement_over_a_year(acme, people):
    policy = LeavePolicy.objects.create(name="Holiday monthly", annual_days=Decimal(25), accrual="monthly")
    employee = EmployeeFactory(actor=people["owner"], start_date=date(2030, 1, 1))
    leave.ledger_ensure(employee=employee, policy=policy, through=date(2030, 12, 31))
    months = [e.days for e in LeaveEntry.objects.filter(employee=employee, policy=policy, kind="accrual")]

    assert len(months) == 12 and sum(months) == Decimal(25)
    assert set(months) == {Decimal("2.083"), Decimal("2.084")}


def test_unused_days_carry_over_up_to_the_cap_and_expire(acme, people):
    owner = people["owner"]
    policy = LeavePolicy.objects.create(
        name="Holiday 2030s",
        annual_days=Decimal(24),
        accrual="yearly",
        carry_over_cap=Decimal(5),
        carry_over_expiry_months=3,
    )
    employee = EmployeeFactory(actor=owner, start_date=date(2030, 1, 1))
    leave.ledger_ensure(employee=employee, policy=policy, through=date(2031, 4, 1))
    entries = {
        (e.kind, e.effective): e.days for e in LeaveEntry.objects.filter(employee=employee, policy=policy)
    }

    assert entries[("accrual", date(2030, 1, 1))] == 24
    assert entries[("carry_over", date(2030, 12, 31))] == -24
    assert entries[("carry_over", date(2031, 1, 1))] == 5
    assert entries[("expiry", date(2031, 4, 1))] == -5
    assert leave.balance_on(employee, policy, date(2031, 4, 1)) == 24


# --- time ---------------------------------------------------------------------------------------------


def test_the_time_clock_pairs_never_overlap_and_corrections_are_audited(people):
    owner = people["owner"]
    employee = EmployeeFactory(actor=owner, time_zone="Europe/Berlin")
    base = {"employeeId": employee.pk}
    yesterday = timezone.localdate() - timedelta(days=1)

    no_reason = refused(owner, "clockIn", {**base, "at": f"{yesterday.isoformat()}T08:00:00"})
    first = ok(owner, "clockIn", {**base, "at": f"{yesterday.isoformat()}T08:00:00", "reason": "forgot"})
    twice = refused(owner, "clockIn", base)
    out = ok(
        owner,
        "clockOut",
        {**base, "at": f"{yesterday.isoformat()}T16:30:00", "breakMinutes": 30, "reason": "forgot"},
    )
    inside = refused(owner, "clockIn", {**base, "at": f"{yesterday.isoformat()}T12:00:00", "reason": "x"})
    again = ok(owner, "clockIn", {**base, "at": f"{yesterday.isoformat()}T20:00:00", "reason": "late shift"})
    sheet = ok(
        owner, "getTimeEntries", {**base, "start": yesterday.isoformat(), "end": yesterday.isoformat()}
    )

    assert "reason" in no_reason and "already clocked in" in twice and "overlaps" in inside
    assert first["entry"]["source"] == "manual" and out["entry"]["workedMinutes"] == 480
    assert any("rest" in warning for warning in again["warnings"])
    assert sheet["workedMinutes"] == 480 and all(entry["edited"] for entry in sheet["entries"])
    assert list(
        TimeEntryEdit.objects.filter(entry_id=first["entry"]["id"]).values_list("field", "reason")
    ) == [
        ("clock_in", "forgot"),
        ("clock_out", "forgot"),
    ]


def test_clocking_out_in_the_first_minute_says_why_it_cannot(people):
    owner = people["owner"]
    employee = EmployeeFactory(actor=owner, time_zone="Europe/Berlin")
    ok(owner, "clockIn", {"employeeId": employee.pk})

    message = refused(owner, "clockOut", {"employeeId": employee.pk})

    assert "less than a minute" in message and "breakMinutes" not in message, message
    assert TimeEntry.objects.get(employee=employee).clock_out is None


def test_clock_times_are_daylight_saving_safe(people):
    owner = people["owner"]
    employee = EmployeeFactory(actor=owner, time_zone="Europe/Berlin")

    with pytest.raises(ValidationFailed) as skipped:
        clock.instant(datetime(2026, 3, 29, 2, 30), "Europe/Berlin", field="at")
    with pytest.raises(ValidationFailed) as repeated:
        clock.instant(datetime(2025, 10, 26, 2, 30), "Europe/Berlin", field="at")
    # 25 October 2025, 22:00 to 26 October 06:00 in Berlin spans the change: 9 hours, not 8.
    entry, _warnings = clock.clock_in(
        actor=owner, employee=employee, at=datetime(2025, 10, 25, 22, 0), reason="night shift"
    )
    entry, _warnings = clock.clock_out(
        actor=owner, employee=employee, at=datetime(2025, 10, 26, 6, 0), reason="night shift"
    )

    assert "does not exist" in str(skipped.value) and "happens twice" in str(repeated.value)
    assert entry.worked_minutes == 9 * 60
    assert entry.clock_in == datetime(2025, 10, 25, 20, 0, tzinfo=UTC)


def test_a_week_over_48_hours_is_warned(people):
    owner = people["owner"]
    employee = EmployeeFactory(actor=owner, time_zone="UTC")
    monday = date(2025, 3, 3)
    for offset in range(5):
        day = monday + timedelta(days=offset)
        clock.clock_in(
            actor=owner, employee=employee, at=datetime(day.year, day.month, day.day, 7), reason="log"
        )
        entry, warnings = clock.clock_out(
            actor=owner, employee=employee, at=datetime(day.year, day.month, day.day, 18), reason="log"
        )

    assert entry.worked_minutes == 11 * 60
    assert warnings == ["55.0 h worked in the week of 2025-03-03 (48 h weekly limit)"]


def test_a_member_clocks_for_themselves_only(people):
    member, owner = people["member"], people["owner"]
    someone = EmployeeFactory(actor=owner)

    mine = ok(member, "clockIn", {})
    others = refused(member, "clockIn", {"employeeId": someone.pk})
    sheet = refused(member, "getTimeEntries", {"employeeId": someone.pk})

    assert mine["entry"]["clockOut"] is None
    assert "yourself" in others and "own" in sheet


# --- onboarding -------------------------------------------------------------------------------------


def test_onboarding_items_are_ticked_by_their_owners_and_overdue_ones_notified(people):
    from apps.notifications.models import Notification

    owner, member = people["owner"], people["member"]
    manager = Employee.objects.get(user=member)
    hire = EmployeeFactory(
        actor=owner, start_date=timezone.localdate() - timedelta(days=10), manager_id=manager.pk
    )
    checklist = ok(owner, "startOnboarding", {"employeeId": hire.pk})
    twice = refused(owner, "startOnboarding", {"employeeId": hire.pk})
    by_manager = next(
        item for item in checklist["items"] if item["owner"] and item["owner"]["id"] == member.pk
    )
    not_theirs = next(
        item for item in checklist["items"] if not item["owner"] or item["owner"]["id"] != member.pk
    )

    ticked = ok(member, "toggleOnboardingItem", {"itemId": by_manager["id"]})
    refusal = refused(member, "toggleOnboardingItem", {"itemId": not_theirs["id"]})
    told = onboarding.overdue_notify()
    told_again = onboarding.overdue_notify()
    seen = ok(owner, "getOnboardingChecklist", {"employeeId": hire.pk})

    assert "already onboarding" in twice and ticked["done"] is True and "owner" in refusal
    assert told >= 1 and told_again == 0
    overdue = [i for i in seen["items"] if i["overdue"]]
    assert overdue and all(not i["done"] for i in overdue)
    assert Notification.objects.filter(recipient=owner, title__startswith="Onboarding item overdue").exists()
    assert seen["done"] == 1 and seen["total"] == len(onboarding.STANDARD)


def test_the_dashboard_counts_what_needs_attention(people):
    owner = people["owner"]
    EmployeeFactory(actor=owner, start_date=timezone.localdate() + timedelta(days=3))

    board = ok(owner, "getHrDashboard")

    assert board["headcount"] >= 4 and board["joining"] and board["pendingLeave"] >= 1
    assert board["clockedIn"] is not None
    assert ok(people["viewer"], "getHrDashboard")["clockedIn"] is None
