"""Bluesky's AT Protocol, through the atproto SDK: a session made with the handle and an app
password (XRPC com.atproto.server.createSession), then an app.bsky.feed.post record written to
the account's repository (com.atproto.repo.createRecord) with a facet per link. Its record key is
made from the post's own key and time, so a retried post meets its first copy (the PDS refuses a
second record under one key) instead of posting twice. 300 graphemes at most, checked before."""

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from django.utils.translation import gettext as _

from apps.core import outbound
from apps.social import lib
from apps.social.errors import SocialProviderRefused, SocialProviderUnavailable
from apps.social.providers.base import Identity, Login, Published, checked_server

# The SDK (atproto) is imported where it is used: its hundreds of models would cost a second of
# every process's start.
if TYPE_CHECKING:
    from atproto import Client

POST = "app.bsky.feed.post"
TIMEOUT_SECONDS = 15
# base32-sortable, the alphabet of a TID record key.
_TID_ALPHABET = "234567abcdefghijklmnopqrstuvwxyz"


class BlueskyNetwork:
    key = "bluesky"
    label = "Bluesky"
    limit = 300
    unit = "graphemes"
    # The record's text: at most 300 graphemes and 3000 UTF-8 bytes (app.bsky.feed.post's lexicon).
    max_bytes = 3000

    def length(self, text: str) -> int:
        return lib.graphemes(text)

    def _session(self, login: Login) -> tuple["Client", str, str]:
        """A signed-in client, the account's DID and handle."""
        from atproto import Client
        from atproto_client.request import Request

        request = Request(timeout=TIMEOUT_SECONDS)
        # Redirects are not followed: a server reached is one checked (checked_server).
        request._client.follow_redirects = False
        client = Client(base_url=login.server, request=request)
        with _answered():
            client.login(login.handle, login.secret, fetch_bsky_profile=False)
        session = client._session
        if session is None:
            raise SocialProviderRefused(network="Bluesky", problem=_("no session was made"))
        # The session may name the account's own PDS: reached only where any server may be.
        pds = client._base_url.removesuffix("/xrpc")
        if pds.rstrip("/") != login.server.rstrip("/"):
            checked_server(pds)
        return client, session.did, session.handle

    def verify(self, login: Login) -> Identity:
        _client, did, handle = self._session(login)
        return Identity(handle=handle, remote_id=did, profile_url=f"https://bsky.app/profile/{handle}")

    def publish(self, login: Login, *, text: str, key: str, created_at: float) -> Published:
        from atproto import models

        client, did, handle = self._session(login)
        facets = [
            models.AppBskyRichtextFacet.Main(
                index=models.AppBskyRichtextFacet.ByteSlice(byte_start=span.start, byte_end=span.end),
                features=[models.AppBskyRichtextFacet.Link(uri=span.url)],
            )
            for span in lib.link_spans(text)
        ]
        record = models.AppBskyFeedPost.Record(
            text=text,
            created_at=datetime.now(UTC).isoformat().replace("+00:00", "Z"),
            facets=facets or None,
        )
        rkey = record_key(key, created_at)
        outbound.reached("Bluesky post")
        try:
            with _answered():
                written = client.com.atproto.repo.create_record(
                    models.ComAtprotoRepoCreateRecord.Data(
                        repo=did, collection=POST, record=record, rkey=rkey
                    )
                )
            uri = written.uri
        except SocialProviderRefused:
            # A record already under this key: the first try went through and its answer was lost.
            uri = _existing(client, did, rkey)
            if uri is None:
                raise
        return Published(remote_id=uri, url=f"https://bsky.app/profile/{handle}/post/{rkey}")


def record_key(key: str, created_at: float) -> str:
    """A TID (13 base32-sortable characters: microseconds since 1970, then a 10-bit clock id) made
    from the post's time and key: the same for every try of one post."""
    micros = int(created_at * 1_000_000) & ((1 << 53) - 1)
    clock = int.from_bytes(hashlib.sha256(key.encode()).digest()[:2], "big") & 0x3FF
    value = (micros << 10) | clock
    return "".join(_TID_ALPHABET[(value >> (5 * (12 - i))) & 31] for i in range(13))


def _existing(client: "Client", did: str, rkey: str) -> str | None:
    from atproto import models
    from atproto.exceptions import AtProtocolError

    try:
        found = client.com.atproto.repo.get_record(
            models.ComAtprotoRepoGetRecord.Params(repo=did, collection=POST, rkey=rkey)
        )
    except AtProtocolError:
        return None
    return str(found.uri)


@contextmanager
def _answered() -> Iterator[None]:
    """The SDK's failures in the app's errors: 429, 5xx and the network's are worth a retry, any
    other answer is a refusal."""
    from atproto.exceptions import AtProtocolError, NetworkError, RequestErrorBase

    try:
        yield
    except Exception as error:
        if isinstance(error, RequestErrorBase) and error.response is not None:
            status = error.response.status_code
            problem = str(error)[:300]
            if status == 429 or status >= 500:
                raise SocialProviderUnavailable(network="Bluesky", problem=problem) from error
            raise SocialProviderRefused(network="Bluesky", problem=problem) from error
        if isinstance(error, NetworkError):
            raise SocialProviderUnavailable(network="Bluesky", problem=_("not reachable")) from error
        if isinstance(error, AtProtocolError):
            raise SocialProviderRefused(network="Bluesky", problem=type(error).__name__) from error
        raise
