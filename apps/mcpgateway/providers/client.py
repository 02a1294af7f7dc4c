"""An MCP client of one outside server, over Streamable HTTP, with the official SDK (`mcp`).

Each operation (list the tools, call one, read a resource) opens a connection, negotiates the
protocol version (the SDK's `auto`: a `server/discover` probe, falling back to `initialize` on an
older server), does its one thing and closes. What bounds it:

- the address: the caller checked the URL (apps.core.outbound) and passes the address it resolved;
  every request goes to that address (the host name kept for Host and TLS), so DNS answering
  differently afterwards (rebinding) reaches nothing else; no proxy from the environment;
- the time: the whole operation within `timeout` seconds;
- the size: every byte the server sends for the operation counted, stopped past `max_bytes`;
- the headers: the server's own credential header, if any, and nothing of the person's.

The SDK is asynchronous; the service's tools are not: `run` runs an operation on its own event
loop in a worker thread, so it works whether or not the calling thread has a loop of its own.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

import anyio
import httpx2

if TYPE_CHECKING:
    from mcp import Client

T = TypeVar("T")
MAX_PAGES = 10
MAX_TOOLS = 500

_pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="mcp-gateway")


class Failure(Exception):
    """The operation did not complete: `kind` is "timeout", "too_large" or "unavailable"."""

    def __init__(self, kind: str, problem: str = "") -> None:
        super().__init__(problem or kind)
        self.kind = kind
        self.problem = problem


@dataclass
class Endpoint:
    url: str
    # The address the URL's host resolved to when it was checked (empty: connect by name).
    address: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    timeout: float = 20.0
    max_bytes: int = 1_000_000


@dataclass
class _Meter:
    limit: int
    received: int = 0
    over: bool = False

    def add(self, size: int) -> None:
        self.received += size
        if self.received > self.limit:
            self.over = True
            raise Failure("too_large")


class _CappedStream(httpx2.AsyncByteStream):
    def __init__(self, stream: Any, meter: _Meter) -> None:
        self._stream = stream
        self._meter = meter

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._stream:
            self._meter.add(len(chunk))
            yield chunk

    async def aclose(self) -> None:
        await self._stream.aclose()


class _Transport(httpx2.AsyncBaseTransport):
    """Sends to the checked address and counts what comes back."""

    def __init__(self, endpoint: Endpoint, meter: _Meter) -> None:
        self._inner = httpx2.AsyncHTTPTransport(trust_env=False)
        self._endpoint = endpoint
        self._meter = meter

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        if self._endpoint.address:
            host = request.url.host
            request.url = request.url.copy_with(host=self._endpoint.address)
            if request.url.scheme == "https":
                request.extensions = {**request.extensions, "sni_hostname": host}
        response = await self._inner.handle_async_request(request)
        response.stream = _CappedStream(response.stream, self._meter)
        return response

    async def aclose(self) -> None:
        await self._inner.aclose()


async def _session(endpoint: Endpoint, meter: _Meter, work: Callable[[Client], Awaitable[T]]) -> T:
    http = httpx2.AsyncClient(
        headers=endpoint.headers,
        timeout=httpx2.Timeout(endpoint.timeout),
        transport=_Transport(endpoint, meter),
        follow_redirects=False,
        trust_env=False,
    )
    # The SDK is imported on first use: it costs a second of every process's start otherwise.
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async with http:
        transport = streamable_http_client(
            endpoint.url, http_client=http, max_sse_event_size=endpoint.max_bytes
        )
        async with Client(
            transport, read_timeout_seconds=endpoint.timeout, mode="auto", cache=None
        ) as client:
            return await work(client)


def run(endpoint: Endpoint, work: Callable[[Client], Awaitable[T]]) -> tuple[T, int]:
    """`work` on a connected client, bounded as the module says: its answer and the bytes read."""
    meter = _Meter(endpoint.max_bytes)

    async def bounded() -> T:
        with anyio.fail_after(endpoint.timeout):
            return await _session(endpoint, meter, work)

    def in_thread() -> T:
        return asyncio.run(bounded())

    started = time.monotonic()
    future = _pool.submit(in_thread)
    try:
        answer = future.result(timeout=endpoint.timeout + 5)
    except (TimeoutError, FutureTimeout):
        raise Failure("too_large" if meter.over else "timeout") from None
    except Failure as failure:
        raise Failure("too_large" if meter.over else failure.kind, failure.problem) from None
    except BaseException as error:  # the SDK's and the network's failures, in groups too
        if meter.over:
            raise Failure("too_large") from None
        if time.monotonic() - started >= endpoint.timeout:
            raise Failure("timeout") from None
        raise Failure("unavailable", _problem(error)) from None
    return answer, meter.received


def _problem(error: BaseException) -> str:
    """What went wrong, briefly, from the innermost error of an exception group."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    text = " ".join(str(error).split())[:200]
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


@dataclass
class Listing:
    protocol_version: str
    server_name: str
    tools: list[dict[str, Any]]
    ttl_ms: int | None


async def _list(client: Client) -> Listing:
    tools: list[dict[str, Any]] = []
    cursor: str | None = None
    ttl: int | None = None
    for _page in range(MAX_PAGES):
        page = await client.list_tools(cursor=cursor)
        ttl = getattr(page, "ttl_ms", None) if ttl is None else ttl
        tools += [tool.model_dump(by_alias=True, exclude_none=True, mode="json") for tool in page.tools]
        cursor = page.next_cursor
        if not cursor or len(tools) >= MAX_TOOLS:
            break
    info = client.server_info
    return Listing(client.protocol_version, info.name if info else "", tools[:MAX_TOOLS], ttl)


def list_tools(endpoint: Endpoint) -> tuple[Listing, int]:
    return run(endpoint, _list)


def call_tool(endpoint: Endpoint, name: str, arguments: dict[str, Any]) -> tuple[dict[str, Any], int]:
    async def work(client: Client) -> dict[str, Any]:
        result = await client.call_tool(name, arguments)
        return result.model_dump(by_alias=True, exclude_none=True, mode="json")

    return run(endpoint, work)


def read_resource(endpoint: Endpoint, uri: str) -> tuple[dict[str, Any], int]:
    async def work(client: Client) -> dict[str, Any]:
        result = await client.read_resource(uri)
        return result.model_dump(by_alias=True, exclude_none=True, mode="json")

    return run(endpoint, work)
