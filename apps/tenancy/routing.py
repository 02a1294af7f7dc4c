"""Host name -> workspace, kept in each process (apps.core.kept).

Every request resolves its host; the domain table is indexed, but the lookup still costs a
round trip. Changes made in this process are seen at once (signals clear the cache); in other
processes as soon as they are told (the WORKSPACES channel, apps.mcp.endings), and without the
telling within ROUTE_TTL.
"""

from apps.core import workspaces
from apps.core.kept import MISSING, WORKSPACES, Kept
from apps.tenancy.models import Domain, Workspace

ROUTE_TTL = 10.0
_routes: Kept[str, Workspace | None] = Kept(WORKSPACES, lambda: ROUTE_TTL)


def workspace_for_host(hostname: str) -> Workspace | None:
    workspace = _routes.get(hostname)
    if workspace is MISSING:
        stamp = _routes.stamp()  # before reading: a change told meanwhile voids it
        domain = Domain.objects.select_related("tenant").filter(domain=hostname).first()
        workspace = domain.tenant if domain else None
        _routes.put(hostname, workspace, stamp)
    # A copy per request: the middleware annotates it, and requests must not share that.
    return _copy(workspace) if workspace is not None else None


def _copy(workspace: Workspace) -> Workspace:
    """What copy.copy() gives, without its trip through pickling's __reduce__ (model look-up
    by app label on every request)."""
    clone = Workspace.__new__(Workspace)
    clone.__dict__.update(workspace.__getstate__())  # its own _state and fields cache
    return clone


def forget() -> None:
    _routes.forget()
    workspaces.forget()
