"""The Accounting area of the catalogue (SPEC 4.7), one module per group of tools."""

from apps.accounting.tools import (
    bank,
    banking,
    bankrules,
    bills,
    charges,
    chart,
    journals,
    matching,
    overview,
    payments,
    reconciliation,
    register,
    reports,
    sales,
    sending,
    sync,
)

__all__ = [
    "bank",
    "banking",
    "bankrules",
    "bills",
    "charges",
    "chart",
    "journals",
    "matching",
    "overview",
    "payments",
    "reconciliation",
    "register",
    "reports",
    "sales",
    "sending",
    "sync",
]
