"""The HR area's models, one module per group of entities."""

from apps.hr.models.employees import Employee, RestrictedDetails
from apps.hr.models.grievances import Grievance, GrievanceEvent, GrievanceRead
from apps.hr.models.hiring import Candidate, HiringAdvice, HiringPipeline, HiringStage, StageChange
from apps.hr.models.leave import (
    CompanyHoliday,
    LeaveEntry,
    LeavePolicy,
    LeaveRequest,
    LeaveType,
    PolicyAssignment,
)
from apps.hr.models.onboarding import (
    OnboardingChecklist,
    OnboardingItem,
    OnboardingTemplate,
    OnboardingTemplateItem,
)
from apps.hr.models.policies import Policy, PolicyAcknowledgment, PolicyVersion
from apps.hr.models.reviews import Assessment, Review, ReviewCycle
from apps.hr.models.time import TimeEntry, TimeEntryEdit
from apps.hr.models.training import TrainingRecord

__all__ = [
    "Assessment",
    "Candidate",
    "CompanyHoliday",
    "Employee",
    "Grievance",
    "GrievanceEvent",
    "GrievanceRead",
    "HiringAdvice",
    "HiringPipeline",
    "HiringStage",
    "LeaveEntry",
    "LeavePolicy",
    "LeaveRequest",
    "LeaveType",
    "OnboardingChecklist",
    "OnboardingItem",
    "OnboardingTemplate",
    "OnboardingTemplateItem",
    "Policy",
    "PolicyAcknowledgment",
    "PolicyAssignment",
    "PolicyVersion",
    "RestrictedDetails",
    "Review",
    "ReviewCycle",
    "StageChange",
    "TimeEntry",
    "TimeEntryEdit",
    "TrainingRecord",
]
