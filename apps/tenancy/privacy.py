"""Workspaces and their host names are the operator's records, not a person's (docs/privacy.md)."""

from apps.core import privacy

privacy.not_personal(
    "tenancy",
    reason="the workspace itself (name, brand, areas, time zone) and its host names: the operator's "
    "records about a tenant, removed with the workspace",
)
