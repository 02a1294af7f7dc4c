"""A deadline for a whole HTTP call (connect, send, the entire answer), for the model backends and
the webhook deliveries (apps.gateway.deliveries).

httpx's time-outs apply to each network operation on its own: a read that waits longer than the
read time-out fails, but a server (or a proxy) that sends its answer a few bytes at a time, each
within that time-out, keeps a call going for as long as it likes. Here every operation is given
at most the time left to the call's deadline, so the call ends by then:

    with deadline(30.0) as call:
        response = client.post(...)          # client = deadline_client(...)
    call.passed                              # True when the deadline cut the call short

- the host's name is resolved in a helper thread, waited for no longer than the time left;
- each of its addresses is tried in turn, each connection attempt and TLS handshake with the
  time left (CPython bounds a handshake, an encrypted read or write as a whole);
- the request is written in pieces of WRITE_PIECE bytes, each with the time left;
- each read of the answer (status line, headers, body) waits at most the time left; once it is
  gone the next read fails at once.

A call that runs out of time fails with httpx's time-out exceptions (ConnectTimeout,
WriteTimeout, ReadTimeout), like one whose operation time-out ran out; httpcore then closes the
connection rather than putting it back in the pool. Outside `deadline(...)` the transport behaves
as httpx's own.
"""

from __future__ import annotations

import ipaddress
import os
import socket
import time
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import httpcore
import httpx

WRITE_PIECE = 8192

_current: ContextVar[Call | None] = ContextVar("http_call_deadline", default=None)


@dataclass
class Call:
    seconds: float
    ends: float
    # Set when an operation was refused, or cut to the time left, because of the deadline.
    passed: bool = False

    def left(self, timeout: float | None, error: type[Exception]) -> float:
        """`timeout` shortened to the time left; `error` when there is none."""
        left = self.ends - time.monotonic()
        if left <= 0:
            self.passed = True
            raise error(f"the call's deadline of {self.seconds:.3g} s passed")
        return left if timeout is None else min(timeout, left)

    def timed_out(self) -> bool:
        """Whether a time-out that just happened was the deadline's."""
        return self.passed or time.monotonic() >= self.ends


@contextmanager
def deadline(seconds: float) -> Iterator[Call]:
    """The calls made inside (in this thread or context) end within `seconds` from now."""
    call = Call(seconds=seconds, ends=time.monotonic() + seconds)
    token = _current.set(call)
    try:
        yield call
    finally:
        _current.reset(token)


def _left(timeout: float | None, error: type[Exception]) -> float | None:
    call = _current.get()
    return timeout if call is None else call.left(timeout, error)


# --- the name's addresses, within the time left --------------------------------------------------

_resolvers: dict[int, ThreadPoolExecutor] = {}


def _resolver() -> ThreadPoolExecutor:
    # One per process: a pool inherited through fork has no threads behind it.
    pool = _resolvers.get(os.getpid())
    if pool is None:
        pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="model-dns")
        _resolvers[os.getpid()] = pool
    return pool


def _addresses(host: str, port: int, timeout: float | None) -> list[str]:
    try:
        ipaddress.ip_address(host)
        return [host]
    except ValueError:
        pass

    def lookup() -> list[str]:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        return list(dict.fromkeys(str(info[4][0]) for info in found))

    try:
        addresses = _resolver().submit(lookup).result(timeout=timeout)
    except FutureTimeout as error:
        raise httpcore.ConnectTimeout(f"resolving {host} took too long") from error
    except (OSError, UnicodeError) as error:
        raise httpcore.ConnectError(f"{host} could not be resolved ({error})") from error
    if not addresses:
        raise httpcore.ConnectError(f"{host} has no address")
    return addresses


# --- httpcore's network, bounded ------------------------------------------------------------------


class DeadlineStream(httpcore.NetworkStream):
    def __init__(self, stream: httpcore.NetworkStream) -> None:
        self._stream = stream

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._stream.read(max_bytes, _left(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        for start in range(0, len(buffer), WRITE_PIECE):
            self._stream.write(buffer[start : start + WRITE_PIECE], _left(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._stream.close()

    def start_tls(
        self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.NetworkStream:
        upgraded = self._stream.start_tls(
            ssl_context, server_hostname, _left(timeout, httpcore.ConnectTimeout)
        )
        return DeadlineStream(upgraded)

    def get_extra_info(self, info: str) -> Any:
        return self._stream.get_extra_info(info)


class DeadlineNetwork(httpcore.NetworkBackend):
    def __init__(self) -> None:
        self._network = httpcore.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        if _current.get() is None:
            return self._network.connect_tcp(host, port, timeout, local_address, socket_options)
        options = list(socket_options or [])
        failure: Exception | None = None
        for address in _addresses(host, port, _left(timeout, httpcore.ConnectTimeout)):
            try:
                stream = self._network.connect_tcp(
                    address, port, _left(timeout, httpcore.ConnectTimeout), local_address, options
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as error:
                failure = error
                continue
            return DeadlineStream(stream)
        assert failure is not None
        raise failure

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.NetworkStream:
        stream = self._network.connect_unix_socket(
            path, _left(timeout, httpcore.ConnectTimeout), socket_options
        )
        return DeadlineStream(stream)

    def sleep(self, seconds: float) -> None:
        self._network.sleep(seconds)


class DeadlineTransport(httpx.HTTPTransport):
    """httpx's transport (no proxy, certificates verified), on the bounded network."""

    def __init__(self, limits: httpx.Limits | None = None) -> None:
        limits = limits or httpx.Limits(max_connections=100, max_keepalive_connections=20)
        super().__init__(trust_env=False, limits=limits)
        # The same connection pool httpx builds, on the bounded network (httpx does not take a
        # network backend as an argument; its transport sends everything through `_pool`).
        self._pool = httpcore.ConnectionPool(
            ssl_context=httpx.create_ssl_context(trust_env=False),
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=DeadlineNetwork(),
        )


def deadline_client(timeout: float) -> httpx.Client:
    """An httpx client whose calls honour `deadline(...)`; `timeout`: httpx's per-operation one."""
    return httpx.Client(
        transport=DeadlineTransport(), timeout=timeout, trust_env=False, follow_redirects=False
    )
