"""Export and erasure of one person's data reach every HR model of employees, leave, time and
onboarding (docs/privacy.md), the restricted details (special-category data) included;
everyone else's rows stay."""

import io
import json
from datetime import timedelta

from django.utils import timezone

from apps.accounts.models import Role, User
from apps.datarights.personal_data import personal_data_erase, personal_data_export
from apps.hr.models import (
    Employee,
    LeaveEntry,
    LeaveRequest,
    OnboardingChecklist,
    OnboardingItem,
    RestrictedDetails,
    TimeEntry,
    TimeEntryEdit,
)
from apps.hr.services import employees, leave, onboarding
from apps.hr.services import time as clock
from apps.hr.tests.factories import EmployeeFactory
from apps.hr.tests.samples import monday_ahead

EMAIL = "erin.vale@acme.example"


def test_export_and_erasure_reach_every_hr_model(acme, people):
    owner = people["owner"]
    erin = User.objects.create_user(email=EMAIL, password=None, role=Role.objects.get(key="member"))
    mine = EmployeeFactory(actor=owner, email=EMAIL, person_email=EMAIL)
    other = EmployeeFactory(actor=owner, email="someone.else@example.org")
    for employee, notes in ((mine, "migraine"), (other, "knee")):
        employees.restricted_update(actor=owner, employee=employee, fields={"health_notes": notes})
    start = monday_ahead()
    request = leave.request_submit(
        actor=erin, employee=mine, policy=leave.policy_default(), start=start, end=start
    )
    leave.request_approve(actor=owner, request=request)
    clock.clock_in(actor=erin, employee=mine, at=timezone.now() - timedelta(hours=2), reason="forgot")
    onboarding.checklist_start(actor=owner, employee=mine, template=onboarding.template_standard())

    out = io.BytesIO()
    summary = personal_data_export(workspace=acme, email=EMAIL, out=out, performed_by="test")
    records = json.loads(out.getvalue())["records"]
    found = {key: n for key, n in summary.counts.items() if key.startswith("hr.")}

    assert set(found) == {
        "hr.employee",
        "hr.restricteddetails",
        "hr.leaverequest",
        "hr.leaveentry",
        "hr.timeentry",
        "hr.timeentryedit",
        "hr.onboardingchecklist",
        "hr.onboardingitem",
    }
    assert records["hr.restricteddetails"][0]["health_notes"] == "migraine"
    assert "knee" not in out.getvalue().decode()

    personal_data_erase(workspace=acme, email=EMAIL, performed_by="test")

    assert not Employee.objects.filter(pk=mine.pk).exists()
    for model in (RestrictedDetails, LeaveRequest, LeaveEntry, TimeEntry, OnboardingChecklist):
        assert not model.objects.filter(employee_id=mine.pk).exists()
    assert not TimeEntryEdit.objects.filter(entry__employee_id=mine.pk).exists()
    assert not OnboardingItem.objects.filter(checklist__employee_id=mine.pk).exists()
    assert RestrictedDetails.objects.get(employee=other).health_notes == "knee"
