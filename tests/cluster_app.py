"""The Celery app of the multi-process tests: Atrium's own (config.celery), plus a probe task
that reports where and under which request id it ran, a beat entry that fires every second, and
a task that raises an MCP notification in the worker (`cluster.notify`).

Probe records go to Redis lists `cluster:started:<label>` and `cluster:finished:<label>`.
"""

import json
import logging
import os
import time

import redis

from apps.core.observability import current, current_request_id
from config.celery import app

logger = logging.getLogger("tests.cluster")


@app.on_after_configure.connect
def beat_every_second(sender, **kwargs):  # type: ignore[no-untyped-def]
    sender.add_periodic_task(1.0, record.s("beat"), name="cluster probe")


@app.task(name="cluster.record", bind=True)
def record(self, label: str, sleep: float = 0.0, schema_name: str | None = None) -> None:  # type: ignore[no-untyped-def]
    store = redis.Redis.from_url(os.environ["REDIS_URL"])
    context = current()
    entry = {
        "task_id": self.request.id,
        "hostname": self.request.hostname,
        "pid": os.getpid(),
        "request_id": current_request_id(),
        "workspace": context.workspace if context else None,
    }
    store.rpush(f"cluster:started:{label}", json.dumps(entry))
    logger.info("probe %s running", label)
    time.sleep(sleep)
    store.rpush(f"cluster:finished:{label}", json.dumps(entry))


@app.task(name="cluster.notify")
def notify(schema_name: str, user_ids: list[int] | None = None) -> int:
    """`notifications/tools/list_changed` raised in a worker, as a change made there would."""
    from apps.mcp.signals import notify_tools_changed

    return notify_tools_changed(schema_name=schema_name, user_ids=user_ids)
