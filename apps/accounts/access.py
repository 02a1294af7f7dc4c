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
    cached = getattr(user, _CACHE_ATTRIBUTE, None)
    areas = workspace.installed_areas
    head = (workspace.schema_name, role.pk, role.updated_at)
    # The installed areas are compared by content only when they are another list than last time
    # (a request asks several times, each time of the same workspace row).
    if cached is not None and cached[0][:3] == head and (cached[2] is areas or cached[0][3] == tuple(areas)):
        if cached[2] is not areas:
            setattr(user, _CACHE_ATTRIBUTE, (cached[0], cached[1], areas))
        return cached[1]
    key = (*head, tuple(areas))
    granted = frozenset(
        code for code in role.granted_permissions() if workspace.has_area(code.split(".", 1)[0])
    )
    setattr(user, _CACHE_ATTRIBUTE, (key, granted, areas))
    return granted


def can(user: Any, permission: str, workspace: Workspace | None = None) -> bool:
    return str(permission) in effective_permissions(user, workspace)
