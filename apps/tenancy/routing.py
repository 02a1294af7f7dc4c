"""Host name -> workspace, with a short per-process cache.

Every request resolves its host; the domain table is indexed, but the lookup still costs a
round trip. A few seconds of caching keeps that off the hot path. Changes made in this process
are seen at once (signals clear the cache); other processes see them within ROUTE_TTL.
"""

import threading
import time

from apps.core import workspaces
from apps.tenancy.models import Domain, Workspace

ROUTE_TTL = 10.0
_routes: dict[str, tuple[float, Workspace | None]] = {}
_lock = threading.Lock()


def workspace_for_host(hostname: str) -> Workspace | None:
    now = time.monotonic()
    cached = _routes.get(hostname)
    if cached is None or cached[0] < now:
        domain = Domain.objects.select_related("tenant").filter(domain=hostname).first()
        cached = (now + ROUTE_TTL, domain.tenant if domain else None)
        with _lock:
            if len(_routes) > 10_000:  # a flood of made-up host names must not grow memory
                _routes.clear()
            _routes[hostname] = cached
    workspace = cached[1]
    # A copy per request: the middleware annotates it, and requests must not share that.
    return _copy(workspace) if workspace is not None else None


def _copy(workspace: Workspace) -> Workspace:
    """What copy.copy() gives, without its trip through pickling's __reduce__ (model look-up
    by app label on every request)."""
    clone = Workspace.__new__(Workspace)
    clone.__dict__.update(workspace.__getstate__())  # its own _state and fields cache
    return clone


def forget() -> None:
    with _lock:
        _routes.clear()
    workspaces.forget()
