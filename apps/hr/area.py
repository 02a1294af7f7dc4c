"""The HR area, as the rest of the service knows it (apps.core.areas)."""

from celery.schedules import crontab
from django.utils.translation import gettext_lazy as _

from apps.core import areas
from apps.core.navigation import NavItem
from apps.hr.permissions import HrPerm

# Per tool, what people call what it does (searchTools). Employees, leave, time, onboarding:
PEOPLE_HINTS: dict[str, str] = {
    "createEmployee": "add a new hire staff member employment record joiner",
    "getEmployee": "employee record details job manager salary",
    "updateEmployee": "change job title manager salary pay fte part-time leaver end date",
    "listEmployees": "staff list headcount who works here team members",
    "searchEmployees": "find look up an employee colleague staff member by name",
    "examineEmployee": "everything about an employee leave onboarding hours reports",
    "openEmployee": "show link to an employee's hr page profile",
    "openHumanResources": "take me to the hr page people team",
    "getHrDashboard": "hr overview headcount who is off today joiners leavers",
    "inviteEmployeeToTeam": "give an employee an account access login to the workspace",
    "submitLeaveRequest": "book holiday vacation annual leave pto day off time off",
    "approveLeaveRequest": "approve accept holiday vacation time off request",
    "denyLeaveRequest": "reject decline cancel holiday vacation time off request",
    "getLeaveRequests": "pending holiday requests who asked for time off",
    "getLeaveBalance": "how many holiday vacation days left allowance remaining",
    "clockIn": "start shift clock on punch in start work timesheet",
    "clockOut": "end shift clock off punch out finish work break",
    "getTimeEntries": "timesheet hours worked this week shifts overtime",
    "startOnboarding": "onboard a new hire starter checklist first day",
    "getOnboardingChecklist": "new starter onboarding progress tasks checklist",
    "toggleOnboardingItem": "tick off mark done onboarding task checklist item",
}

# Reviews, training, policies, grievances, hiring:
TALENT_HINTS: dict[str, str] = {}

area = areas.declare(
    title=_("HR"),
    description=_("Employees, leave, time clock, onboarding, reviews, training, policies and hiring"),
    words=(
        "hr human resources employee staff personnel worker colleague leave holiday vacation pto "
        "absence time off clock timesheet shift onboarding new hire review appraisal training "
        "policy grievance hiring recruiting candidate applicant"
    ),
    hints={**PEOPLE_HINTS, **TALENT_HINTS},
    # The "people" profile is near its limits (apps.catalogue.profiles): HR's everyday three.
    profiles={"people": ("getHrDashboard", "searchEmployees", "submitLeaveRequest")},
    nav=[NavItem("hr", _("HR"), "hr:home", HrPerm.VIEW, order=37)],
    periodic={
        "hr-overdue-onboarding": areas.Periodic(
            "apps.hr.tasks.notify_overdue_onboarding", crontab(minute=23)
        ),
    },
)
