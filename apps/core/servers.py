"""The PostgreSQL servers workspaces are placed on (docs/deploy.md, "More than one PostgreSQL
server").

The primary server (DATABASES["default"]) holds the public schema of record: workspaces, their
host names and placements, operators, data-rights records. `settings.ATRIUM_DATABASE_SERVERS`
names the others (key -> URL). A workspace's schema lives on one server, its row's `database`;
each secondary server also has a public schema of its own (migrated like the primary's, its
shared tables left empty: the workspace schemas' tables are created against it, and extensions
live there) and a template schema to clone new workspaces from.

All code uses the default connection. Here its server follows the workspace it is set to:
`set_tenant` (a request, the MCP endpoint, the gateway) and `set_schema` (`schema_context`:
Celery tasks, background work) pick the workspace's server, the public schema the primary's;
`pinned(key)` keeps it on one server whatever is set (creating a workspace there, preparing the
server). The connection keeps one physical connection per server it has used and swaps them (no
new connection per switch), and refuses to change server inside a transaction.

Reads and writes of the public-only models (tenancy, datarights, core) made while the default
connection is on a secondary server go to the primary through the `PUBLIC` alias
(`PublicRouter`): the secondary's copy of those tables is never read.

With no secondary server configured, none of this runs: one server, as before, and `PublicRouter`
is not even registered (config/settings/services.py; `routers_follow_the_servers` registers or
removes it when the setting changes at run time, which only tests do).
"""

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from typing import Any

import dj_database_url
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections

from apps.core.kept import MISSING, WORKSPACES, Kept

PRIMARY = DEFAULT_DB_ALIAS
# The primary's public schema, from wherever the default connection is (made when first needed).
PUBLIC = "atrium_public"
PUBLIC_SCHEMA = "public"

# A workspace's placement as every process keeps it, (server, moving to); told of changes like
# the other workspace changes (the WORKSPACES channel), and untold within this many seconds.
PLACEMENT_TTL = 10.0
_placements: Kept[str, dict[str, tuple[str, str]]] = Kept(WORKSPACES, lambda: PLACEMENT_TTL)
_lock = threading.Lock()


class UnknownServer(LookupError):
    pass


class ServerSwitchRefused(RuntimeError):
    """The default connection was asked to leave its server inside a transaction."""


def configured() -> bool:
    """Whether any server besides the primary is configured."""
    return bool(getattr(settings, "ATRIUM_DATABASE_SERVERS", None))


def known() -> list[str]:
    """Every server's key, the primary first."""
    return [PRIMARY, *sorted(getattr(settings, "ATRIUM_DATABASE_SERVERS", None) or {})]


def weights() -> dict[str, float]:
    """How much of the workspaces each server is meant to take (ATRIUM_DATABASE_SERVER_WEIGHTS; 1 each)."""
    given = getattr(settings, "ATRIUM_DATABASE_SERVER_WEIGHTS", None) or {}
    return {key: float(given.get(key, 1.0)) for key in known()}


def check_key(key: str) -> str:
    if key not in known():
        raise UnknownServer(key)
    return key


def settings_for(key: str, primary: dict[str, Any]) -> dict[str, Any]:
    """The connection settings of server `key`: the primary's (`primary`, the default alias's own
    dictionary) with the server's URL's name, user, password, host and port."""
    if key == PRIMARY:
        return primary
    url = (getattr(settings, "ATRIUM_DATABASE_SERVERS", None) or {}).get(key)
    if not url:
        raise UnknownServer(key)
    parsed = dj_database_url.parse(url)
    server = dict(primary)
    for part in ("NAME", "USER", "PASSWORD", "HOST", "PORT"):
        server[part] = parsed.get(part) or ""
    server["OPTIONS"] = {**primary.get("OPTIONS", {}), **parsed.get("OPTIONS", {})}
    return server


def url_for(key: str) -> str:
    """A libpq URL of server `key` (for pg_dump and psql)."""
    wrapper: Any = connections[DEFAULT_DB_ALIAS]
    db = settings_for(key, wrapper.primary_settings())
    from urllib.parse import quote

    credentials = quote(db["USER"] or "", safe="")
    if db.get("PASSWORD"):
        credentials += ":" + quote(db["PASSWORD"], safe="")
    return f"postgres://{credentials}@{db['HOST']}:{db['PORT'] or 5432}/{quote(db['NAME'], safe='')}"


