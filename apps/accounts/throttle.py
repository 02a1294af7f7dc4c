"""Password guessing: how django-axes (config/settings/security.py) names the person trying, and
the page it answers once that person is locked out; and how often the password-reset form sends
mail.

Axes counts failures per e-mail address and client address in the schema of the site signed in
to; `username_of` and `locked_out` are the settings AXES_USERNAME_CALLABLE and
AXES_LOCKOUT_CALLABLE. The reset form is counted in the cache (per workspace, like every cache key).
"""

import hashlib
import math
from datetime import timedelta
from typing import Any
from urllib.parse import urlencode

from axes.handlers.proxy import AxesProxyHandler
from axes.helpers import get_client_ip_address, get_cool_off
from django.conf import settings
from django.core.cache import cache
from django.db.models import Max
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.cache import add_never_cache_headers


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
    """Forgets the failed sign-ins of an address in this workspace, from every client address
    (the person proved who they are another way: a new password); how many records went."""
    return int(AxesProxyHandler.reset_attempts(username=username_of(None, {"username": email})) or 0)


# --- the password-reset form --------------------------------------------------------------------


def _key(kind: str, value: str) -> str:
    # A digest: the cache holds no e-mail or client address (CONVENTIONS.md, personal data).
    return f"accounts:password-reset:{kind}:{hashlib.sha256(value.encode()).hexdigest()}"


def _count(key: str) -> int:
    """One more in this window; the window starts with the first request of the key."""
    window = int(settings.ATRIUM_ACCOUNTS_PASSWORD_RESET_WINDOW_SECONDS)
    cache.add(key, 0, timeout=window)
    try:
        return int(cache.incr(key))
    except ValueError:  # expired between add and incr
        cache.set(key, 1, timeout=window)
        return 1


def reset_keys(request: HttpRequest, email: str) -> tuple[str, str]:
    """The counters of a reset request: its client address's and its e-mail address's."""
    client = get_client_ip_address(request) or "unknown"
    return _key("client", client), _key("address", username_of(None, {"username": email}) or "")


def reset_request_counted(request: HttpRequest, email: str) -> tuple[bool, bool]:
    """Counts a request of the reset form: (the client may ask, a mail may go to the address).

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
