"""The Platform area's tools, one module per subject (importing them registers them)."""

from apps.platform.tools import admin, keys, privacy, reference, transfer, workspace  # noqa: F401
