"""Personal data in HR (docs/privacy.md).

An employee is found by the person of the workspace it is linked to, or by its work e-mail
address; every HR row about them is found through that employee: restricted details
(special-category data: pay, national identifier, health), leave requests and the ledger of their
balances, time entries and the audit of their edits, onboarding checklists and their items. Soft
delete archives the employment record; erasure deletes it with everything that hangs on it (rows
that only name the person as an approver, an item's owner or an editor lose that name when the
person is erased: their foreign keys are SET_NULL).
"""

from collections.abc import Callable
from typing import Any

from django.db.models import Q

from apps.core import privacy
from apps.hr.models import (
    Assessment,
    Candidate,
    CompanyHoliday,
    Employee,
    Grievance,
    GrievanceEvent,
    GrievanceRead,
    HiringAdvice,
    HiringPipeline,
    HiringStage,
    LeaveEntry,
    LeavePolicy,
    LeaveRequest,
    LeaveType,
    OnboardingChecklist,
    OnboardingItem,
    OnboardingTemplate,
    OnboardingTemplateItem,
    Policy,
    PolicyAcknowledgment,
    PolicyAssignment,
    PolicyVersion,
    RestrictedDetails,
    Review,
    ReviewCycle,
    StageChange,
    TimeEntry,
    TimeEntryEdit,
    TrainingRecord,
)


def _employee_rows(subject: privacy.Subject, prefix: str) -> Q:
    rows = Q(**{f"{prefix}email__iexact": subject.email}) & ~Q(**{f"{prefix}email": ""})
    if subject.user is not None:
        rows |= Q(**{f"{prefix}user": subject.user})
    return rows


def _of(model: Any, prefix: str) -> Callable[[privacy.Subject], Any]:
    def find(subject: privacy.Subject) -> Any:
        return model._base_manager.filter(_employee_rows(subject, prefix))

    return find


privacy.register(Employee, find=_of(Employee, ""), soft_delete="deleted_at", order=50)
privacy.register(RestrictedDetails, find=_of(RestrictedDetails, "employee__"))
privacy.register(LeaveRequest, find=_of(LeaveRequest, "employee__"), order=10)
privacy.register(LeaveEntry, find=_of(LeaveEntry, "employee__"))
privacy.register(TimeEntry, find=_of(TimeEntry, "employee__"), order=10)
privacy.register(TimeEntryEdit, find=_of(TimeEntryEdit, "entry__employee__"))
privacy.register(OnboardingChecklist, find=_of(OnboardingChecklist, "employee__"), order=10)
privacy.register(OnboardingItem, find=_of(OnboardingItem, "checklist__employee__"))
privacy.register(PolicyAssignment, find=_of(PolicyAssignment, "employee__"))
privacy.not_personal(LeavePolicy, reason="the workspace's leave rules")
privacy.not_personal(LeaveType, reason="the workspace's kinds of leave")
privacy.not_personal(CompanyHoliday, reason="the days the company closes")
privacy.not_personal(OnboardingTemplate, reason="the workspace's onboarding templates")
privacy.not_personal(OnboardingTemplateItem, reason="steps of an onboarding template")


# --- reviews, training, policies, grievances, hiring ---------------------------------------------
# A person appears in these rows either as the one they are about (their review, training, the
# grievance they filed, their candidacy: erased) or as the one who acted (a manager, a handler,
# who moved a candidate: the row stays, without them).


def _about_user(field: str) -> Any:
    def rows(subject: privacy.Subject) -> Q:
        return Q(**{field: subject.user}) if subject.user is not None else Q(pk__in=[])

    return rows


def _about_email(field: str) -> Any:
    def rows(subject: privacy.Subject) -> Q:
        return Q(**{f"{field}__iexact": subject.email}) & ~Q(**{field: ""})

    return rows


class _AboutOrBy(privacy.ModelHandler):
    """Rows about the person (`about`) are erased; rows where they only acted (`by`, a user field)
    keep everything but them."""

    def __init__(self, model: Any, *, about: Any, by: str) -> None:
        super().__init__(model, find=self._find)
        self.about, self.by = about, by

    def _find(self, subject: privacy.Subject) -> Any:
        rows = self.about(subject)
        if subject.user is not None:
            rows |= Q(**{self.by: subject.user})
        return self.model._base_manager.filter(rows)

    def erase(self, subject: privacy.Subject) -> int:
        about = self.model._base_manager.filter(self.about(subject))
        _total, per_model = about.delete()
        kept = 0
        if subject.user is not None:
            kept = self.model._base_manager.filter(**{self.by: subject.user}).update(**{self.by: None})
        return per_model.get(self.model._meta.label, 0) + kept


def _erase_candidates(rows: Any) -> int:
    """Candidates with their CVs: the CV file goes with the candidate."""
    from apps.files import api as files

    cvs = [pk for pk in rows.values_list("cv_file_id", flat=True) if pk]
    _total, per_model = rows.delete()
    files.erase(cvs)
    return per_model.get(Candidate._meta.label, 0)


privacy.register_handler(_AboutOrBy(Review, about=lambda s: _employee_rows(s, "employee__"), by="manager"))
privacy.register(
    Assessment,
    find=lambda s: Assessment.objects.filter(
        _employee_rows(s, "review__employee__") | _about_user("author")(s)
    ),
)
privacy.register(TrainingRecord, find=_of(TrainingRecord, "employee__"))
privacy.register(PolicyAcknowledgment, user="user")
privacy.register_handler(_AboutOrBy(Grievance, about=_about_user("filed_by"), by="handler"))
privacy.register(GrievanceEvent, user="by", erase={"by": None})
privacy.register(GrievanceRead, user="reader", erase={"reader": None})
privacy.register(Candidate, email="email", soft_delete="deleted_at", erase=_erase_candidates, order=40)
privacy.register_handler(_AboutOrBy(StageChange, about=_about_email("candidate__email"), by="by"))
privacy.register(HiringAdvice, user="asked_by", erase={"asked_by": None})
privacy.not_personal(ReviewCycle, reason="names and due dates of review cycles")
privacy.not_personal(Policy, reason="titles of the workspace's HR policies")
privacy.not_personal(
    PolicyVersion, reason="published policy texts (their publisher: cleared with the account)"
)
privacy.not_personal(HiringPipeline, reason="names of jobs and hiring pipelines")
privacy.not_personal(HiringStage, reason="names of hiring stages")
