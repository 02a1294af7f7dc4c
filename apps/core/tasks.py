"""How background work enters a workspace.

Tasks take ids and the schema name, never model instances, and run inside that workspace's
schema through `workspace_task` (one decorator, so no task forgets to switch).
Sweepers that visit every workspace use `for_each_workspace`.
"""

import functools
import logging
from collections.abc import Callable, Iterator
from typing import Any

from celery import shared_task
from django_tenants.utils import get_tenant_model, schema_context

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
