"""Dynamic client registration (RFC 7591): open to anonymous clients, but validated and bounded.

The toolkit turns metadata into a client; these rules come first and say no, with the RFC 7591
error codes, to what Atrium does not offer:

- grant types within authorization_code and refresh_token; response types within code;
- redirect URIs: https anywhere; http only on 127.0.0.1, [::1] or localhost (any port); or a
  custom scheme of settings.OAUTH_REDIRECT_URI_SCHEMES (desktop and editor clients); never a
  fragment or user information; at most MAX_REDIRECT_URIS of at most MAX_URI_LENGTH characters;
- token endpoint authentication none (public client), client_secret_basic or
  client_secret_post (confidential client);
- scopes, if given, among the workspace's;
- a bounded body and client name; JSON read as every door reads it (`apps.core.json_input`:
  no deep nesting, NUL, lone surrogates or numbers out of range);
- per client address, settings.OAUTH_REGISTRATIONS_PER_HOUR registrations an hour.
"""

import math
import time
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import ValidationError
from oauth2_provider.settings import oauth2_settings
from oauth2_provider.validators import AllowedURIValidator

from apps.core import json_input

MAX_BODY_BYTES = 16 * 1024
MAX_REDIRECT_URIS = 10
MAX_URI_LENGTH = 2000
MAX_CLIENT_NAME_LENGTH = 100
GRANT_TYPES = ("authorization_code", "refresh_token")
RESPONSE_TYPES = ("code",)
AUTH_METHODS = ("none", "client_secret_basic", "client_secret_post")
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "::1", "localhost"})
RATE_WINDOW_SECONDS = 3600


class RegistrationRefused(Exception):
    """An RFC 7591 §3.2.2 error: `error` is the code, `description` says what to change."""

    def __init__(self, error: str, description: str, status: int = 400) -> None:
        super().__init__(description)
        self.error = error
        self.description = description
        self.status = status


def _refuse(description: str) -> RegistrationRefused:
    return RegistrationRefused("invalid_client_metadata", description)


def parse(body: bytes) -> dict[str, Any]:
    if len(body) > MAX_BODY_BYTES:
        raise RegistrationRefused(
            "invalid_client_metadata", f"The registration is larger than {MAX_BODY_BYTES} bytes.", status=413
        )
    try:
        data = json_input.loads(body)
    except json_input.JsonRefused as refused:
        if refused.syntax:
            raise _refuse("The body must be a JSON object (application/json).") from None
        raise _refuse(f"{refused.message}.") from None
    if not isinstance(data, dict):
        raise _refuse("The body must be a JSON object (application/json).")
    return data


def check_metadata(data: dict[str, Any]) -> None:
    """Raises RegistrationRefused for the first thing Atrium does not accept in `data`."""
    _check_string_list(data, "grant_types", allowed=GRANT_TYPES, default=["authorization_code"])
    if "authorization_code" not in data.get("grant_types", ["authorization_code"]):
        raise _refuse("grant_types must include authorization_code.")
    _check_string_list(data, "response_types", allowed=RESPONSE_TYPES, default=["code"])

    method = data.get("token_endpoint_auth_method", "client_secret_basic")
    if method not in AUTH_METHODS:
        raise _refuse(f"token_endpoint_auth_method must be one of {', '.join(AUTH_METHODS)}.")

    name = data.get("client_name", "")
    if not isinstance(name, str) or len(name) > MAX_CLIENT_NAME_LENGTH:
        raise _refuse(f"client_name must be a string of at most {MAX_CLIENT_NAME_LENGTH} characters.")
    if any(ord(char) < 32 or ord(char) == 127 for char in name):
        raise _refuse("client_name must not contain control characters.")

    scope = data.get("scope")
    if scope is not None:
        known = set(oauth2_settings.SCOPES)
        if not isinstance(scope, str) or not set(scope.split()) <= known:
            raise _refuse(f"scope must be a space-separated list among {', '.join(sorted(known))}.")

    uris = data.get("redirect_uris")
    if not isinstance(uris, list) or not uris:
        raise RegistrationRefused("invalid_redirect_uri", "redirect_uris must be a non-empty array.")
    if len(uris) > MAX_REDIRECT_URIS:
        raise RegistrationRefused(
            "invalid_redirect_uri", f"At most {MAX_REDIRECT_URIS} redirect URIs may be registered."
        )
    for uri in uris:
        check_redirect_uri(uri)


def _check_string_list(
    data: dict[str, Any], field: str, *, allowed: tuple[str, ...], default: list[str]
) -> None:
    values = data.get(field, default)
    if not isinstance(values, list) or not values or not all(isinstance(value, str) for value in values):
        raise _refuse(f"{field} must be a non-empty array of strings.")
    unsupported = [value for value in values if value not in allowed]
    if unsupported:
        raise _refuse(f"{field} {', '.join(unsupported)} not supported; only {', '.join(allowed)}.")


def check_redirect_uri(uri: Any) -> None:
    def refuse(reason: str) -> RegistrationRefused:
        shown = uri if isinstance(uri, str) and len(uri) <= 200 else "a redirect URI"
        return RegistrationRefused("invalid_redirect_uri", f"{shown}: {reason}")

    if not isinstance(uri, str) or not uri:
        raise refuse("each redirect URI must be a non-empty string.")
    if len(uri) > MAX_URI_LENGTH:
        raise refuse(f"longer than {MAX_URI_LENGTH} characters.")
    if any(char.isspace() or ord(char) < 32 or ord(char) == 127 for char in uri):
        raise refuse("must not contain spaces or control characters.")
    if "#" in uri:
        raise refuse("must not contain a fragment (#).")
    try:
        parts = urlsplit(uri)
        parts.port  # noqa: B018  (raises on a malformed port)
    except ValueError as error:
        raise refuse("is not a valid URI.") from error
    scheme = parts.scheme.lower()
    if parts.username is not None or parts.password is not None:
        raise refuse("must not contain user information (user@host).")
    if scheme == "https":
        if not parts.hostname:
            raise refuse("needs a host.")
    elif scheme == "http":
        if parts.hostname not in LOOPBACK_HOSTS:
            raise refuse("http is only allowed on 127.0.0.1, [::1] or localhost; use https.")
    elif scheme not in settings.OAUTH_REDIRECT_URI_SCHEMES:
        allowed = ", ".join(["https", "http (loopback)", *settings.OAUTH_REDIRECT_URI_SCHEMES])
        raise refuse(f"the scheme {scheme or '(none)'} is not allowed; use one of {allowed}.")
    try:
        AllowedURIValidator(
            ["https", "http", *settings.OAUTH_REDIRECT_URI_SCHEMES],
            name="redirect URI",
            allow_path=True,
            allow_query=True,
        )(uri)
    except ValidationError as error:
        raise refuse("is not a valid URI.") from error


def take_registration_slot(address: str) -> int | None:
    """Counts a registration attempt from `address`; returns None when it may go ahead, or how
    many seconds to wait. A fixed hourly window per address, kept in the cache (per workspace)."""
    limit = settings.OAUTH_REGISTRATIONS_PER_HOUR
    window = int(time.time() // RATE_WINDOW_SECONDS)
    key = f"oauth:registrations:{address}:{window}"
    cache.add(key, 0, timeout=RATE_WINDOW_SECONDS + 60)
    try:
        count = cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.set(key, 1, timeout=RATE_WINDOW_SECONDS + 60)
        count = 1
    if count <= limit:
        return None
    return max(1, math.ceil((window + 1) * RATE_WINDOW_SECONDS - time.time()))
