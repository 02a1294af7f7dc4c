"""Password guessing: how django-axes (config/settings/security.py) names the person trying, and
the page it answers once that person is locked out.

Axes counts failures per e-mail address and client address in the schema of the site signed in
to; these two functions are the settings AXES_USERNAME_CALLABLE and AXES_LOCKOUT_CALLABLE.
"""

import math
from datetime import timedelta
from typing import Any
from urllib.parse import urlencode

from axes.handlers.proxy import AxesProxyHandler
from axes.helpers import get_cool_off
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
