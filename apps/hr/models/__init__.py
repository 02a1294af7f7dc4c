"""The HR area's models, one module per group of entities."""

from apps.hr.models.employees import Employee, RestrictedDetails
from apps.hr.models.leave import LeaveEntry, LeavePolicy, LeaveRequest
from apps.hr.models.onboarding import (
    OnboardingChecklist,
    OnboardingItem,
    OnboardingTemplate,
    OnboardingTemplateItem,
)
from apps.hr.models.time import TimeEntry, TimeEntryEdit

__all__ = [
    "Employee",
    "LeaveEntry",
    "LeavePolicy",
    "LeaveRequest",
    "OnboardingChecklist",
    "OnboardingItem",
    "OnboardingTemplate",
    "OnboardingTemplateItem",
    "RestrictedDetails",
    "TimeEntry",
    "TimeEntryEdit",
]
