"""Host name -> workspace, kept in each process (apps.core.kept).

Every request resolves its host; the domain table is indexed, but the lookup still costs a
round trip. Changes made in this process are seen at once (signals clear the cache); in other
processes as soon as they are told (the WORKSPACES channel, apps.mcp.endings), and without the
telling within ROUTE_TTL.
"""

from functools import partial

from django.db.models.base import ModelState

from apps.core import workspaces
from apps.core.kept import MISSING, WORKSPACES, Kept
from apps.tenancy.models import Domain, Workspace

ROUTE_TTL = 10.0
_routes: Kept[str, Workspace | None] = Kept(WORKSPACES, lambda: ROUTE_TTL)


def workspace_for_host(hostname: str) -> Workspace | None:
    workspace = _routes.get(hostname, renew=partial(_read, hostname))
    if workspace is MISSING:
        workspace = _read(hostname)
    # A copy per request: the middleware annotates it, and requests must not share that.
    return _copy(workspace) if workspace is not None else None


def _read(hostname: str) -> Workspace | None:
    """The host's workspace from the database, kept (also the background's renewal: the public
    schema, whatever the connection is set to)."""
    stamp = _routes.stamp()  # before reading: a change told meanwhile voids it
    domain = Domain.objects.select_related("tenant").filter(domain=hostname).first()
    workspace = domain.tenant if domain else None
    _routes.put(hostname, workspace, stamp)
    return workspace


def _copy(workspace: Workspace) -> Workspace:
    """What copy.copy() gives (its own _state and cache of related objects), without the trip
    through pickling's __reduce__ and __getstate__ (model look-up by app label, a walk over every
    attribute for memoryviews, which a workspace row has none of)."""
    clone = Workspace.__new__(Workspace)
    clone.__dict__.update(workspace.__dict__)
    state = clone._state = ModelState()
    state.__dict__.update(workspace._state.__dict__)
    state.fields_cache = dict(workspace._state.fields_cache)
    return clone


def forget() -> None:
    _routes.forget()
    workspaces.forget()
