"""The HR area of the catalogue (SPEC 4.7), one module per group of tools."""

from apps.hr.tools import employees, leave, onboarding, overview, time

__all__ = ["employees", "leave", "onboarding", "overview", "time"]
