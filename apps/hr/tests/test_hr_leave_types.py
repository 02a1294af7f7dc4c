"""Leave beyond annual leave through the real dispatcher: types (sick recorded without approval nor
balance, unpaid decided but not counted, time in lieu earned by an adjustment and spent as leave),
policies made and assigned to people, balance adjustments with their reason in the ledger, company
holidays skipped like public ones, who sees and adjusts whose balances, and the HR page."""

from datetime import date, timedelta
from decimal import Decimal

import pytest

from apps.catalogue.dispatch import ToolNotFound
from apps.catalogue.testing import assert_refused_without_its_permission, call, ok, refused, tools_of
from apps.hr.models import (
    CompanyHoliday,
    LeaveEntry,
    LeavePolicy,
    LeaveRequest,
    LeaveType,
    PolicyAssignment,
)
from apps.hr.tests.factories import EmployeeFactory, employee_of
from apps.hr.tests.samples import monday_ahead

NEW = {"listLeaveTypes", "adjustLeaveBalance", "manageLeavePolicy", "manageCompanyHolidays"}
SPECS = [spec for spec in tools_of("hr") if spec.name in NEW]
MODELS = (LeaveType, LeavePolicy, PolicyAssignment, LeaveRequest, LeaveEntry, CompanyHoliday)


def counts() -> dict[str, int]:
    return {model.__name__: model._default_manager.count() for model in MODELS}


def _days(answer, key):
    return Decimal(str(answer[key]))


def _span(start, days=0):
    return {"startDate": start.isoformat(), "endDate": (start + timedelta(days=days)).isoformat()}


def test_the_four_tools_are_declared():
    assert {spec.name for spec in SPECS} == NEW


@pytest.mark.parametrize("spec", SPECS, ids=lambda spec: spec.name)
def test_a_role_without_the_permission_cannot_call_it(acme, spec):
    assert_refused_without_its_permission(spec)


def test_the_standard_types_are_listed_and_a_policy_without_a_type_is_annual_leave(people):
    made = LeavePolicy.objects.create(name="Old style", annual_days=Decimal(20))

    answer = ok(people["owner"], "listLeaveTypes", {})

    codes = [item["code"] for item in answer["types"]]
    assert codes[:5] == ["annual", "sick", "parental", "unpaid", "toil"]
    assert made.leave_type.code == "annual"
    sick = next(item for item in answer["types"] if item["code"] == "sick")
    unpaid = next(item for item in answer["types"] if item["code"] == "unpaid")
    assert sick["needsApproval"] is False and sick["countsAgainstBalance"] is False
    assert unpaid["paid"] is False and unpaid["needsApproval"] is True


def test_sick_leave_is_recorded_without_approval_or_balance_and_unpaid_leave_is_decided(people):
    owner, admin = people["owner"], people["admin"]
    start = monday_ahead(weeks=7)
    employee = EmployeeFactory(actor=owner, start_date=date(start.year, 1, 1))
    annual_before = ok(owner, "getLeaveBalance", {"employeeId": employee.pk, "year": start.year})

    sick = ok(admin, "submitLeaveRequest", {"employeeId": employee.pk, "type": "sick", **_span(start, 2)})
    unpaid_span = _span(start + timedelta(weeks=1), 2)
    unpaid = ok(admin, "submitLeaveRequest", {"employeeId": employee.pk, "type": "unpaid", **unpaid_span})
    decided = ok(owner, "approveLeaveRequest", {"requestId": unpaid["id"]})
    annual_after = ok(owner, "getLeaveBalance", {"employeeId": employee.pk, "year": start.year})
    sick_balance = ok(
        owner, "getLeaveBalance", {"employeeId": employee.pk, "type": "sick", "year": start.year}
    )
    sick_only = ok(owner, "getLeaveRequests", {"status": "all", "employeeId": employee.pk, "type": "sick"})

    assert sick["status"] == "approved" and sick["policy"] == "Sick leave"
    assert decided["status"] == "approved" and unpaid["status"] == "pending"
    assert annual_after == annual_before  # neither touched annual leave
    assert _days(sick_balance, "takenThisYear") == 3
    assert [item["id"] for item in sick_only["items"]] == [sick["id"]]


