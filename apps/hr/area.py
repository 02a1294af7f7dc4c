"""The HR area, as the rest of the service knows it (apps.core.areas)."""

from celery.schedules import crontab
from django.utils.translation import gettext_lazy as _

from apps.core import areas, env
from apps.core.kinds import Kind, page
from apps.core.navigation import NavItem
from apps.hr.permissions import HrPerm

# Per tool, what people call what it does (searchTools). Employees, leave, time, onboarding:
PEOPLE_HINTS: dict[str, str] = {
    "createEmployee": "add a new hire staff member employment record joiner",
    "getEmployee": (
        "employee record details job title manager salary pay fte start date location working days"
    ),
    "updateEmployee": (
        "change job title manager salary pay rise fte part-time hours a week working days location "
        "leaver end date, resigned, last day"
    ),
    "listEmployees": "staff list headcount who works here team members",
    "searchEmployees": (
        "find look up an employee colleague staff member by name, who are our drivers, by job title or role"
    ),
    "examineEmployee": "everything about an employee leave onboarding hours reports",
    "openEmployee": "show link to an employee's hr page profile",
    "openHumanResources": "take me to the hr page people team",
    "getHrDashboard": "hr overview headcount who is off sick or away today joiners leavers",
    "inviteEmployeeToTeam": "give an employee an account access login to the workspace",
    "submitLeaveRequest": "book holiday vacation annual leave pto day off time off",
    "approveLeaveRequest": "approve accept holiday vacation time off request",
    "denyLeaveRequest": "reject decline cancel holiday vacation time off request",
    "getLeaveRequests": "pending holiday requests who asked for time off",
    "getLeaveBalance": "how many holiday vacation days left allowance remaining accrued carried over",
    "listLeaveTypes": "kinds of leave sick parental maternity unpaid time in lieu toil balance per type",
    "adjustLeaveBalance": "adjust correct a leave balance bonus days time in lieu toil earned for overtime",
    "manageLeavePolicy": "leave policy entitlement accrual carry-over cap assign staff to a leave policy",
    "manageCompanyHolidays": "company holidays office closure closed for everyone",
    "clockIn": "start shift clock on punch in start work timesheet",
    "clockOut": "end shift clock off punch out finish work break",
    "getTimeEntries": "timesheet hours worked this week shifts overtime breaks clock-in clock-out times",
    "startOnboarding": "onboard a new hire starter checklist first day from a template",
    "getOnboardingChecklist": "new starter onboarding progress tasks checklist",
    "toggleOnboardingItem": "tick off mark done onboarding task checklist item",
}

# Reviews, training, policies, grievances, hiring:
TALENT_HINTS: dict[str, str] = {
    "createReview": "start a performance review appraisal for an employee this cycle 360 peers",
    "getReviewCycles": "performance review cycles appraisals progress who submitted",
    "submitAssessment": "write submit my self assessment manager feedback peer review rating",
    "addTrainingRecord": "record completed training course certificate first aid safety expiry",
    "getTrainingRecords": "training certificates expired expiring compliance courses done",
    "getPolicies": "hr policies handbook code of conduct remote working current version acknowledge",
    "getPolicyAcknowledgments": "who signed read acknowledged the policy version still missing",
    "fileGrievance": "report complain raise a confidential grievance harassment bullying",
    "getGrievances": "confidential grievance cases complaints hr investigation",
    "updateGrievance": "grievance case status investigating resolved closed outcome",
    "createHiringPipeline": "open a job vacancy recruiting pipeline stages interview offer",
    "getHiringPipelineOverview": (
        "recruiting board applicants per stage hiring status, who is in the running for a job"
    ),
    "createHiringCandidate": "add an applicant candidate with cv resume to a job",
    "getHiringCandidate": "applicant candidate details cv resume interview history",
    "updateHiringCandidate": "change applicant candidate contact notes consent cv",
    "listHiringCandidates": "all applicants candidates for a job stage",
    "searchHiringCandidates": "find applicants candidates with a skill in their cv resume",
    "moveHiringCandidateStage": "advance applicant to interview offer hired rejected",
    "openHiringCandidate": "link to open the applicant candidate page",
    "deleteHiringCandidate": "delete erase remove an applicant candidate and their CV personal data for good",
}
# How long a candidate without consent is kept after their last activity (then anonymised).
TALENT_SETTINGS = {
    "ATRIUM_HR_CANDIDATE_RETENTION_DAYS": env.int("ATRIUM_HR_CANDIDATE_RETENTION_DAYS", 180, min=1),
}
TALENT_PERIODIC = {
    "hr-anonymise-candidates": areas.Periodic(
        "apps.hr.tasks.anonymise_candidates", crontab(hour=3, minute=41)
    ),
}
TALENT_NAV = [NavItem("hr-hiring", _("Hiring"), "hr:hiring", HrPerm.HIRING, order=38)]

