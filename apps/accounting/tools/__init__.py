"""The Accounting area of the catalogue (SPEC 4.7), one module per group of tools."""

from apps.accounting.tools import (
    bank,
    banking,
    bills,
    charges,
    chart,
    journals,
    matching,
    overview,
    payments,
    register,
    reports,
    sales,
    sending,
    sync,
)

__all__ = [
    "bank",
    "banking",
    "bills",
    "charges",
    "chart",
    "journals",
    "matching",
    "overview",
    "payments",
    "register",
    "reports",
    "sales",
    "sending",
    "sync",
]
