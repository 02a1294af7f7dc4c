"""Where the service may go when a person gives it a URL (webhook replies, calendar feeds), and how
it fetches one.

A URL must be https to a public address. Development may allow http (and https) to loopback
(`allow_loopback`, from settings such as WEBHOOKS_ALLOW_LOOPBACK). A URL whose host resolves to a
private, loopback, link-local, shared, reserved or cloud-metadata address is refused.

`check_url` runs when a URL is saved (a host that does not resolve yet is accepted then: DNS may
come later) and again, with `require_resolution=True`, right before it is used; `fetch` (and
`get_first`, for a caller that reads the answer itself) connects only to the addresses that check
resolved (a name re-pointed at a private address in between, DNS rebinding, gets nowhere),
follows no redirect, and reads at most `max_bytes`.

`reached(what)` is said by every place that sends something out of the service that cannot be
taken back (an e-mail, a stored API's request, a paid lookup, a model's answer); `watched()`
tells a caller that may run a piece of work again whether that work already reached out (the
catalogue's dispatcher runs a tool once more after losing a deadlock only when it did not).
"""

import ipaddress
import socket
import ssl
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TypeVar
from urllib.parse import urlsplit, urlunsplit

import urllib3
from django.conf import settings
from django.utils.translation import gettext as _

MAX_URL_LENGTH = 2000
RESOLVE_TIMEOUT_SECONDS = 3.0
# Names that only mean something inside a private network or a cloud.
PRIVATE_NAMES = {"metadata", "metadata.google.internal", "instance-data", "instance-data.ec2.internal"}
PRIVATE_SUFFIXES = (".internal", ".local", ".lan", ".home.arpa", ".intranet", ".corp")
LOOPBACK_NAMES = {"localhost"}

_resolver = ThreadPoolExecutor(max_workers=4, thread_name_prefix="outbound-dns")

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
T = TypeVar("T")

# What the watched piece of work of this thread or task sent outside so far (None: nobody watches).
_reached: ContextVar[list[str] | None] = ContextVar("outbound_reached", default=None)


@contextmanager
def watched() -> Iterator[list[str]]:
    """The list of what the block sends outside the service (see `reached`), filled as it goes."""
    sent: list[str] = []
    token = _reached.set(sent)
    try:
        yield sent
    finally:
        _reached.reset(token)


def reached(what: str) -> None:
    """Something that cannot be taken back is about to leave the service (`what` names it for a
    log: "SMTP", "stored API"); said before sending, since a send that fails halfway may still
    have arrived."""
    sent = _reached.get()
    if sent is not None:
        sent.append(what)


class UnsafeUrl(Exception):
    """A URL the service will not reach; the message says why, for the person who gave it."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class Unreachable(Exception):
    """None of a URL's addresses answered; `kind` names the last error's kind (`get_first`)."""

    def __init__(self, kind: str) -> None:
        super().__init__(kind)
        self.kind = kind


class FetchFailed(Exception):
    """The URL was allowed but could not be read (unreachable, an HTTP error, too long)."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


@dataclass(frozen=True)
class Target:
    url: str
    scheme: str
    host: str
    port: int
    # The addresses the host resolved to; empty when it did not resolve (accepted only on save).
    addresses: tuple[str, ...]


def pinned(target: Target, url: str) -> tuple[str, str, dict[str, str]]:
    """How to send `url` (the checked `target`'s, or one with more query) to the address the check
    resolved, so DNS cannot answer differently in between: the URL with that address for its host,
    the Host header, and the request's extensions (the TLS server name of an https URL, so the
    certificate is still the host name's)."""
    parts = urlsplit(url)
    address = target.addresses[0]
    host = f"[{address}]" if ":" in address else address
    name = parts.hostname or ""
    name = f"[{name}]" if ":" in name else name
    host_header = name if parts.port is None else f"{name}:{parts.port}"
    sent = urlunsplit((parts.scheme, f"{host}:{target.port}", parts.path or "/", parts.query, ""))
    return sent, host_header, ({"sni_hostname": target.host} if target.scheme == "https" else {})


def _resolve(host: str, port: int) -> list[IPAddress]:
    def lookup() -> list[IPAddress]:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        return [ipaddress.ip_address(str(info[4][0]).split("%", 1)[0]) for info in infos]

    try:
        return _resolver.submit(lookup).result(timeout=RESOLVE_TIMEOUT_SECONDS)
    except (OSError, UnicodeError, ValueError, FutureTimeout):
        return []


def _unmapped(address: IPAddress) -> IPAddress:
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return address.ipv4_mapped
        if address.sixtofour is not None:
            return address.sixtofour
    return address


