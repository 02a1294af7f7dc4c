"""The Platform area's tools, one module per subject (importing them registers them)."""

from apps.platform.tools import admin, fields, keys, reference, transfer, workspace  # noqa: F401
