"""Dates and times written by Django itself (the operators' admin, a datetime printed bare) in the
pages' one format (apps.core.times), instead of English's "Nov. 25, 2026, 12:39 p.m."."""

DATE_FORMAT = "Y-m-d"
DATETIME_FORMAT = "Y-m-d H:i T"
SHORT_DATE_FORMAT = "Y-m-d"
SHORT_DATETIME_FORMAT = "Y-m-d H:i T"
TIME_FORMAT = "H:i"