def test_time_in_lieu_is_earned_by_an_adjustment_and_spent_as_leave(people):
    owner, admin = people["owner"], people["admin"]
    employee = EmployeeFactory(actor=owner)
    start = monday_ahead(weeks=8)
    before = counts()
    no_reason = refused(
        owner,
        "adjustLeaveBalance",
        {"employeeId": employee.pk, "days": "1.5", "reason": "  ", "type": "toil"},
    )
    assert "reason" in no_reason and counts() == before

    earned = ok(
        owner,
        "adjustLeaveBalance",
        {
            "employeeId": employee.pk,
            "days": "1.5",
            "reason": "worked the Saturday stock-take",
            "type": "toil",
            "effective": start.isoformat(),
        },
    )
    too_much = refused(
        admin, "submitLeaveRequest", {"employeeId": employee.pk, "type": "toil", **_span(start, 1)}
    )
    spent = ok(
        admin,
        "submitLeaveRequest",
        {"employeeId": employee.pk, "type": "toil", **_span(start), "endHalf": True},
    )
    ok(owner, "approveLeaveRequest", {"requestId": spent["id"]})
    left = ok(owner, "getLeaveBalance", {"employeeId": employee.pk, "type": "toil", "year": start.year})
    entry = LeaveEntry.objects.get(pk=earned["adjustment"]["id"])

    assert earned["adjustment"]["reason"] == "worked the Saturday stock-take"
    assert (
        earned["adjustment"]["by"]["email"] == people["owner"].email
        and earned["adjustment"]["type"] == "toil"
    )
    assert entry.kind == "adjustment" and entry.days == Decimal("1.5") and entry.created_by == owner
    assert "available" in too_much
    assert _days(left, "yearEndBalance") == 1 and left["policy"] == "Time in lieu"


def test_a_negative_adjustment_below_nothing_is_refused_and_one_within_is_in_the_ledger(people):
    owner = people["owner"]
    employee = EmployeeFactory(actor=owner)
    before = counts()

    below = refused(
        owner, "adjustLeaveBalance", {"employeeId": employee.pk, "days": "-400", "reason": "typo"}
    )
    zero = refused(owner, "adjustLeaveBalance", {"employeeId": employee.pk, "days": "0", "reason": "none"})
    assert counts() == before
    year = date.today().year
    start = ok(owner, "getLeaveBalance", {"employeeId": employee.pk, "year": year})
    taken = ok(
        owner,
        "adjustLeaveBalance",
        {"employeeId": employee.pk, "days": "-2", "reason": "paid out at leaving"},
    )

    assert "days" in below and "days" in zero
    assert _days(taken["balance"], "yearEndBalance") == _days(start, "yearEndBalance") - 2
    listed = ok(owner, "listLeaveTypes", {"employeeId": employee.pk})
    annual = next(item for item in listed["balances"] if item["type"] == "annual")
    assert [item["reason"] for item in annual["adjustments"]] == ["paid out at leaving"]


def test_a_policy_made_and_assigned_is_the_one_its_people_request_and_read(people):
    owner = people["owner"]
    year = monday_ahead(weeks=9).year
    # Joined this year: a policy's ledger runs from the start of the employment.
    senior = EmployeeFactory(actor=owner, start_date=date(year, 1, 1))
    other = EmployeeFactory(actor=owner, start_date=date(year, 1, 1))

    made = ok(
        owner,
        "manageLeavePolicy",
        {"action": "create", "type": "annual", "name": "Senior", "annualDays": "30", "carryOverCap": "10"},
    )
    assigned = ok(
        owner, "manageLeavePolicy", {"action": "assign", "policy": "Senior", "employeeIds": [senior.pk]}
    )
    theirs = ok(owner, "getLeaveBalance", {"employeeId": senior.pk, "year": year})
    default = ok(owner, "getLeaveBalance", {"employeeId": other.pk, "year": year})
    request = ok(owner, "submitLeaveRequest", {"employeeId": senior.pk, **_span(monday_ahead(weeks=9))})
    wrong_type = refused(
        owner, "getLeaveBalance", {"employeeId": senior.pk, "policy": "Senior", "type": "sick"}
    )

    senior_policy = next(item for item in made["type"]["policies"] if item["name"] == "Senior")
    assert _days(senior_policy, "annualDays") == 30 and senior_policy["isDefault"] is False
    assert [item["id"] for item in assigned["assigned"]] == [senior.pk]
    assert theirs["policy"] == "Senior" and _days(theirs, "yearEndBalance") == 30
    assert default["policy"] != "Senior"
    assert request["policy"] == "Senior"
    assert "not of sick" in wrong_type


