"""How background work enters a workspace.

Tasks take ids and the schema name, never model instances, and run inside that workspace's
schema through `workspace_task` (one decorator, so no task forgets to switch).
Sweepers that visit every workspace use `for_each_workspace`; those that run every few seconds
visit only the workspaces that marked work of their kind (`mark_pending`, `for_each_marked`).
"""

import functools
import logging
from collections.abc import Callable, Iterator
from typing import Any

from celery import shared_task
from django.apps import apps
from django.db import connections, transaction
from django_tenants.utils import get_public_schema_name, get_tenant_model, schema_context

from apps.core import servers
from apps.core.db import connection

logger = logging.getLogger(__name__)


def workspace_task(*task_args: Any, **task_options: Any) -> Callable[[Callable[..., Any]], Any]:
    """A Celery task run inside one workspace: call it as `task.delay(..., schema_name=...)`."""

    def decorator(function: Callable[..., Any]) -> Any:
        @functools.wraps(function)
        def run(*args: Any, schema_name: str, **kwargs: Any) -> Any:
            with schema_context(schema_name):
                return function(*args, **kwargs)

        return shared_task(*task_args, **task_options)(run)

    return decorator


def workspace_schemas() -> Iterator[str]:
    model = get_tenant_model()
    yield from (
        model.objects.exclude(schema_name="public").order_by("pk").values_list("schema_name", flat=True)
    )


def for_each_workspace(function: Callable[[], Any]) -> int:
    """Runs `function` once inside each workspace schema; one workspace failing does not stop
    the others. Returns how many failed."""
    failures = 0
    for schema_name in list(workspace_schemas()):
        try:
            with schema_context(schema_name):
                function()
        except Exception:
            failures += 1
            logger.exception("sweep %s failed in workspace %s", function.__name__, schema_name)
    return failures


def _pending_table() -> str:
    return connection.ops.quote_name(apps.get_model("tenancy", "PendingWork")._meta.db_table)


def mark_pending(kind: str) -> None:
    """Says that the current workspace has work of `kind` waiting for its sweep (`for_each_marked`).
    One statement, on the shared table, whichever schema is active.

    A workspace on another database server than the primary (apps.core.servers) is marked on the
    primary, whose table the sweep reads: at once, and again once the transaction in progress (on
    the workspace's server) commits, so that a sweep run in between and finding nothing yet does
    not take the mark for good."""
    schema_name = connection.schema_name
    if getattr(connection, "server", servers.PRIMARY) == servers.PRIMARY:
        _mark(connection, kind, schema_name)
        return
    primary = connections[servers.public_alias()]
    _mark(primary, kind, schema_name)
    if connection.in_atomic_block:
        transaction.on_commit(lambda: _mark(primary, kind, schema_name))


def _mark(on: Any, kind: str, schema_name: str) -> None:
    public = on.ops.quote_name(get_public_schema_name())
    workspaces = on.ops.quote_name(get_tenant_model()._meta.db_table)
    with on.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {public}.{_pending_table()} (workspace_id, kind, since) "  # noqa: S608  (names from the models)
            f"SELECT id, %s, clock_timestamp() FROM {public}.{workspaces} WHERE schema_name = %s "
            "ON CONFLICT (workspace_id, kind) DO UPDATE SET since = EXCLUDED.since",
            [kind, schema_name],
        )


def for_each_marked(kind: str, function: Callable[[], bool]) -> int:
    """Runs `function` in each workspace marked with `kind`; it answers whether work is left. The
    mark goes once nothing is left and nobody marked the workspace again meanwhile; a workspace
    whose run fails keeps it. Returns how many failed."""
    model = apps.get_model("tenancy", "PendingWork")
    with schema_context(get_public_schema_name()):
        marks = list(
            model.objects.filter(kind=kind)
            .order_by("since")
            .values_list("pk", "workspace__schema_name", "since")
        )
    failures = 0
    for pk, schema_name, since in marks:
        try:
            with schema_context(schema_name):
                left = function()
        except Exception:
            failures += 1
            logger.exception("sweep %s failed in workspace %s", function.__name__, schema_name)
            continue
        if not left:
            with schema_context(get_public_schema_name()):
                model.objects.filter(pk=pk, since=since).delete()
    return failures
