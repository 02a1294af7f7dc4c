"""Reads of the HR area that are domain rules (who sees which assessment), one module per group;
the names used across the area are gathered here."""

from apps.hr.selectors.reviews import reviews_of, visible_assessments

__all__ = ["reviews_of", "visible_assessments"]