def public_alias() -> str:
    """The alias of the primary's public schema: a connection of its own, made on first use with
    the primary's settings (under tests: the test database's)."""
    if PUBLIC not in connections.settings:
        with _lock:
            if PUBLIC not in connections.settings:
                wrapper: Any = connections[DEFAULT_DB_ALIAS]
                connections.settings[PUBLIC] = dict(wrapper.primary_settings())
    return PUBLIC


# --- placement --------------------------------------------------------------------------------


def placement(schema_name: str) -> tuple[str, str]:
    """(server, server it is moving to or "") of a workspace schema; the primary for the public
    schema, the template and any schema that is no workspace's."""
    if schema_name == PUBLIC_SCHEMA or schema_name == settings.TENANT_BASE_SCHEMA:
        return PRIMARY, ""
    found = _placements.get("all", renew=_keep_placements)
    if found is MISSING:
        found = _keep_placements()
    return found.get(schema_name, (PRIMARY, ""))


def _keep_placements() -> dict[str, tuple[str, str]]:
    stamp = _placements.stamp()  # before reading: a change told meanwhile voids it
    found = _read_placements()
    _placements.put("all", found, stamp)
    return found


def _read_placements() -> dict[str, tuple[str, str]]:
    """Every workspace not simply on the primary (few, and read in one query)."""
    from django_tenants.utils import get_tenant_model

    rows = (
        get_tenant_model()
        .objects.using(public_alias())
        .exclude(database=PRIMARY, moving_to="")
        .values_list("schema_name", "database", "moving_to")
    )
    return {schema: (database, moving) for schema, database, moving in rows}


def forget() -> None:
    _placements.forget()


def server_of(tenant: Any) -> str:
    """The server of what `set_tenant` was given: a workspace row says it; a schema name is looked
    up."""
    database = getattr(tenant, "database", None)
    if database:
        return str(database)
    return placement(tenant.schema_name)[0]


@contextmanager
def pinned(key: str) -> Iterator[None]:
    """Keeps this thread's default connection on server `key`, whatever schema is set, for the
    block (outside a transaction: it may have to change server)."""
    check_key(key)
    wrapper: Any = connections[DEFAULT_DB_ALIAS]
    before = wrapper.pinned_server
    try:
        # Switched first: refused (inside a transaction), the thread is not left pinned.
        wrapper.use_server(key)
        wrapper.pinned_server = key
        yield
    finally:
        wrapper.pinned_server = before
        if not wrapper.in_atomic_block:
            wrapper.set_schema_to_public()


def current() -> str:
    """The server this thread's default connection is on."""
    wrapper: Any = connections[DEFAULT_DB_ALIAS]
    return str(getattr(wrapper, "server", PRIMARY))


# --- routing the public-only models ---------------------------------------------------------------


@cache
def public_only_labels() -> frozenset[str]:
    """The app labels of the apps only the public schema has."""
    from django.apps import apps

    only = set(settings.SHARED_APPS) - set(settings.TENANT_APPS)
    return frozenset(config.label for config in apps.get_app_configs() if config.name in only)


class PublicRouter:
    """The public-only models go to the primary when the default connection is on another server."""

    def _route(self, model: Any) -> str | None:
        if not configured() or model._meta.app_label not in public_only_labels():
            return None
        if current() == PRIMARY:
            return None
        return public_alias()

    def db_for_read(self, model: Any, **hints: Any) -> str | None:
        return self._route(model)

    def db_for_write(self, model: Any, **hints: Any) -> str | None:
        return self._route(model)

    def allow_relation(self, obj1: Any, obj2: Any, **hints: Any) -> bool | None:
        # A row of the primary's public schema and one read through the default alias on the
        # primary are the same database.
        if configured() and {obj1._state.db, obj2._state.db} <= {DEFAULT_DB_ALIAS, PUBLIC}:
            return True
        return None

    def allow_migrate(self, db: str, app_label: str, **hints: Any) -> bool | None:
        return False if db == PUBLIC else None


def routers_follow_the_servers(*, setting: str, **kwargs: Any) -> None:
    """`setting_changed`: ATRIUM_DATABASE_SERVERS changed while running (a test's override; a
    deployment reads its settings once) registers `PublicRouter` first among the routers, or
    removes it, as the settings would have at start."""
    if setting != "ATRIUM_DATABASE_SERVERS":
        return
    from django.db import router

    routers: list[Any] = router.routers
    present = [each for each in routers if isinstance(each, PublicRouter)]
    if configured() and not present:
        routers.insert(0, PublicRouter())
    elif not configured():
        for each in present:
            routers.remove(each)
