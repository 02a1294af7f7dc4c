"""Mastodon's REST API, through Mastodon.py: the app's and the account's credentials checked
(GET /api/v1/apps/verify_credentials, /api/v1/accounts/verify_credentials), a status posted
(POST /api/v1/statuses) with an Idempotency-Key header, which Mastodon keeps for an hour so a
retried post is not posted twice."""

from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit

from django.utils.translation import gettext as _
from mastodon import (
    Mastodon,
    MastodonAPIError,
    MastodonNetworkError,
    MastodonRatelimitError,
    MastodonServerError,
)

from apps.core import outbound
from apps.social import lib
from apps.social.errors import SocialProviderRefused, SocialProviderUnavailable
from apps.social.providers.base import Identity, Login, Published

TIMEOUT_SECONDS = 15


class MastodonNetwork:
    key = "mastodon"
    label = "Mastodon"
    # Mastodon's default; an instance may allow more.
    limit = 500
    unit = "characters"
    max_bytes = 0

    def length(self, text: str) -> int:
        return lib.mastodon_length(text)

    def _client(self, login: Login) -> Mastodon:
        return Mastodon(
            access_token=login.secret,
            api_base_url=login.server,
            version_check_mode="none",
            ratelimit_method="throw",
            request_timeout=TIMEOUT_SECONDS,
        )

    def verify(self, login: Login) -> Identity:
        client = self._client(login)
        with _answered():
            client.app_verify_credentials()
            account = client.account_verify_credentials()
        if not _has(account, "acct", "id"):
            raise SocialProviderRefused(network="Mastodon", problem=_("its answer is not an account"))
        return Identity(
            handle=_handle(str(account["acct"]), login.server),
            remote_id=str(account["id"]),
            profile_url=str(account.get("url") or ""),
        )

    def publish(self, login: Login, *, text: str, key: str, created_at: float) -> Published:
        client = self._client(login)
        outbound.reached("Mastodon status")
        with _answered():
            status = client.status_post(text, idempotency_key=key, visibility="public")
        if not _has(status, "id"):
            # Whether it went out is unknown: a retry carries the same key, so it cannot post twice.
            raise SocialProviderUnavailable(network="Mastodon", problem=_("its answer is not a status"))
        return Published(remote_id=str(status["id"]), url=str(status.get("url") or status.get("uri") or ""))


@contextmanager
def _answered() -> Iterator[None]:
    """Mastodon.py's failures in the app's errors: 429, 5xx and the network's are worth a retry, any
    other answer is a refusal."""
    try:
        yield
    except Exception as error:
        if isinstance(error, MastodonRatelimitError):
            raise SocialProviderUnavailable(network="Mastodon", problem=_("rate limited (429)")) from error
        if isinstance(error, MastodonNetworkError):
            raise SocialProviderUnavailable(network="Mastodon", problem=_("not reachable")) from error
        if isinstance(error, MastodonServerError):
            raise SocialProviderUnavailable(network="Mastodon", problem=_status(error)) from error
        if isinstance(error, MastodonAPIError):
            raise SocialProviderRefused(network="Mastodon", problem=_status(error)) from error
        raise


def _has(answer: object, *names: str) -> bool:
    """Whether a JSON answer is an object with every one of `names` set (a server may answer
    anything with a 200: an error page's JSON, a list)."""
    return isinstance(answer, dict) and all(answer.get(name) not in (None, "") for name in names)


def _handle(acct: str, server: str) -> str:
    """@name@instance: a local account's acct has no instance, the server's host is it."""
    return f"@{acct}" if "@" in acct else f"@{acct}@{urlsplit(server).hostname}"


def _status(error: MastodonAPIError) -> str:
    parts = error.args
    status = parts[1] if len(parts) > 1 else ""
    said = parts[3] if len(parts) > 3 else ""
    return f"HTTP {status}: {said}"[:300] if said else f"HTTP {status}"
