"""The one interface every network's adapter fills, and the checks they share: which server
addresses may be reached (https to public addresses; http on loopback only where the settings
allow it, i.e. under test settings) and a post's length against the network's limit."""

from dataclasses import dataclass
from typing import Protocol

from django.conf import settings
from django.utils.translation import gettext as _

from apps.core import outbound
from apps.core.clean import shows_something
from apps.social.errors import SocialServerRefused, SocialTextEmpty, SocialTextTooLong


@dataclass(frozen=True)
class Login:
    server: str  # the checked base URL, without a trailing slash
    handle: str  # what the person typed (Bluesky's handle; Mastodon's is learnt from the server)
    secret: str  # the access token or app password


@dataclass(frozen=True)
class Identity:
    handle: str
    remote_id: str
    profile_url: str


@dataclass(frozen=True)
class Published:
    remote_id: str
    url: str


class Network(Protocol):
    key: str
    label: str
    limit: int
    unit: str
    # The most UTF-8 bytes the network takes besides `limit` (0: none): Bluesky's 3000.
    max_bytes: int

    def length(self, text: str) -> int: ...

    def verify(self, login: Login) -> Identity:
        """Who the credential is, or SocialProviderRefused / SocialProviderUnavailable."""
        ...

    def publish(self, login: Login, *, text: str, key: str, created_at: float) -> Published:
        """Posts `text` once: `key` is the same on every try of one post, so a try whose answer was
        lost, tried again, does not post twice. `created_at` (epoch seconds) is the post's."""
        ...


def checked_server(url: str) -> str:
    """The server's base URL once it is one the service may reach, or SocialServerRefused."""
    try:
        outbound.check_url(url, noun=_("The server address"), allow_loopback=settings.WEBHOOKS_ALLOW_LOOPBACK)
    except outbound.UnsafeUrl as refused:
        raise SocialServerRefused(why=refused.message) from refused
    return url.strip().rstrip("/")


def check_length(network: Network, text: str) -> None:
    if not shows_something(text):  # spaces, or zero-width characters a reader would not see
        raise SocialTextEmpty()
    length = network.length(text)
    if length > network.limit:
        raise SocialTextTooLong(
            length=length,
            unit=network.unit,
            network=network.label,
            limit=network.limit,
            over=length - network.limit,
        )
    size = len(text.encode())
    if network.max_bytes and size > network.max_bytes:
        raise SocialTextTooLong(
            length=size,
            unit="bytes",
            network=network.label,
            limit=network.max_bytes,
            over=size - network.max_bytes,
        )
