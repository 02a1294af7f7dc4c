"""The web process: uvicorn (uvloop, httptools) serving `config.asgi` on one or more addresses.

    python -m config.serve --bind 127.0.0.1 --bind 127.0.0.2 --port 8000

- Several addresses, one process: the demo workspaces and the tests are told apart by host
  (127.0.0.1, 127.0.0.2, ::1), so the sockets are bound here and handed to uvicorn together.
- uvicorn believes no forwarding header (its own default would trust them from 127.0.0.1): the
  application takes the client's address and scheme from a proxy it trusts
  (ATRIUM_TRUSTED_PROXIES, apps.core.proxies), from no one else.
- No access log of uvicorn's: Atrium writes one without client addresses (ATRIUM_ACCESS_LOG),
  and uvicorn's own lines go through Django's LOGGING. No `Server` header.
- Idle keep-alive connections are held `--keep-alive` seconds (75): longer than a proxy's own
  upstream keep-alive (nginx: 60 s), so the proxy never sends a request on a connection this
  process is closing.
- On SIGTERM or SIGINT: stop accepting, end the held MCP streams at once (their clients reconnect,
  through the load balancer, to another process and replay with Last-Event-ID), and give requests
  in flight up to `--grace` seconds (ATRIUM_SHUTDOWN_GRACE, 20) before they are cancelled; then
  exit 0.

Why uvicorn rather than Daphne: the same application serves the MCP door about half as fast
again under it (bench/RESULTS.md, "MCP endpoint").
"""

import argparse
import contextlib
import os
import socket
import sys
from collections.abc import Iterator
from typing import Any

import uvicorn

APPLICATION = "config.asgi:application"
KEEP_ALIVE_SECONDS = 75


class Server(uvicorn.Server):
    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        # Imported here: the application (and Django with it) is loaded by uvicorn's start-up.
        from apps.mcp.relay import end_streams

        end_streams()
        await super().shutdown(sockets=sockets)

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        # uvicorn raises the SIGTERM or SIGINT it handled again once it has shut down, so the
        # process dies of it (status -15). A shutdown asked for and completed is a success: exit 0,
        # as supervisors (make down, Compose, Kubernetes) expect of a clean stop.
        with super().capture_signals():
            yield
            self._captured_signals.clear()


def listening_socket(address: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if family == socket.AF_INET6:
        sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
    sock.bind((address, port))
    sock.set_inheritable(True)
    return sock


def config(args: argparse.Namespace) -> uvicorn.Config:
    options: dict[str, Any] = {
        "loop": "uvloop",
        "http": "httptools",
        "ws": "none",
        "lifespan": "off",
        "access_log": False,
        "log_config": None,
        "server_header": False,
        "proxy_headers": False,
        "timeout_keep_alive": args.keep_alive,
        "timeout_graceful_shutdown": args.grace,
    }
    return uvicorn.Config(APPLICATION, **options)


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m config.serve", description=__doc__.split("\n")[0])
    parser.add_argument(
        "--bind", action="append", help="an address to listen on (repeatable; default 127.0.0.1)"
    )
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    parser.add_argument("--keep-alive", type=int, default=KEEP_ALIVE_SECONDS, metavar="SECONDS")
    parser.add_argument(
        "--grace", type=int, default=int(os.environ.get("ATRIUM_SHUTDOWN_GRACE", "20")), metavar="SECONDS"
    )
    return parser.parse_args(argv)


def main(argv: list[str]) -> None:
    args = parse(argv)
    sockets = [listening_socket(address, args.port) for address in args.bind or ["127.0.0.1"]]
    Server(config(args)).run(sockets=sockets)


if __name__ == "__main__":
    main(sys.argv[1:])
