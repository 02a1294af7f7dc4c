"""The workspace a piece of code runs in: the tenant of the connection's schema.

A request, a Celery task or a test enters a workspace through django-tenants (`set_tenant`,
`schema_context`); everything below asks `current_workspace()` which one it is. The tenant model
is django-tenants' TENANT_MODEL, looked up through the library, so that core stays below the
app that declares it (apps.tenancy).
"""

from functools import cache, partial
from typing import Any, Protocol

from django.db import DEFAULT_DB_ALIAS, connections
from django_tenants.utils import get_public_schema_name, get_tenant_model

from apps.core.kept import MISSING, WORKSPACES, Kept

# How long a schema name -> workspace lookup is kept in this process untold (background work knows
# only the name; a few seconds keep the lookup off the hot path). Saves and deletes of workspaces
# in this process forget at once (apps.tenancy.signals); other processes as they are told (the
# WORKSPACES channel, apps.core.kept), and untold within the TTL.
SCHEMA_TTL = 10.0
_by_schema: Kept[str, Any] = Kept(WORKSPACES, lambda: SCHEMA_TTL)


class Workspace(Protocol):
    """What code below apps.tenancy may rely on of a workspace (apps.tenancy.models.Workspace)."""

    schema_name: str
    name: str
    brand_name: str
    time_zone: str
    installed_areas: list[str]

    def has_area(self, key: str) -> bool: ...

    def get_primary_domain(self) -> Any: ...


def current_workspace(connection: Any = None) -> Workspace | None:
    """The workspace whose schema the connection uses (this thread's, unless the caller has it
    already), or None in the public schema."""
    # Asked several times by every permission check: the connection looked up once, the tenant
    # model and the public schema's name once per process.
    if connection is None:
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
    """The workspace of a schema name, kept a while (see SCHEMA_TTL)."""
    workspace = _by_schema.get(schema_name, renew=partial(_read, schema_name))
    if workspace is MISSING:
        workspace = _read(schema_name)
    return workspace


def _read(schema_name: str) -> Workspace | None:
    stamp = _by_schema.stamp()  # before reading: a change told meanwhile voids it
    workspace: Workspace | None = get_tenant_model().objects.filter(schema_name=schema_name).first()
    _by_schema.put(schema_name, workspace, stamp)
    return workspace


def brand(default: str = "Atrium") -> str:
    """The name the service goes by in the current workspace (its brand name: in e-mails, the MCP
    server's name, a webhook's body), or `default` outside a workspace."""
    workspace = current_workspace()
    return workspace.brand_name if workspace is not None else default


def has_area(key: str) -> bool:
    """Whether the current workspace uses the area `key` (False outside a workspace)."""
    workspace = current_workspace()
    return workspace is not None and workspace.has_area(key)


def forget() -> None:
    from apps.core import servers

    _by_schema.forget()
    servers.forget()
