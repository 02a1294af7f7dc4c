"""The request id of a `POST /api/agent` follows its conversation: stored with the conversation and
its webhook delivery, re-entered by the work done later for them (a worker's run, a run queued
again by the sweeper, a webhook retry), and sent to the receiver as `X-Request-ID`."""

import contextlib
from contextlib import AbstractContextManager
from typing import Any

from apps.core import observability
from apps.core.db import connection


def request_scope(request_id: str) -> AbstractContextManager[Any]:
    """Runs the block under the stored `request_id` (unchanged when there is none, or when it is
    already the current one), so its log lines share the id of the request that started it."""
    current = observability.current()
    if not request_id or (current is not None and current.request_id == request_id):
        return contextlib.nullcontext()
    workspace = current.workspace if current is not None else None
    return observability.request_context(request_id, workspace=workspace or connection.schema_name)
