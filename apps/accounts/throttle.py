"""Password guessing: how django-axes (config/settings/security.py) names the person trying, and
the page it answers once that person is locked out; the ceiling on guesses at one account from
any number of addresses; and how often the sign-in pages send mail.

Axes counts failures per e-mail address and client address in the schema of the site signed in
to; `username_of` and `locked_out` are the settings AXES_USERNAME_CALLABLE and
AXES_LOCKOUT_CALLABLE. That pair lets nobody lock a person out from elsewhere, and lets someone
with many addresses guess one account without end: `GuessesBackend` (after axes in
AUTHENTICATION_BACKENDS) counts the wrong passwords for an e-mail address of a workspace from
every address, then slows and then stops password sign-in for it, and tells its owner, who signs
in with a link e-mailed to them (apps.accounts.services). The counts, and the mail the pages send,
are kept in the cache (per workspace, like every cache key), under digests of the addresses.
"""

import hashlib
import logging
import math
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlencode

from axes.handlers.proxy import AxesProxyHandler
from axes.helpers import get_client_ip_address, get_cool_off
from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.db.models import Max
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.cache import add_never_cache_headers
from django_tenants.utils import get_public_schema_name

from apps.core import errors
from apps.core.db import connection

logger = logging.getLogger(__name__)


def username_of(request: HttpRequest | None, credentials: dict[str, Any] | None) -> str | None:
    """The address a sign-in is for, as the user model compares addresses (trimmed, lower case):
    `Alice@Acme.example` and `alice@acme.example ` are one person, and one count of failures."""
    value = (credentials or {}).get("username")
    if value is None and request is not None:
        value = request.POST.get("username")
    if value is None:
        return None
    return str(value).strip().lower()


def _time_left(request: HttpRequest) -> timedelta:
    """Until the lockout ends: the cool-off counted from the latest failure that counted (tries
    while locked out are not counted, so they do not push it further)."""
    cool_off = get_cool_off(request) or timedelta(0)
    handler = AxesProxyHandler.get_implementation()
    find = getattr(handler, "get_user_attempts", None)
    if find is None:
        return cool_off
    latest = [
        attempts.aggregate(latest=Max("attempt_time"))["latest"]
        for attempts in find(request, getattr(request, "axes_credentials", None))
    ]
    started = max((when for when in latest if when is not None), default=None)
    if started is None:
        return cool_off
    return max(started + cool_off - timezone.now(), timedelta(0))


