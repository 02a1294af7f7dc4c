"""The client behind a reverse proxy (apps.core.proxies): a trusted proxy's X-Forwarded-For and
-Proto are believed, anyone else's are dropped before anything reads them. The ASGI layer alone,
without a server; tests/test_deploy_proxy.py and apps/accounts/tests/test_sign_in_behind_a_proxy.py
run it behind real proxies and sockets."""

import asyncio
from typing import Any

import pytest

from apps.core.proxies import TrustedProxiesMiddleware


def seen(
    trusted: list[str], peer: str | None, headers: dict[str, str], scheme: str = "http"
) -> dict[str, Any]:
    """The scope the application behind the middleware gets for a request from `peer`."""
    received: dict[str, Any] = {}

    async def app(scope: Any, receive: Any, send: Any) -> None:
        received.update(scope)

    scope = {
        "type": "http",
        "scheme": scheme,
        "client": (peer, 50123) if peer is not None else None,
        "headers": [(name.lower().encode(), value.encode()) for name, value in headers.items()]
        + [(b"host", b"acme.example")],
    }
    asyncio.run(TrustedProxiesMiddleware(app, trusted)(scope, None, None))
    return received


def header_names(scope: dict[str, Any]) -> set[bytes]:
    return {name for name, _value in scope["headers"]}


FORWARDED = {
    "X-Forwarded-For": "203.0.113.9",
    "X-Forwarded-Proto": "https",
    "X-Forwarded-Host": "evil.example",
}


def test_a_trusted_proxy_names_the_client_and_the_scheme():
    scope = seen(["172.30.80.2"], "172.30.80.2", FORWARDED)

    assert scope["client"] == ("203.0.113.9", 0)
    assert scope["scheme"] == "https"


@pytest.mark.parametrize("peer", ["198.51.100.7", "172.30.80.3", "127.0.0.1"])
def test_anyone_else_is_the_socket_and_their_forwarding_headers_are_dropped(peer):
    scope = seen(["172.30.80.2"], peer, {**FORWARDED, "Forwarded": "for=203.0.113.9;proto=https"})

    assert scope["client"] == (peer, 50123)
    assert scope["scheme"] == "http"
    assert header_names(scope) == {b"host"}


def test_with_no_proxy_configured_nobody_is_believed():
    scope = seen([], "127.0.0.1", FORWARDED)

    assert scope["client"] == ("127.0.0.1", 50123) and header_names(scope) == {b"host"}


def test_what_a_client_writes_left_of_its_proxy_is_not_believed():
    # The client sent "X-Forwarded-For: 10.9.9.9"; its proxy appended the address it saw.
    scope = seen(["172.30.80.2"], "172.30.80.2", {"X-Forwarded-For": "10.9.9.9, 203.0.113.9"})

    assert scope["client"] == ("203.0.113.9", 0)


def test_a_chain_of_trusted_proxies_is_read_from_the_right_to_the_first_untrusted_address():
    chain = {"X-Forwarded-For": "10.9.9.9, 203.0.113.9, 10.1.2.3, 10.1.2.4"}

    scope = seen(["10.1.0.0/16", "172.30.80.2"], "172.30.80.2", chain)

    assert scope["client"] == ("203.0.113.9", 0)


def test_an_entry_that_is_not_an_address_leaves_the_proxy_as_the_client():
    scope = seen(["172.30.80.2"], "172.30.80.2", {"X-Forwarded-For": "unknown"})

    assert scope["client"] == ("172.30.80.2", 50123)


def test_ipv6_proxies_and_clients():
    scope = seen(["2001:db8::/64"], "2001:db8::5", {"X-Forwarded-For": "2001:DB8:FFFF::0009"})

    assert scope["client"] == ("2001:db8:ffff::9", 0)


@pytest.mark.parametrize("proto", ["ftp", "", "javascript"])
def test_a_scheme_other_than_http_or_https_is_ignored(proto):
    scope = seen(["172.30.80.2"], "172.30.80.2", {"X-Forwarded-Proto": proto}, scheme="http")

    assert scope["scheme"] == "http"


def test_a_request_without_forwarding_headers_is_passed_as_it_came():
    scope = seen(["172.30.80.2"], "198.51.100.7", {"Accept": "text/html"})

    assert scope["client"] == ("198.51.100.7", 50123) and header_names(scope) == {b"accept", b"host"}
