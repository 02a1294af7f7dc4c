"""The HR page: HR decides leave there (never their own), a line manager their reports'; a
member sees only their own leave and time and no decision buttons on others'."""

from apps.hr.models import Employee, LeaveRequest
from apps.hr.services import leave
from apps.hr.tests.factories import EmployeeFactory
from apps.hr.tests.samples import monday_ahead


def test_hr_approves_and_denies_leave_on_the_page_and_a_member_sees_their_own(people, acme_client):
    owner, admin, member = people["owner"], people["admin"], people["member"]
    someone = EmployeeFactory(actor=owner, full_name="Teodor Brandt")
    start = monday_ahead(weeks=11)
    first = leave.request_submit(
        actor=admin, employee=someone, policy=leave.policy_default(), start=start, end=start
    )
    later = monday_ahead(weeks=13)
    second = leave.request_submit(
        actor=admin, employee=someone, policy=leave.policy_default(), start=later, end=later
    )

    acme_client.force_login(owner)
    page = acme_client.get("/settings/hr/").content.decode()
    approved = acme_client.post(f"/settings/hr/leave/{first.pk}/decide/", {"decision": "approve"})
    denied = acme_client.post(
        f"/settings/hr/leave/{second.pk}/decide/", {"decision": "deny", "reason": "audit week"}
    )
    acme_client.force_login(member)
    member_page = acme_client.get("/settings/hr/").content.decode()
    refused = acme_client.post(f"/settings/hr/leave/{first.pk}/decide/", {"decision": "deny", "reason": "x"})
    report = EmployeeFactory(
        actor=owner, full_name="Maren Holt", manager_id=Employee.objects.get(user=member).pk
    )
    theirs = leave.request_submit(
        actor=admin, employee=report, policy=leave.policy_default(), start=start, end=start
    )
    manager_page = acme_client.get("/settings/hr/").content.decode()
    decided = acme_client.post(f"/settings/hr/leave/{theirs.pk}/decide/", {"decision": "approve"})

    assert "Teodor Brandt" in page and f"/settings/hr/leave/{first.pk}/decide/" in page
    assert approved.status_code == 302 and denied.status_code == 302
    assert LeaveRequest.objects.get(pk=first.pk).status == "approved"
    assert LeaveRequest.objects.get(pk=second.pk).decision_note == "audit week"
    assert "/decide/" not in member_page and "Teodor Brandt" in member_page  # the directory, not the leave
    assert refused.status_code == 404  # not a request the member sees
    assert f"/settings/hr/leave/{theirs.pk}/decide/" in manager_page and decided.status_code == 302
    assert LeaveRequest.objects.get(pk=theirs.pk).status == "approved"
    own = Employee.objects.get(user=member)
    assert LeaveRequest.objects.filter(employee=own, status="pending").exists()
