"""The budget ledger's writes for a model call made inside a transaction that is not the ledger's
(a tool's; a gateway conversation's tool call): committed at once, on a connection of their own.

Why: every change to a key's money takes the key's row lock (apps.apikeys.services). Made inside
the caller's transaction, that lock would be held until the caller commits, the model call
included (minutes for a long recording transcribed), and every other reservation, settling or
release of the key would wait for it: the gateway's other conversations of the key, other tools'
calls, the sweeper.

How: `reserve`, `settle` and `release` run the ledger's function in the process's ledger thread,
on that thread's own database connection set to the caller's workspace (and so to its database
server), in a transaction of its own, while the caller waits. Called outside a transaction, the
function runs here: it commits at once all the same.

When the ledger thread cannot make the write (its key's row lock not had within `LOCK_TIMEOUT`,
no connection free in the process, the database out of reach), the write is made in the caller's
transaction, as it would be without this module: slower for the key's other calls, never wrong.
A wait that long means a lock held by something other than the ledger's short writes; one held by
the caller's own transaction, or by a transaction that waits for the caller's (a cycle PostgreSQL
cannot see while one side waits in this process), is then found by PostgreSQL's deadlock check.

What that means for the caller: a settling made apart stands whatever becomes of the caller's
transaction, as the call it pays for was made whatever becomes of it. Its charges are noted for
the caller (`spending.charged`) marked `apart`: a rollback does not charge them again
(`spending.charge_again`), and a `spending.collected` block further out (the gateway's, which adds
a tool's model calls to its conversation's cost) keeps them even when the tool failed. A caller
interrupted while it waits for a reservation (a task's time limit) has the reservation released.

The ledger thread keeps its connection between writes within CONN_MAX_AGE (one of the process's
DATABASE_MAX_CONNECTIONS), and closes it once it is too old or no longer answers. Tests run inside
a transaction that no other connection sees (their keys are not committed), so the test settings
turn ATRIUM_LEDGER_APART off: the writes then join the caller's transaction, and a rollback has
them charged again; the tests of this module commit and turn it on.
"""

import dataclasses
import logging
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

from django.conf import settings
from django.db import DatabaseError, OperationalError, transaction

from apps.apikeys import services
from apps.apikeys.models import Reservation
from apps.core import spending
from apps.core.db import connection

# How long a write made apart waits for its key's row lock, and may run, before it is made in
# the caller's transaction instead: the ledger's own writes take milliseconds.
LOCK_TIMEOUT = "5s"
STATEMENT_TIMEOUT = "10s"

T = TypeVar("T")
logger = logging.getLogger(__name__)

_lock = threading.Lock()
_executor: ThreadPoolExecutor | None = None
_pid = 0


def reserve(**kwargs: Any) -> Reservation:
    """`services.budget_reserve`, committed at once."""
    return committed(services.budget_reserve, **kwargs)


def settle(**kwargs: Any) -> Reservation:
    """`services.budget_settle`, committed at once."""
    return committed(services.budget_settle, **kwargs)


def release(**kwargs: Any) -> Reservation:
    """`services.budget_release`, committed at once."""
    return committed(services.budget_release, **kwargs)


def committed(function: Callable[..., T], /, **kwargs: Any) -> T:
    """`function(**kwargs)` (a write of the ledger), committed when it returns, whatever
    transaction this thread is in; its error raised here."""
    if not (settings.ATRIUM_LEDGER_APART and connection.in_atomic_block):
        return function(**kwargs)
    tenant = connection.tenant
    future = _thread().submit(_run, tenant, function, kwargs)
    try:
        result, charges = future.result()
    except OperationalError:
        logger.warning(
            "the budget ledger's %s could not be made on its own connection; made in the caller's "
            "transaction",
            function.__name__,
            exc_info=True,
        )
        return function(**kwargs)
    except BaseException:
        if function is services.budget_reserve:
            # Interrupted while it waited: a reservation made meanwhile would be held for nothing.
            future.add_done_callback(lambda done: _abandoned(tenant, done))
        raise
    for charge in charges:
        spending.charged(dataclasses.replace(charge, apart=True))
    return result


def _abandoned(tenant: Any, done: Future[Any]) -> None:
    """A reservation its caller stopped waiting for, released (a job of the ledger thread's)."""
    if done.cancelled() or done.exception() is not None:
        return
    reservation = done.result()[0]
    if isinstance(reservation, Reservation):
        _thread().submit(_run, tenant, services.budget_release, {"reservation": reservation.pk})


def _run(tenant: Any, function: Callable[..., T], kwargs: dict[str, Any]) -> tuple[T, list[spending.Charge]]:
    connection.close_if_unusable_or_obsolete()
    try:
        connection.set_tenant(tenant)
        with spending.collected() as charges, transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT set_config('lock_timeout', %s, true), set_config('statement_timeout', %s, true)",
                    [LOCK_TIMEOUT, STATEMENT_TIMEOUT],
                )
            result = function(**kwargs)
        return result, charges
    except DatabaseError:
        connection.close_if_unusable_or_obsolete()  # one that no longer answers: the next connects
        raise


def _close() -> None:
    connection.close()  # the ledger thread's own (`connection` is each thread's)


def _thread() -> ThreadPoolExecutor:
    global _executor, _pid
    with _lock:
        if _executor is None or _pid != os.getpid():  # a forked worker makes its own
            _executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="atrium-ledger")
            _pid = os.getpid()
        return _executor


def stop() -> None:
    """Closes the ledger thread's connection and ends the thread (a new one starts when needed)."""
    global _executor
    with _lock:
        executor, _executor = _executor, None
    if executor is not None and _pid == os.getpid():
        executor.submit(_close).result()
        executor.shutdown()
