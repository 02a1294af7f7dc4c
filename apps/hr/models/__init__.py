"""The HR area's models, one module per group of entities."""

from apps.hr.models.employees import Employee, RestrictedDetails

__all__ = ["Employee", "RestrictedDetails"]
