"""The HR area of the catalogue (SPEC 4.7), one module per group of tools. The catalogue
autodiscovers `apps.hr.tools`; importing the modules here is what registers their tools."""

from apps.hr.tools import grievances, hiring, policies, reviews, training  # noqa: F401  (registers them)
