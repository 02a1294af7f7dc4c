"""Where webhook replies may go, and how they are signed (SPEC 5.3, 6.1).

A key's `response_url` must be https to a public address. Development may allow http (and https)
to loopback (`settings.WEBHOOKS_ALLOW_LOOPBACK`). A URL whose host resolves to a private,
loopback, link-local, shared, reserved or cloud-metadata address is refused.

The check runs twice: when the URL is saved (a host that does not resolve yet is accepted then:
DNS may come later), and again before every delivery with `require_resolution=True`, whose
addresses the sender must connect to (a name could be re-pointed at a private address between
the two: DNS rebinding).
"""

import hashlib
import hmac
import ipaddress
import socket
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings
from django.utils.translation import gettext as _

from apps.apikeys.errors import UnsafeWebhookUrl

MAX_URL_LENGTH = 2000
RESOLVE_TIMEOUT_SECONDS = 3.0
# Names that only mean something inside a private network or a cloud.
PRIVATE_NAMES = {"metadata", "metadata.google.internal", "instance-data", "instance-data.ec2.internal"}
PRIVATE_SUFFIXES = (".internal", ".local", ".lan", ".home.arpa", ".intranet", ".corp")
LOOPBACK_NAMES = {"localhost"}

_resolver = ThreadPoolExecutor(max_workers=4, thread_name_prefix="webhook-dns")

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


@dataclass(frozen=True)
class WebhookTarget:
    url: str
    scheme: str
    host: str
    port: int
    # The addresses the host resolved to; empty when it did not resolve (accepted only on save).
    addresses: tuple[str, ...]


def _refuse(message: str) -> UnsafeWebhookUrl:
    return UnsafeWebhookUrl(message, details={"response_url": [message]})


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


def check_response_url(url: str, *, require_resolution: bool = False) -> WebhookTarget:
    """The checked target of `url`, or UnsafeWebhookUrl (a 422 naming `response_url`)."""
    url = url.strip()
    if len(url) > MAX_URL_LENGTH:
        raise _refuse(_("The webhook URL is longer than %(max)d characters.") % {"max": MAX_URL_LENGTH})
    if any(char.isspace() or ord(char) < 32 for char in url):
        raise _refuse(_("The webhook URL must not contain spaces or control characters."))
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as error:
        raise _refuse(_("The webhook URL is not a valid URL.")) from error
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").rstrip(".").lower()
    if scheme not in {"https", "http"} or not parts.netloc:
        raise _refuse(_("The webhook URL must be an absolute https:// URL."))
    if not host:
        raise _refuse(_("The webhook URL must name a host."))
    port = port or (443 if scheme == "https" else 80)
    allow_loopback = settings.WEBHOOKS_ALLOW_LOOPBACK

    if host in PRIVATE_NAMES or host.endswith(PRIVATE_SUFFIXES):
        raise _refuse(
            _("“%(host)s” is a private host name; webhooks go only to public hosts.") % {"host": host}
        )
    if host in LOOPBACK_NAMES or host.endswith(".localhost"):
        addresses = [ipaddress.ip_address("127.0.0.1")]
    else:
        addresses = _resolve(host, port)

    for address in addresses:
        plain = _unmapped(address)
        if plain.is_loopback:
            if not allow_loopback:
                raise _refuse(
                    _("“%(host)s” is a loopback address; webhooks go only to public addresses.")
                    % {"host": host}
                )
        elif not plain.is_global or plain.is_multicast:
            raise _refuse(
                _(
                    "“%(host)s” resolves to %(address)s, a private, link-local or otherwise non-public "
                    "address; webhooks go only to public addresses."
                )
                % {"host": host, "address": address}
            )
    all_loopback = bool(addresses) and all(_unmapped(address).is_loopback for address in addresses)
    if scheme == "http" and not (allow_loopback and all_loopback):
        raise _refuse(
            _("The webhook URL must use https (http is accepted only for loopback in development).")
        )
    if require_resolution and not addresses:
        raise _refuse(_("“%(host)s” does not resolve to any address.") % {"host": host})
    return WebhookTarget(
        url=url, scheme=scheme, host=host, port=port, addresses=tuple(str(a) for a in addresses)
    )


def signature(secret: str, body: bytes) -> str:
    """SPEC 5.3: lowercase hex HMAC-SHA256 of the raw body, keyed with the signing secret's UTF-8
    bytes (the whole string, prefix included)."""
    return hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def signature_matches(secret: str, body: bytes, candidate: str) -> bool:
    return hmac.compare_digest(signature(secret, body), candidate.strip().lower())
