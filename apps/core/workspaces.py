"""The workspace a piece of code runs in: the tenant of the connection's schema.

A request, a Celery task or a test enters a workspace through django-tenants (`set_tenant`,
`schema_context`); everything below asks `current_workspace()` which one it is. The tenant model
is django-tenants' TENANT_MODEL, looked up through the library, so that core stays below the
app that declares it (apps.tenancy).
"""

import threading
import time
from functools import cache
from typing import Any, Protocol

from django.db import DEFAULT_DB_ALIAS, connections
from django_tenants.utils import get_public_schema_name, get_tenant_model

# How long a schema name -> workspace lookup is kept in this process (background work knows only
# the name; a few seconds keep the lookup off the hot path). Saves and deletes of workspaces in
# this process forget at once (apps.tenancy.signals); other processes within the TTL.
SCHEMA_TTL = 10.0
_by_schema: dict[str, tuple[float, Any]] = {}
_lock = threading.Lock()


class Workspace(Protocol):
    """What code below apps.tenancy may rely on of a workspace (apps.tenancy.models.Workspace)."""

    schema_name: str
    name: str
    brand_name: str
    time_zone: str
    installed_areas: list[str]

    def has_area(self, key: str) -> bool: ...

    def get_primary_domain(self) -> Any: ...


def current_workspace() -> Workspace | None:
    """The workspace whose schema the connection uses, or None in the public schema."""
    # Asked several times by every permission check: the connection looked up once, the tenant
    # model and the public schema's name once per process.
    connection = connections[DEFAULT_DB_ALIAS]
    tenant = getattr(connection, "tenant", None)
    public = _public_schema()
    if isinstance(tenant, _tenant_model()):
        workspace: Workspace = tenant
        return None if workspace.schema_name == public else workspace
    schema_name = getattr(connection, "schema_name", public)
    return None if schema_name == public else workspace_for_schema(schema_name)


@cache
def _tenant_model() -> type[Any]:
    return get_tenant_model()


@cache
def _public_schema() -> str:
    return get_public_schema_name()


def workspace_for_schema(schema_name: str) -> Workspace | None:
    """The workspace of a schema name, cached for SCHEMA_TTL seconds."""
    now = time.monotonic()
    cached = _by_schema.get(schema_name)
    if cached is None or cached[0] < now:
        cached = (now + SCHEMA_TTL, get_tenant_model().objects.filter(schema_name=schema_name).first())
        with _lock:
            _by_schema[schema_name] = cached
    return cached[1]


def has_area(key: str) -> bool:
    """Whether the current workspace uses the area `key` (False outside a workspace)."""
    workspace = current_workspace()
    return workspace is not None and workspace.has_area(key)


def forget() -> None:
    with _lock:
        _by_schema.clear()
