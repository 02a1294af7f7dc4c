"""The default database's engine: django-tenants' PostgreSQL backend with a ceiling on how many
connections one process holds at once (settings DATABASE_MAX_CONNECTIONS).

Django keeps one connection per thread. A web process runs many threads (the MCP pools, one per
Django request under ASGI, the audit writer), so without a ceiling its connections are as many as
its busiest moment had threads touching the database, and a deployment's total is no number at
all. Here every connection of the process takes a slot first; when none is free the thread waits
up to DATABASE_CONNECTION_WAIT_SECONDS for one, then gets an OperationalError (answered as SPEC
7.1's 503 UNAVAILABLE: nothing was done). The worst case of a deployment is then arithmetic:
processes x ceiling (docs/deploy.md, Sizing).

A slot is given back when its connection is closed, or, should a thread end without closing it,
when the connection object is collected. 0: no ceiling.
"""

import contextlib
import threading
import weakref
from typing import Any

from django.conf import settings
from django.db.utils import OperationalError
from django_tenants.postgresql_backend import base


class Slots:
    """The process's connection slots (made on first use, from the settings)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._free: threading.Semaphore | None = None
        self.limit = 0
        self.in_use = 0

    def _semaphore(self) -> threading.Semaphore | None:
        limit = int(getattr(settings, "DATABASE_MAX_CONNECTIONS", 0) or 0)
        with self._lock:
            if limit != self.limit or (limit and self._free is None):
                # A changed setting (tests): a fresh count; the slots taken meanwhile are given
                # back to the old semaphore, which nothing waits on any more.
                self.limit = limit
                self._free = threading.BoundedSemaphore(limit) if limit else None
            return self._free

    def take(self) -> "Slot":
        free = self._semaphore()
        wait = float(getattr(settings, "DATABASE_CONNECTION_WAIT_SECONDS", 10.0))
        if free is not None and not free.acquire(timeout=wait):
            raise OperationalError(
                f"no database connection free in this process: all {self.limit} are in use "
                f"(DATABASE_MAX_CONNECTIONS) and none was given back within {wait:g} s"
            )
        with self._lock:
            self.in_use += 1
        return Slot(self, free)

    def give_back(self, free: threading.Semaphore | None) -> None:
        with self._lock:
            self.in_use -= 1
        if free is not None:
            # ValueError: a semaphore replaced since (a changed setting).
            with contextlib.suppress(ValueError):
                free.release()


slots = Slots()


class Slot:
    """One connection's slot, given back once (`release`, idempotent)."""

    def __init__(self, owner: Slots, free: threading.Semaphore | None) -> None:
        self._owner = owner
        self._free = free
        self._lock = threading.Lock()
        self._held = True

    def release(self) -> None:
        with self._lock:
            if not self._held:
                return
            self._held = False
        self._owner.give_back(self._free)


class DatabaseWrapper(base.DatabaseWrapper):
    _slot: Slot | None = None

    def get_new_connection(self, conn_params: dict[str, Any]) -> Any:
        slot = slots.take()
        try:
            raw = super().get_new_connection(conn_params)
        except BaseException:
            slot.release()
            raise
        # A thread that ends without closing its connection: the slot comes back with the object.
        weakref.finalize(raw, slot.release)
        self._slot = slot
        return raw

    def _close(self) -> None:
        try:
            super()._close()
        finally:
            slot, self._slot = self._slot, None
            if slot is not None:
                slot.release()


def close_after_asgi_request(sender: Any, **kwargs: Any) -> None:
    """request_finished under ASGI: Django ran the request's synchronous parts on a thread of its
    own (asgiref's per-request executor), which ends with the request. Its connection is closed
    here, in that thread, rather than left for the garbage collector to find (minutes later, with
    its slot: a web process used to hold dozens of connections of finished requests). Other
    handlers (the test client, WSGI) reuse their thread: Django's own CONN_MAX_AGE rule applies."""
    from django.core.handlers.asgi import ASGIHandler
    from django.db import DEFAULT_DB_ALIAS, connections

    if not (isinstance(sender, type) and issubclass(sender, ASGIHandler)):
        return
    wrapper = connections[DEFAULT_DB_ALIAS]
    if wrapper.connection is not None and not wrapper.in_atomic_block:
        wrapper.close()
