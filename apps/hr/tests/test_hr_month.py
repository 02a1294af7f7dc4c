"""What a month of HR found: leave asked for decades out (the balance accrued year by year up to
it), sick leave named on everyone's calendar, a decision's reason that no store keeps, a request
its employee could not withdraw, and a wrong employee answered with an empty list."""

from apps.calendars.models import Event as CalendarEvent
from apps.catalogue.testing import ok, refused
from apps.hr.models import LeaveEntry, LeaveRequest
from apps.hr.tests.factories import employee_of
from apps.hr.tests.samples import monday_ahead


def _leave(user, **more):  # type: ignore[no-untyped-def]
    day = monday_ahead()
    return ok(user, "submitLeaveRequest", {"startDate": day.isoformat(), "endDate": day.isoformat(), **more})


def test_leave_and_employment_far_out_are_refused_before_any_ledger_is_written(people):
    owner, member = people["owner"], people["member"]
    mine = employee_of(member, actor=owner)
    before = LeaveEntry.objects.filter(employee=mine).count()
    said = refused(member, "submitLeaveRequest", {"startDate": "2230-01-07", "endDate": "2230-01-07"})
    assert said.startswith("`startDate`: ") and "ten years" in said
    assert LeaveEntry.objects.filter(employee=mine).count() == before
    for start in ("1000-01-01", "1949-12-31"):
        said = refused(owner, "createEmployee", {"fullName": "Ancient", "startDate": start})
        assert said.startswith("`startDate`: ") and "1950-01-01" in said
    said = refused(owner, "updateEmployee", {"employeeId": mine.pk, "changes": {"endDate": "2999-12-31"}})
    assert said.startswith("`endDate`: ") and "2100-12-31" in said


def test_sick_leave_is_on_the_calendar_as_leave_only(people):
    member = people["member"]
    employee_of(member, actor=people["owner"])
    made = _leave(member, type="sick", note="gastroenteritis")
    request = LeaveRequest.objects.get(pk=made["id"])
    assert request.status == "approved"  # sick leave is recorded, not asked for
    event = CalendarEvent.objects.get(pk=request.calendar_event_id)
    # What everyone who sees the workspace's Leave calendar reads: no kind of leave, no note.
    assert "on leave" in event.title and event.description == "1 working day of leave"
    assert "sick" not in f"{event.title} {event.description}".lower()


def test_an_employee_withdraws_their_own_pending_request_and_a_reason_is_checked(people, acme_client):
    owner, member, admin = people["owner"], people["member"], people["admin"]
    employee_of(member, actor=owner)
    made = _leave(member)
    withdrawn = ok(member, "denyLeaveRequest", {"requestId": made["id"], "reason": "changed my mind"})
    assert withdrawn["status"] == "cancelled"
    # Approved leave is cancelled by HR or the manager, never by its employee alone.
    other = _leave(member, startDate=monday_ahead(7).isoformat(), endDate=monday_ahead(7).isoformat())
    ok(owner, "approveLeaveRequest", {"requestId": other["id"]})
    assert "decide" in refused(member, "denyLeaveRequest", {"requestId": other["id"], "reason": "no"})
    # A reason no store keeps, from the page, is refused by its field; nothing changes.
    third = _leave(member, startDate=monday_ahead(9).isoformat(), endDate=monday_ahead(9).isoformat())
    acme_client.force_login(admin)
    answer = acme_client.post(
        f"/settings/hr/leave/{third['id']}/decide/", {"decision": "deny", "reason": "a\x00b"}
    )
    assert answer.status_code == 302
    assert LeaveRequest.objects.get(pk=third["id"]).status == "pending"
    answer = acme_client.post(
        f"/settings/hr/leave/{third['id']}/decide/", {"decision": "deny", "reason": "x" * 501}
    )
    assert LeaveRequest.objects.get(pk=third["id"]).status == "pending"


def test_a_wrong_employee_is_not_found_rather_than_an_empty_list(people):
    assert "not found" in refused(people["owner"], "getLeaveRequests", {"employeeId": 987_654})
    mine = employee_of(people["member"], actor=people["owner"])
    listed = ok(people["owner"], "getLeaveRequests", {"employeeId": mine.pk, "status": "all"})["items"]
    assert {item["employee"]["id"] for item in listed} <= {mine.pk}


def test_a_reviewer_must_be_able_to_take_part_in_reviews(people):
    from apps.hr.tests.factories import EmployeeFactory

    employee = EmployeeFactory(actor=people["owner"])
    base = {"employeeId": employee.pk, "cycle": "H1 reviews", "managerEmail": "admin@acme.example"}

    for given in ({"managerEmail": "viewer@acme.example"}, {"peerEmails": ["viewer@acme.example"]}):
        message = refused(people["owner"], "createReview", {**base, **given})
        assert "viewer@acme.example cannot be given this" in message
    assert ok(people["owner"], "createReview", {**base, "peerEmails": ["member@acme.example"]})["id"]
