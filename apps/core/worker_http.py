"""A small HTTP server inside the Celery worker's main process, for what watches the worker:

- `/healthz`: the main process is alive (liveness);
- `/readyz`: PostgreSQL and Redis answer (readiness), as the web's /readyz;
- `/metrics`: what this machine's processes counted (the pool's tasks, in multiprocess mode),
  with `Authorization: Bearer $ATRIUM_METRICS_TOKEN`; without a token configured, 404.

Started on `ATRIUM_WORKER_HTTP_PORT` when the worker is ready (config/celery.py).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, make_server

from django.conf import settings
from django.db import connection
from prometheus_client.exposition import ThreadingWSGIServer

from apps.core import metrics


def _json(start_response: Callable[..., Any], status: str, body: dict[str, Any]) -> list[bytes]:
    start_response(status, [("Content-Type", "application/json"), ("Cache-Control", "no-store")])
    return [json.dumps(body).encode()]


def application(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    path = environ.get("PATH_INFO", "")
    if path == "/healthz":
        return _json(start_response, "200 OK", {"status": "ok"})
    if path == "/readyz":
        from apps.core.views import readiness

        try:
            checks = readiness()
        finally:
            connection.close()  # this thread's own connection; probes must not pile them up
        ready = all(value == "ok" for value in checks.values())
        status = "200 OK" if ready else "503 Service Unavailable"
        return _json(start_response, status, {"status": "ok" if ready else "unavailable", "checks": checks})
    if path == "/metrics" and settings.ATRIUM_METRICS_TOKEN:
        if not metrics.authorized(environ.get("HTTP_AUTHORIZATION"), settings.ATRIUM_METRICS_TOKEN):
            start_response("401 Unauthorized", [("WWW-Authenticate", 'Bearer realm="metrics"')])
            return [b"a bearer token is required\n"]
        body, content_type = metrics.exposition()
        start_response("200 OK", [("Content-Type", content_type)])
        return [body]
    start_response("404 Not Found", [("Content-Type", "text/plain")])
    return [b"not found\n"]


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        """Probes every few seconds are not worth a log line each."""


def serve(port: int, *, address: str = "0.0.0.0") -> ThreadingWSGIServer:  # noqa: S104
    server = make_server(address, port, application, ThreadingWSGIServer, handler_class=_QuietHandler)
    threading.Thread(target=server.serve_forever, name="worker-http", daemon=True).start()
    return server