def without_credentials(url: str) -> str:
    """`url` without a user name or password in it (`https://ana:pw@host/` is `https://host/`):
    what an answer, an error, a log or a kept record may hold of an address someone gave."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))


def check_url(
    url: str, *, noun: str, allow_loopback: bool, require_resolution: bool = False, allow_http: bool = False
) -> Target:
    """The checked target of `url`, or UnsafeUrl. `noun` names the URL in messages ("The webhook
    URL"). `allow_http`: plain http to public addresses too (a public web page read, which many
    sites still serve over http only); elsewhere http is for loopback in development."""
    url = url.strip()
    if len(url) > MAX_URL_LENGTH:
        raise UnsafeUrl(
            _("%(noun)s is longer than %(max)d characters.") % {"noun": noun, "max": MAX_URL_LENGTH}
        )
    if any(char.isspace() or ord(char) < 32 for char in url):
        raise UnsafeUrl(_("%(noun)s must not contain spaces or control characters.") % {"noun": noun})
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as error:
        raise UnsafeUrl(_("%(noun)s is not a valid URL.") % {"noun": noun}) from error
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").rstrip(".").lower()
    if scheme not in {"https", "http"} or not parts.netloc:
        raise UnsafeUrl(_("%(noun)s must be an absolute https:// URL.") % {"noun": noun})
    if not host:
        raise UnsafeUrl(_("%(noun)s must name a host.") % {"noun": noun})
    port = port or (443 if scheme == "https" else 80)

    if host in PRIVATE_NAMES or host.endswith(PRIVATE_SUFFIXES):
        raise UnsafeUrl(
            _("“%(host)s” is a private host name; only public hosts are reached.") % {"host": host}
        )
    if host in LOOPBACK_NAMES or host.endswith(".localhost"):
        addresses = [ipaddress.ip_address("127.0.0.1")]
    else:
        addresses = _resolve(host, port)

    for address in addresses:
        plain = _unmapped(address)
        if plain.is_loopback:
            if not allow_loopback:
                raise UnsafeUrl(
                    _("“%(host)s” is a loopback address; only public addresses are reached.") % {"host": host}
                )
        elif not plain.is_global or plain.is_multicast:
            raise UnsafeUrl(
                _(
                    "“%(host)s” resolves to %(address)s, a private, link-local or otherwise non-public "
                    "address; only public addresses are reached."
                )
                % {"host": host, "address": address}
            )
    all_loopback = bool(addresses) and all(_unmapped(address).is_loopback for address in addresses)
    if scheme == "http" and not (allow_http or (allow_loopback and all_loopback)):
        raise UnsafeUrl(
            _("%(noun)s must use https (http is accepted only for loopback in development).") % {"noun": noun}
        )
    if require_resolution and not addresses:
        raise UnsafeUrl(_("“%(host)s” does not resolve to any address.") % {"host": host})
    return Target(url=url, scheme=scheme, host=host, port=port, addresses=tuple(str(a) for a in addresses))


def check_given(
    url: str, *, noun: str, refused: Callable[[str], Exception], require_resolution: bool = False
) -> Target:
    """`check_url` of a URL a person gave the service (a webhook's, a calendar feed's), under its
    one rule for loopback (settings.WEBHOOKS_ALLOW_LOOPBACK); a refusal is raised as the error
    `refused` makes of its message."""
    try:
        return check_url(
            url,
            noun=noun,
            allow_loopback=settings.WEBHOOKS_ALLOW_LOOPBACK,
            require_resolution=require_resolution,
        )
    except UnsafeUrl as unsafe:
        raise refused(unsafe.message) from None


def get_first(
    target: Target,
    read: Callable[[urllib3.BaseHTTPResponse], T],
    *,
    headers: dict[str, str] | None = None,
    timeout: float = 10.0,
    deadline: float | None = None,
    ssl_context: ssl.SSLContext | None = None,
) -> T:
    """GET a URL checked with `require_resolution=True` from the addresses it resolved to, in
    turn, following no redirect: what `read` makes of the first answer (its connection released
    after). Each address has `timeout` seconds, or, with a `deadline` (time.monotonic()'s), what
    is left of it. Unreachable (naming the last error's kind) when no address answered."""
    parts = urlsplit(target.url)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    sent = {"Host": parts.netloc, **(headers or {})}
    failure: Exception | None = None
    for address in target.addresses:
        limit = urllib3.Timeout(total=timeout)
        if deadline is not None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            limit = urllib3.Timeout(connect=remaining, read=remaining, total=remaining)
        pool: urllib3.HTTPConnectionPool
        if target.scheme == "https":
            pool = urllib3.HTTPSConnectionPool(
                host=address,
                port=target.port,
                timeout=limit,
                retries=False,
                maxsize=1,
                ssl_context=ssl_context or ssl.create_default_context(),
                server_hostname=target.host,
                assert_hostname=target.host,
            )
        else:
            pool = urllib3.HTTPConnectionPool(
                host=address, port=target.port, timeout=limit, retries=False, maxsize=1
            )
        try:
            response = pool.urlopen("GET", path, headers=sent, redirect=False, preload_content=False)
            try:
                return read(response)
            finally:
                response.release_conn()
        except urllib3.exceptions.HTTPError as error:
            failure = error
        finally:
            pool.close()
    raise Unreachable(type(failure).__name__)


def fetch(
    target: Target,
    *,
    headers: dict[str, str] | None = None,
    timeout: float = 10.0,
    max_bytes: int = 5 * 1024 * 1024,
) -> bytes:
    """GET a URL checked with `require_resolution=True`: its body, or FetchFailed (an HTTP status
    other than 200 carries `status`)."""

    def body(response: urllib3.BaseHTTPResponse) -> bytes:
        if response.status != 200:
            raise FetchFailed(
                _("the server answered HTTP %(status)d") % {"status": response.status}, response.status
            )
        return bytes(response.read(max_bytes + 1, decode_content=True))

    try:
        read = get_first(target, body, headers={"User-Agent": "Atrium", **(headers or {})}, timeout=timeout)
    except Unreachable as unreachable:
        raise FetchFailed(_("it could not be reached (%(error)s)") % {"error": unreachable.kind}) from None
    if len(read) > max_bytes:
        raise FetchFailed(_("the answer is longer than %(max)d bytes") % {"max": max_bytes})
    return read