area = areas.declare(
    title=_("HR"),
    group=areas.Group.PEOPLE,
    description=_("Employees, leave, time clock, onboarding, reviews, training, policies and hiring"),
    words=(
        "hr human resources employee staff personnel worker colleague leave holiday vacation pto "
        "absence time off clock timesheet shift onboarding new hire review appraisal training "
        "policy grievance hiring recruiting candidate applicant"
    ),
    hints={**PEOPLE_HINTS, **TALENT_HINTS},
    # Everyone's three (the dashboard, colleagues, asking for leave) in "people", the HR team's work in
    # "hr", inviting to the workspace and the pages in "admin".
    profiles={
        # A line manager's: their reports' balances per leave type, time in lieu they grant.
        "people": (
            "getHrDashboard",
            "searchEmployees",
            "submitLeaveRequest",
            "listLeaveTypes",
            "adjustLeaveBalance",
        ),
        "hr": (
            "addTrainingRecord",
            "approveLeaveRequest",
            "clockIn",
            "clockOut",
            "createEmployee",
            "createHiringCandidate",
            "createHiringPipeline",
            "createReview",
            "denyLeaveRequest",
            "examineEmployee",
            "fileGrievance",
            "getEmployee",
            "getGrievances",
            "getHiringCandidate",
            "getHiringPipelineOverview",
            "getHrDashboard",
            "getLeaveBalance",
            "getLeaveRequests",
            "getOnboardingChecklist",
            "getPolicies",
            "getPolicyAcknowledgments",
            "getReviewCycles",
            "getTimeEntries",
            "getTrainingRecords",
            "listEmployees",
            "listHiringCandidates",
            "moveHiringCandidateStage",
            "openEmployee",
            "searchEmployees",
            "searchHiringCandidates",
            "startOnboarding",
            "submitAssessment",
            "submitLeaveRequest",
            "toggleOnboardingItem",
            "updateEmployee",
            "updateGrievance",
            "updateHiringCandidate",
        ),
        # Deleting a candidate for good is an erasure (retention, a request): with the personal data
        # tools, as "hr" holds its 40.
        "data": ("deleteHiringCandidate",),
        # Leave set-up (types, policies, company holidays) is the workspace's, beside the pages.
        "admin": (
            "inviteEmployeeToTeam",
            "openHumanResources",
            "openHiringCandidate",
            "manageLeavePolicy",
            "manageCompanyHolidays",
        ),
    },
    nav=[NavItem("hr", _("HR"), "hr:home", HrPerm.VIEW, order=37), *TALENT_NAV],
    kinds=[
        # Only the directory's fields: pay, identifiers and health are `restricted`, never searched.
        Kind(
            "employee",
            "hr.Employee",
            title="full_name",
            person_email="email",
            url=page("hr:employee", "employee_id"),
            search=("full_name", "email", "job_title", "location"),
        ),
        Kind(
            "candidate",
            "hr.Candidate",
            title="name",
            person_email="email",
            url=page("hr:candidate", "candidate_id"),
            search=("name", "email", "source", "notes", "cv_text"),
        ),
        Kind(
            "hiring_pipeline",
            "hr.HiringPipeline",
            title="name",
            url=page("hr:hiring"),
            search=("name", "description", "location"),
        ),
        Kind("hr_policy", "hr.Policy", search=("title",), named=_("HR policy")),
    ],
    not_kinds={
        "hr.Grievance": "confidential to who handles grievances: a link or a result elsewhere would carry it",
        "hr.Review": "a person's performance review, seen by few: a link would carry its title further",
        "hr.Assessment": "what one person wrote in a review, theirs alone until submitted",
        "hr.ReviewCycle": "the frame of a round of reviews, opened in HR's review tools (getReviewCycles)",
        "hr.LeavePolicy": "part of HR's set-up, the allowance rules, not a record of the work",
        "hr.LeaveType": "part of HR's set-up, the kinds of leave, listed by listLeaveTypes",
        "hr.CompanyHoliday": "part of HR's set-up, the days the company closes (manageCompanyHolidays)",
        "hr.LeaveRequest": "a request decided in HR's leave tools; its dates go on the calendar as an event",
        "hr.OnboardingTemplate": "part of HR's set-up, the checklist new starters get",
        "hr.OnboardingChecklist": "an employee's onboarding, reached through them (getOnboardingChecklist)",
        "hr.OnboardingItem": "a line of an onboarding checklist",
        "hr.TimeEntry": "an entry of someone's hours (getTimeEntries), not named or followed",
        "hr.TrainingRecord": "an entry of an employee's training record, reached through the employee",
    },
    settings={**TALENT_SETTINGS},
    periodic={
        "hr-overdue-onboarding": areas.Periodic(
            "apps.hr.tasks.notify_overdue_onboarding", crontab(minute=23)
        ),
        **TALENT_PERIODIC,
    },
)
