"""The Accounting area of the catalogue (SPEC 4.7), one module per group of tools."""

from apps.accounting.tools import (
    bank,
    bills,
    charges,
    chart,
    journals,
    matching,
    overview,
    payments,
    register,
    reports,
    revaluation,
    sales,
    sending,
    sync,
)

__all__ = [
    "bank",
    "bills",
    "charges",
    "chart",
    "journals",
    "matching",
    "overview",
    "payments",
    "register",
    "reports",
    "revaluation",
    "sales",
    "sending",
    "sync",
]
