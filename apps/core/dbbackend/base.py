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
import logging
import threading
import time
import weakref
from typing import Any

from django.conf import settings
from django.db.utils import OperationalError
from django_tenants.postgresql_backend import base

logger = logging.getLogger(__name__)


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
    # The server the default connection is on (apps.core.servers), and the one it is kept on.
    server = "default"
    pinned_server: str | None = None
    _primary_settings: dict[str, Any] | None = None
    # server -> its physical connection while another server's is in use (see `use_server`)
    _parked: dict[str, tuple[Any, Slot | None, Any, bool, bool]] | None = None

    def set_tenant(self, tenant: Any, include_public: bool = True) -> None:
        # Another server only when some are configured, and only for the default alias (the
        # primary's public alias stays where it is).
        # (With none configured any more, back to the primary: settings changed under a test.)
        if self.alias == "default":
            configured = getattr(settings, "ATRIUM_DATABASE_SERVERS", None)
            if configured:
                from apps.core import servers

                self.use_server(self.pinned_server or servers.server_of(tenant))
            elif self.server != "default":
                self.use_server("default")
        super().set_tenant(tenant, include_public)

    def primary_settings(self) -> dict[str, Any]:
        wrapper: Any = self  # django-tenants' wrapper is untyped
        return self._primary_settings if self._primary_settings is not None else wrapper.settings_dict

    def use_server(self, key: str) -> None:
        """Puts this connection on server `key` (apps.core.servers): the physical connection of the
        server in use is kept aside and the one of `key` taken back if there is one (else the next
        query connects). Refused inside a transaction, which is the server's."""
        if key == self.server:
            return
        from apps.core import servers

        wrapper: Any = self  # django-tenants' wrapper is untyped
        if wrapper.in_atomic_block:
            raise servers.ServerSwitchRefused(
                f"this transaction is on the database server {self.server!r}; {key!r} is another"
            )
        target = servers.settings_for(key, self.primary_settings())
        if self._primary_settings is None:
            self._primary_settings = wrapper.settings_dict
        parked = self._parked if self._parked is not None else {}
        self._parked = parked
        if wrapper.connection is not None:
            parked[self.server] = (
                wrapper.connection,
                self._slot,
                wrapper.close_at,
                wrapper.errors_occurred,
                wrapper.health_check_done,
            )
        wrapper.connection, self._slot = None, None
        wrapper.close_at, wrapper.errors_occurred, wrapper.health_check_done = None, False, False
        schema = wrapper.settings_dict.get("SCHEMA")
        wrapper.settings_dict = target
        if schema is not None:
            target["SCHEMA"] = schema
        if key in parked:
            wrapper.connection, self._slot, wrapper.close_at, wrapper.errors_occurred, _checked = parked.pop(
                key
            )
            # Checked again before its next use: it may have idled for a while.
            wrapper.health_check_done = False
        self.server = key
        wrapper.search_path_set_schemas = None

    def close_if_unusable_or_obsolete(self) -> None:
        super().close_if_unusable_or_obsolete()
        if self._parked:
            self.close_obsolete_parked()

    def close_obsolete_parked(self) -> None:
        """Closes the physical connections kept aside for other servers (`use_server`) that
        outlived CONN_MAX_AGE, giving back their slots."""
        parked = self._parked
        if not parked:
            return
        now = time.monotonic()
        for key, (raw, slot, close_at, *_rest) in list(parked.items()):
            if close_at is None or now < close_at:
                continue
            del parked[key]
            try:
                raw.close()
            except Exception:  # already gone: nothing more to release than the slot
                logger.debug("closing a parked connection failed", exc_info=True)
            finally:
                if slot is not None:
                    slot.release()

    def close(self) -> None:
        try:
            super().close()
        finally:
            parked, self._parked = self._parked, None
            for raw, slot, *_rest in (parked or {}).values():
                try:
                    raw.close()
                finally:
                    if slot is not None:
                        slot.release()

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
    # The primary's public schema's own connection (apps.core.servers), if the request used it.
    for other in connections.all(initialized_only=True):
        if other.alias != DEFAULT_DB_ALIAS and other.connection is not None and not other.in_atomic_block:
            other.close()