def locked_out(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
    """The page in place of the sign-in form (or the admin's) while the address is locked out:
    429 with Retry-After. It says nothing of whether the address has an account here."""
    # Axes passes the form's response and the credentials positionally, in an order that differs
    # between its sync and async middleware paths: neither is needed here.
    left = _time_left(request)
    minutes = max(1, math.ceil(left.total_seconds() / 60))
    sign_in_url = request.path
    next_path = request.POST.get("next") or request.GET.get("next")
    if next_path:
        # The sign-in view checks `next` again before following it.
        sign_in_url += "?" + urlencode({"next": next_path})
    response = render(
        request,
        "accounts/locked_out.html",
        {"minutes": minutes, "sign_in_url": sign_in_url},
        status=429,
    )
    response["Retry-After"] = str(max(1, math.ceil(left.total_seconds())))
    add_never_cache_headers(response)
    return response


def forget_failures(email: str) -> int:
    """Forgets the failed sign-ins of an address in this workspace, from every client address, and
    ends a pause of its password sign-in (the person proved who they are another way: a new
    password; the guesses were at the old one); how many axes records went."""
    address = username_of(None, {"username": email}) or ""
    cache.delete_many([_guess_key(kind, address) for kind in GUESS_KEYS])
    return int(AxesProxyHandler.reset_attempts(username=address) or 0)


def _digest(value: str) -> str:
    # The cache holds no e-mail or client address (CONVENTIONS.md, personal data).
    return hashlib.sha256(value.encode()).hexdigest()


# --- one account guessed from many addresses -------------------------------------------------------
#
# Per e-mail address of a workspace, whoever tries it and from wherever, in a window of
# ATRIUM_ACCOUNTS_GUESSES_WINDOW_MINUTES from its first wrong password:
#   - past ATRIUM_ACCOUNTS_GUESSES_SLOW_AFTER wrong passwords, one try at a time account-wide,
#     ATRIUM_ACCOUNTS_GUESSES_SPACING_SECONDS apart (a try in between is answered "wait", its
#     password unread);
#   - at ATRIUM_ACCOUNTS_GUESSES_CEILING, password sign-in for the address stops: every try is
#     answered "paused", right password or not, until a whole window passes without one (each try
#     while paused keeps it paused, so guessing gets nothing back for as long as it goes on); the
#     owner is told once by e-mail, with a link that signs them in, and can ask for another one.
# Only passwords actually checked are counted (not tries refused by axes or by this ceiling).
# A new password ends it all (`forget_failures`).

GUESS_KEYS = ("count", "since", "clients", "slot", "paused", "told")


def _guess_key(kind: str, email: str, client: str = "") -> str:
    key = f"accounts:guesses:{kind}:{_digest(email)}"
    return f"{key}:{_digest(client)}" if client else key


def _window() -> int:
    return 60 * int(settings.ATRIUM_ACCOUNTS_GUESSES_WINDOW_MINUTES)


@dataclass(frozen=True)
class Refusal:
    """A password try not made. `paused`: sign-in with a password is paused for the address (an
    e-mailed link signs its owner in); otherwise the try came too soon after the last one."""

    paused: bool
    retry_after: int


@dataclass(frozen=True)
class Notice:
    """What the owner of an address whose password sign-in was just paused is told."""

    email: str
    failures: int
    clients: int
    since: datetime


def guess_refusal(email: str) -> Refusal | None:
    """Whether a password try for `email` may not be made now (None: it may)."""
    window = _window()
    paused = _guess_key("paused", email)
    if cache.get(paused) is not None:
        # A try while paused keeps it paused: nothing is learnt from trying on.
        cache.touch(paused, window)
        cache.touch(_guess_key("told", email), window)
        return Refusal(paused=True, retry_after=window)
    failures = cache.get(_guess_key("count", email)) or 0
    spacing = int(settings.ATRIUM_ACCOUNTS_GUESSES_SPACING_SECONDS)
    if failures >= int(settings.ATRIUM_ACCOUNTS_GUESSES_SLOW_AFTER) and not cache.add(
        _guess_key("slot", email), 1, timeout=spacing
    ):
        return Refusal(paused=False, retry_after=spacing)
    return None


def _one_more(key: str, window: int) -> int:
    """One more in this window of `window` seconds, which starts with the key's first count."""
    cache.add(key, 0, timeout=window)
    try:
        return int(cache.incr(key))
    except ValueError:  # expired between add and incr
        cache.set(key, 1, timeout=window)
        return 1


def guess_failed(request: HttpRequest, email: str) -> Notice | None:
    """Counts a wrong password for `email` from the request's client address; the Notice for its
    owner when this one reached the ceiling (once per pause), else None."""
    window = _window()
    cache.add(_guess_key("since", email), time.time(), timeout=window)
    failures = _one_more(_guess_key("count", email), window)
    client = get_client_ip_address(request) or "unknown"
    if cache.add(_guess_key("client", email, client), 1, timeout=window):
        _one_more(_guess_key("clients", email), window)
    if failures < int(settings.ATRIUM_ACCOUNTS_GUESSES_CEILING):
        return None
    cache.set(_guess_key("paused", email), 1, timeout=window)
    if not cache.add(_guess_key("told", email), 1, timeout=window):
        return None
    since = cache.get(_guess_key("since", email)) or time.time()
    logger.warning("password sign-in paused for an address after %s wrong passwords", failures)
    return Notice(
        email=email,
        failures=failures,
        clients=int(cache.get(_guess_key("clients", email)) or 1),
        since=datetime.fromtimestamp(float(since), tz=UTC),
    )


def sign_in_paused(email: str) -> bool:
    """Whether password sign-in for `email` is paused now (an e-mailed link is the way in)."""
    return cache.get(_guess_key("paused", username_of(None, {"username": email}) or "")) is not None


# The request attributes the backend leaves for the receiver below and the sign-in page.
REFUSED = "atrium_guess_refused"
CHECKED = "atrium_password_checked"


def _in_a_workspace() -> bool:
    # The operators' admin (public schema) keeps axes' lockout alone: no e-mailed links there.
    return connection.schema_name != get_public_schema_name()


class GuessesBackend:
    """Before Django's ModelBackend: refuses a password try for an address whose sign-in is slowed
    or paused (PermissionDenied stops `authenticate` there, so the password is never checked),
    and marks the request of a try it lets through, for `counted_failure` to count if it fails.
    It has no `get_user`, as axes' has none: it signs nobody in, so a session never names it."""

    def authenticate(
        self,
        request: HttpRequest | None,
        username: str | None = None,
        password: str | None = None,
        **kwargs: Any,
    ) -> None:
        if request is None or password is None or not _in_a_workspace():
            return None
        email = username_of(request, {"username": username})
        if not email:
            return None
        refusal: Refusal | None = None
        # Redis out of reach: the try goes on to the password (axes' lockout, in PostgreSQL, still
        # holds each address), rather than nobody signing in until it is back.
        with errors.unless_unavailable(logger, "sign-in tried without the ceiling on guesses: %s"):
            refusal = guess_refusal(email)
        if refusal is not None:
            setattr(request, REFUSED, refusal)
            raise PermissionDenied
        setattr(request, CHECKED, email)
        return None


def refusal_of(request: HttpRequest) -> Refusal | None:
    return getattr(request, REFUSED, None)


def not_counted_by_axes(request: HttpRequest, credentials: dict[str, Any] | None) -> bool:
    """AXES_WHITELIST_CALLABLE: a try this ceiling refused was no password check, and is not a
    failure of the address from the client's address either."""
    return refusal_of(request) is not None


def counted_failure(request: HttpRequest | None) -> None:
    """A sign-in failed (Django's `user_login_failed`): a wrong password, counted for its address
    when the password was really checked (this backend let the try through); once it reaches the
    ceiling, the owner is told (apps.accounts.services)."""
    email = getattr(request, CHECKED, None) if request is not None else None
    if request is None or not email:
        return
    notice: Notice | None = None
    with errors.unless_unavailable(logger, "a wrong password was not counted for its address: %s"):
        notice = guess_failed(request, email)
    if notice is not None:
        from apps.accounts import services

        services.sign_in_paused_tell(notice=notice, origin=request.build_absolute_uri("/"))


def paused_page(request: HttpRequest, refusal: Refusal, email: str) -> HttpResponse:
    """The answer to a password try for an address whose sign-in is paused: 429, the way in with
    an e-mailed link. The same for every address, someone's or not."""
    next_path = request.POST.get("next") or request.GET.get("next") or ""
    sign_in_url = request.path + ("?" + urlencode({"next": next_path}) if next_path else "")
    response = render(
        request,
        "accounts/sign_in_paused.html",
        {"email": email, "sign_in_url": sign_in_url, "minutes": _window() // 60},
        status=429,
    )
    response["Retry-After"] = str(refusal.retry_after)
    add_never_cache_headers(response)
    return response


# --- mail the sign-in pages send (a password reset link, a sign-in link) -------------------------


def _key(kind: str, value: str) -> str:
    return f"accounts:password-reset:{kind}:{_digest(value)}"


def _count(key: str) -> int:
    return _one_more(key, int(settings.ATRIUM_ACCOUNTS_PASSWORD_RESET_WINDOW_SECONDS))


def reset_keys(request: HttpRequest, email: str) -> tuple[str, str]:
    """The counters of a mail request: its client address's and its e-mail address's."""
    client = get_client_ip_address(request) or "unknown"
    return _key("client", client), _key("address", username_of(None, {"username": email}) or "")


def mail_request_counted(request: HttpRequest, email: str) -> tuple[bool, bool]:
    """Counts a request of a form that e-mails a link ("Forgot your password?", "E-mail me a
    sign-in link") or asks for the client portal (apps.platform.views.ask_for_access); one count
    for all three: (the client may ask, a mail or a request may go to the address).

    A client asking more than ATRIUM_ACCOUNTS_PASSWORD_RESETS_PER_CLIENT times in the window is
    refused (the form says so: that tells nothing about any address). An address asked for more
    than ATRIUM_ACCOUNTS_PASSWORD_RESETS_PER_ADDRESS times gets no more mail in the window, and
    the form answers as always: the limit holds for every address, someone's or not, so its
    answer tells nothing either. Together they keep the form from sending unlimited mail to one
    inbox or from one client."""
    client_key, address_key = reset_keys(request, email)
    if _count(client_key) > int(settings.ATRIUM_ACCOUNTS_PASSWORD_RESETS_PER_CLIENT):
        return False, False
    return True, _count(address_key) <= int(settings.ATRIUM_ACCOUNTS_PASSWORD_RESETS_PER_ADDRESS)
