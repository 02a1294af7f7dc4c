"""The Platform area's tools, one module per subject (importing them registers them)."""

from apps.platform.tools import (  # noqa: F401
    activity,
    admin,
    apis,
    fields,
    integrations,
    keys,
    media,
    otp,
    portal,
    privacy,
    reference,
    service,
    transfer,
    workspace,
)
