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
    Employee,
    LeaveEntry,
    LeavePolicy,
    LeaveRequest,
    OnboardingChecklist,
    OnboardingItem,
    OnboardingTemplate,
    OnboardingTemplateItem,
    RestrictedDetails,
    TimeEntry,
    TimeEntryEdit,
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
privacy.not_personal(LeavePolicy, reason="the workspace's leave rules")
privacy.not_personal(OnboardingTemplate, reason="the workspace's onboarding templates")
privacy.not_personal(OnboardingTemplateItem, reason="steps of an onboarding template")
