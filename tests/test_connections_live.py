"""A web process does not keep the database connections of the Django requests it finished.

Under ASGI, Django runs each request's synchronous part on a thread of its own that ends with the
request; the connection that thread opened used to stay open until the garbage collector found it
(80 `/readyz` left 25 open in a process). It is closed at the request's end now
(apps/core/dbbackend, `close_after_asgi_request`), so a process's connections are what its threads
are using, within DATABASE_MAX_CONNECTIONS, and the deployment's worst case (docs/deploy.md,
Sizing) holds."""

import threading
import time

import httpx
import psutil
import pytest
from django.db import connection

pytestmark = pytest.mark.live

REQUESTS, CLIENTS = 10, 8


def held(pid: int, port: int) -> int:
    return sum(
        1
        for link in psutil.Process(pid).net_connections(kind="tcp")
        if link.raddr and link.raddr.port == port
    )


def test_finished_django_requests_leave_no_database_connection_open(live_http):
    database_port = int(connection.settings_dict["PORT"])
    pid = live_http.process.pid
    before = held(pid, database_port)
    statuses: list[int] = []

    def client() -> None:
        with httpx.Client(base_url=live_http.url(), timeout=30) as http:
            for _ in range(REQUESTS):
                statuses.append(http.get("/readyz").status_code)

    threads = [threading.Thread(target=client) for _ in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)

    assert statuses == [200] * REQUESTS * CLIENTS  # each one did read the database
    time.sleep(1.0)  # the last requests' ends (the connection closes after the response is sent)
    assert held(pid, database_port) <= before + 1