def test_a_leave_type_is_changed_and_made(people):
    owner = people["owner"]
    changed = ok(owner, "manageLeavePolicy", {"action": "type", "type": "sick", "recordedOnly": False})
    made = ok(
        owner, "manageLeavePolicy", {"action": "type", "type": "study", "name": "Study leave", "paid": False}
    )
    employee = EmployeeFactory(actor=owner)
    request = ok(
        owner, "submitLeaveRequest", {"employeeId": employee.pk, "type": "sick", **_span(monday_ahead())}
    )

    assert changed["type"]["needsApproval"] is True and request["status"] == "pending"
    assert made["type"]["code"] == "study" and made["type"]["paid"] is False


def test_company_holidays_are_skipped_like_public_ones_for_their_location(people):
    owner, member = people["owner"], people["member"]
    start = monday_ahead(weeks=10)
    london = EmployeeFactory(actor=owner, location="London")
    leeds = EmployeeFactory(actor=owner, location="Leeds")

    everyone = ok(
        owner, "manageCompanyHolidays", {"action": "add", "date": start.isoformat(), "name": "Company day"}
    )
    only_leeds = ok(
        owner,
        "manageCompanyHolidays",
        {
            "action": "add",
            "date": (start + timedelta(days=1)).isoformat(),
            "name": "Leeds fair",
            "location": "leeds",
        },
    )
    twice = refused(
        owner, "manageCompanyHolidays", {"action": "add", "date": start.isoformat(), "name": "Again"}
    )
    with pytest.raises(ToolNotFound):  # a member's role does not hold hr.employees
        call(member, "manageCompanyHolidays", {"action": "add", "date": start.isoformat(), "name": "X"})
    in_london = ok(owner, "submitLeaveRequest", {"employeeId": london.pk, **_span(start, 2)})
    in_leeds = ok(owner, "submitLeaveRequest", {"employeeId": leeds.pk, **_span(start, 2)})
    removed = ok(
        owner, "manageCompanyHolidays", {"action": "remove", "holidayId": only_leeds["changed"]["id"]}
    )
    listed = ok(owner, "listLeaveTypes", {"employeeId": leeds.pk, "year": start.year})

    assert _days(in_london, "days") == 2 and _days(in_leeds, "days") == 1
    assert "already a company holiday" in twice
    assert [item["name"] for item in removed["items"] if item["date"] == start.isoformat()] == ["Company day"]
    assert everyone["changed"]["location"] == ""
    assert [item["name"] for item in listed["companyHolidays"]] == ["Company day"]


def test_a_company_holiday_added_or_removed_later_recounts_the_leave_that_covers_it(people):
    owner, admin = people["owner"], people["admin"]
    start = monday_ahead(weeks=11)
    # Employed from 1 January: no days carried over (they would be spent first, and expire).
    employee = EmployeeFactory(actor=owner, location="Leeds", start_date=date(start.year, 1, 1))
    elsewhere = EmployeeFactory(actor=owner, location="York")
    week = ok(admin, "submitLeaveRequest", {"employeeId": employee.pk, **_span(start, 4)})
    ok(owner, "approveLeaveRequest", {"requestId": week["id"]})
    one_day = ok(admin, "submitLeaveRequest", {"employeeId": employee.pk, **_span(start + timedelta(days=7))})
    theirs = ok(admin, "submitLeaveRequest", {"employeeId": elsewhere.pk, **_span(start, 4)})
    before = ok(owner, "getLeaveBalance", {"employeeId": employee.pk, "year": start.year})

    added = ok(
        owner,
        "manageCompanyHolidays",
        {
            "action": "add",
            "date": (start + timedelta(days=2)).isoformat(),
            "name": "Leeds fair",
            "location": "Leeds",
        },
    )
    closed = ok(
        owner,
        "manageCompanyHolidays",
        {"action": "add", "date": (start + timedelta(days=7)).isoformat(), "name": "Founders' day"},
    )
    after = ok(owner, "getLeaveBalance", {"employeeId": employee.pk, "year": start.year})
    removed = ok(owner, "manageCompanyHolidays", {"action": "remove", "holidayId": added["changed"]["id"]})
    last = ok(owner, "getLeaveBalance", {"employeeId": employee.pk, "year": start.year})

    assert LeaveRequest.objects.get(pk=week["id"]).days == 5
    assert [(e["kind"], e["id"]) for e in added["effects"]] == [("leave_recounted", week["id"])]
    assert "4 days (was 5)" in added["effects"][0]["text"]
    assert _days(after, "yearEndBalance") == _days(before, "yearEndBalance") + 1
    # A request left with no working day is refused, and says why.
    assert [(e["kind"], e["id"]) for e in closed["effects"]] == [("request_refused", one_day["id"])]
    assert LeaveRequest.objects.get(pk=one_day["id"]).status == LeaveRequest.Status.DENIED
    assert "company holiday" in LeaveRequest.objects.get(pk=one_day["id"]).decision_note
    # Another location's leave is not touched; removing the holiday counts the day again.
    assert LeaveRequest.objects.get(pk=theirs["id"]).days == 5
    assert [(e["kind"], e["id"]) for e in removed["effects"]] == [("leave_recounted", week["id"])]
    assert _days(last, "yearEndBalance") == _days(before, "yearEndBalance")


