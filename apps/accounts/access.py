"""The one place that decides whether a person may do a thing. Pages, JSON APIs, MCP tools and
the gateway's agent all ask `apps.core.actors.can()`, which asks the person's `has_perm`, which
asks here; nothing else interprets roles.

A permission is usable when the person is active, the permission's area is installed in the
current workspace (core areas always are), and the person's role grants it.
"""

from typing import Any

from apps.core.workspaces import Workspace, current_workspace

_CACHE_ATTRIBUTE = "_atrium_permissions"


def effective_permissions(user: Any, workspace: Workspace | None = None) -> frozenset[str]:
    """Every permission `user` holds right now in `workspace` (default: the current one)."""
    if user is None or not getattr(user, "is_authenticated", False) or not user.is_active:
        return frozenset()
    workspace = workspace or current_workspace()
    role = getattr(user, "role", None)
    if workspace is None or role is None:
        return frozenset()
    key = (workspace.schema_name, role.pk, role.updated_at, tuple(workspace.installed_areas))
    cached = getattr(user, _CACHE_ATTRIBUTE, None)
    if cached is not None and cached[0] == key:
        return cached[1]
    granted = frozenset(
        code for code in role.granted_permissions() if workspace.has_area(code.split(".", 1)[0])
    )
    setattr(user, _CACHE_ATTRIBUTE, (key, granted))
    return granted


def can(user: Any, permission: str, workspace: Workspace | None = None) -> bool:
    return str(permission) in effective_permissions(user, workspace)
