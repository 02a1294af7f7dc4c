"""The HR area of the catalogue (SPEC 4.7), one module per group of tools."""

from apps.hr.tools import (
    employees,
    grievances,
    hiring,
    leave,
    leave_setup,
    onboarding,
    overview,
    policies,
    reviews,
    time,
    training,
)

__all__ = [
    "employees",
    "grievances",
    "hiring",
    "leave",
    "leave_setup",
    "onboarding",
    "overview",
    "policies",
    "reviews",
    "time",
    "training",
]