@pytest.mark.parametrize("role", ["member", "viewer"])
def test_people_see_their_own_balances_managers_their_reports_and_adjust_only_theirs(people, role):
    owner, person = people["owner"], people[role]
    boss = employee_of(person, actor=owner)
    report = EmployeeFactory(actor=owner, manager_id=boss.pk)
    someone = EmployeeFactory(actor=owner)
    ok(
        owner,
        "adjustLeaveBalance",
        {"employeeId": boss.pk, "days": "1", "reason": "first-aid course on a Sunday"},
    )
    ok(owner, "adjustLeaveBalance", {"employeeId": someone.pk, "days": "2", "reason": "someone's own reason"})

    mine = ok(person, "listLeaveTypes", {})
    granted = ok(
        person,
        "adjustLeaveBalance",
        {"employeeId": report.pk, "days": "0.5", "reason": "stayed late for the release", "type": "toil"},
    )
    reports = ok(person, "listLeaveTypes", {"employeeId": report.pk})
    before = counts()
    not_theirs = refused(person, "listLeaveTypes", {"employeeId": someone.pk})
    not_their_balance = refused(person, "getLeaveBalance", {"employeeId": someone.pk, "type": "toil"})
    own_adjustment = refused(
        person, "adjustLeaveBalance", {"employeeId": boss.pk, "days": "5", "reason": "me"}
    )
    others_adjustment = refused(
        person, "adjustLeaveBalance", {"employeeId": someone.pk, "days": "5", "reason": "x"}
    )
    assert counts() == before

    def reasons(answer):
        return {item["reason"] for balance in answer["balances"] for item in balance["adjustments"]}

    assert mine["employee"]["id"] == boss.pk and reasons(mine) == {"first-aid course on a Sunday"}
    assert reasons(reports) == {"stayed late for the release"}
    assert Decimal(str(granted["adjustment"]["days"])) == Decimal("0.5")
    assert "balance" in not_theirs and "balance" in not_their_balance
    assert "never their own" in own_adjustment and "line manager" in others_adjustment


def test_the_hr_page_shows_types_balances_adjustments_and_company_holidays(people, acme_client):
    owner, member = people["owner"], people["member"]
    own = employee_of(member, actor=owner)
    someone = EmployeeFactory(actor=owner, full_name="Ilse Vandermeer")
    ok(
        owner,
        "adjustLeaveBalance",
        {"employeeId": own.pk, "days": "1", "reason": "covered the helpdesk on Easter"},
    )
    ok(
        owner,
        "adjustLeaveBalance",
        {"employeeId": someone.pk, "days": "1", "reason": "private matter of Ilse"},
    )
    day = monday_ahead(weeks=12)
    ok(owner, "manageCompanyHolidays", {"action": "add", "date": day.isoformat(), "name": "Founders day"})

    acme_client.force_login(owner)
    hr_page = acme_client.get("/settings/hr/").content.decode()
    employee_page = acme_client.get(f"/settings/hr/employees/{someone.pk}/").content.decode()
    acme_client.force_login(member)
    member_page = acme_client.get("/settings/hr/").content.decode()

    for text in ("Time in lieu", "Sick leave", "Founders day", "private matter of Ilse"):
        assert text in hr_page, text
    assert "private matter of Ilse" in employee_page and "Time in lieu" in employee_page
    assert "covered the helpdesk on Easter" in member_page and "private matter of Ilse" not in member_page
    assert "Founders day" in member_page
