"""Who the client is behind a reverse proxy: what a trusted proxy says, otherwise the socket.

`ATRIUM_TRUSTED_PROXIES` (addresses or CIDR networks; deploy/ sets it to the TLS proxy's) names
the peers whose `X-Forwarded-For` and `X-Forwarded-Proto` are believed. For a request whose peer
(the socket's address) is one of them:

- the client's address is the last one of X-Forwarded-For that is not a trusted proxy itself,
  read from the right: each proxy appends the address it was reached from, and a client may
  write anything it likes to the left of what the first trusted proxy wrote;
- the scheme is X-Forwarded-Proto (`http` or `https`), the one TLS ended with.

Any other request keeps the socket's address and scheme, and the forwarding headers
(X-Forwarded-For, -Proto, -Host, Forwarded) are taken off it before anything reads them: nothing
below (Django's REMOTE_ADDR and with it the sign-in throttle, `USE_X_FORWARDED_HOST`, the MCP
door's idea of its own origin) can be told another address, scheme or host by a client that
reaches a web process directly. The ASGI scope is rewritten once, in `config.asgi`, for pages and
the doors alike; the web server itself believes no header (config/serve.py).
"""

import functools
import ipaddress
from collections.abc import Sequence
from typing import Any

FORWARDING_HEADERS = frozenset({b"x-forwarded-for", b"x-forwarded-proto", b"x-forwarded-host", b"forwarded"})
SCHEMES = frozenset({"http", "https"})

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


class TrustedProxiesMiddleware:
    """ASGI middleware: the scope's `client` and `scheme` as the trusted proxy forwarded them, or
    the socket's with the forwarding headers removed."""

    def __init__(self, app: Any, trusted: Sequence[str]) -> None:
        self.app = app
        self.networks: tuple[Network, ...] = tuple(ipaddress.ip_network(item) for item in trusted)
        # Peers are few (the proxies, a few clients reaching the port directly): each judged once.
        self.trusts = functools.lru_cache(maxsize=4096)(self._trusts)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            scope = self.resolved(scope)
        await self.app(scope, receive, send)

    def _trusts(self, address: str | None) -> bool:
        if not address or not self.networks:
            return False
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in network for network in self.networks)

    def resolved(self, scope: dict[str, Any]) -> dict[str, Any]:
        headers = scope.get("headers") or ()
        if not any(name in FORWARDING_HEADERS for name, _value in headers):
            return scope
        peer = (scope.get("client") or (None, 0))[0]
        if not self.trusts(peer):
            return {**scope, "headers": [item for item in headers if item[0] not in FORWARDING_HEADERS]}
        resolved = dict(scope)
        chain = b",".join(value for name, value in headers if name == b"x-forwarded-for").decode("latin-1")
        client = self.client_in(chain)
        if client is not None:
            resolved["client"] = (client, 0)
        protos = [value for name, value in headers if name == b"x-forwarded-proto"]
        if protos:
            # The leftmost: the scheme of the first proxy, where TLS ended (as Django reads it).
            scheme = protos[0].decode("latin-1").split(",")[0].strip().lower()
            if scheme in SCHEMES:
                resolved["scheme"] = scheme
        return resolved

    def client_in(self, chain: str) -> str | None:
        """The client's address in an X-Forwarded-For chain: the last entry that is not a trusted
        proxy; the first entry when every one is; None when that entry is not an address (then
        the peer's stays)."""
        entries = [entry.strip() for entry in chain.split(",") if entry.strip()]
        for entry in reversed(entries):
            if not self.trusts(entry):
                return _address(entry)
        return _address(entries[0]) if entries else None


def _address(entry: str) -> str | None:
    try:
        return str(ipaddress.ip_address(entry))
    except ValueError:
        return None
