"""Stored APIs (listStoredApis, saveStoredApi, deleteStoredApi) and the calls made to them
(executeApiCall): an outside HTTP API the workspace's admins declare once, which its people then
call by name, the service adding the credential.

- A stored API has a base URL, the hosts a call may reach (the base URL's always among them), the
  methods it allows, and a credential: none, a bearer token, basic (a user name and password), a
  header of its own, or a query parameter. The credential is entered by the person on a page of
  the workspace (apps.catalogue.secure_input), kept encrypted (apps.core.encryption), and never
  returned, logged or kept anywhere else (not in the call log, not in the dispatcher's).
- A call's path is joined to the base URL (or is a full URL on one of the hosts). The address is
  then checked: same scheme as the base URL, no user name or password in it, its host on the list,
  and the rules of every URL a person gives the service (apps.core.outbound: https to a public
  address; loopback only where settings.WEBHOOKS_ALLOW_LOOPBACK allows it, as for webhooks). DNS
  is resolved at the call and the connection made to the checked address. A redirect is followed
  (at most ATRIUM_STORED_API_MAX_REDIRECTS) only after the same checks of where it leads. Anything
  refused before the first byte is sent is an error, and nothing is sent.
- The answer is read up to a byte cap (ATRIUM_STORED_API_MAX_RESPONSE_BYTES, or less if the call
  asks) within a time limit; JSON is returned parsed, text as text, cut at the cap with
  `truncated`; binary answers are not returned, only their size.
- Every call answered is a `StoredApiCall` row (who, which API, the method, the address without a
  query credential, the status, size and time), besides the dispatcher's ToolCall row; a call that
  failed (refused, no answer) is the ToolCall row alone, with its error code (the tool's
  transaction, and the row with it, is rolled back).
"""

import base64
import json
import os
import re
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin, urlsplit

import httpx
from django.conf import settings
from django.db.models.functions import Lower
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.core import clean, encryption, outbound
from apps.core.actors import Actor, require
from apps.core.errors import invalid
from apps.platform import errors
from apps.platform.models import StoredApi, StoredApiCall
from apps.platform.permissions import PlatformPerm

METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE")
# Methods that change nothing at the API (what a call without confirmation may use).
SAFE_METHODS = frozenset({"GET", "HEAD"})
MAX_HOSTS = 20
HOST = re.compile(r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*(:[0-9]{1,5})?$")
HEADER_NAME = re.compile(r"^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$")
# Headers a call may not set: the credential's, and the connection's own.
REFUSED_HEADERS = frozenset(
    {
        "authorization",
        "proxy-authorization",
        "cookie",
        "host",
        "content-length",
        "transfer-encoding",
        "connection",
        "keep-alive",
        "te",
        "trailer",
        "upgrade",
        "x-api-key",
    }
)
# The answer's headers returned to the caller (never a Set-Cookie).
SHOWN_HEADERS = ("content-type", "content-length", "location", "retry-after", "etag", "last-modified", "link")
TEXT_TYPES = ("json", "xml", "javascript", "x-www-form-urlencoded", "csv", "yaml", "graphql")
USER_AGENT = "Atrium-Stored-API"


# --- stored APIs -----------------------------------------------------------------------------------


def _default_port(scheme: str) -> int:
    return 443 if scheme == "https" else 80


def host_key(scheme: str, host: str, port: int | None) -> str:
    """The host as the list keeps it: lower case, with ":port" where not the scheme's default."""
    host = host.rstrip(".").lower()
    return host if port is None or port == _default_port(scheme) else f"{host}:{port}"


def _base_url(value: str) -> tuple[str, str]:
    """The base URL, checked as every URL a person gives (no query, no user name), and its host."""
    url = clean.text(value, field="baseUrl", limit=outbound.MAX_URL_LENGTH, required=True)
    try:
        target = outbound.check_url(
            url, noun=_("The base URL"), allow_loopback=settings.WEBHOOKS_ALLOW_LOOPBACK
        )
    except outbound.UnsafeUrl as unsafe:
        raise invalid("baseUrl", unsafe.message) from None
    parts = urlsplit(target.url)
    if parts.username is not None or parts.password is not None:
        raise invalid(
            "baseUrl", _("must not hold a user name or password: give the credential with authKind")
        )
    if parts.query or parts.fragment:
        raise invalid("baseUrl", _("must not have a query or a fragment: calls give their own query"))
    return target.url.rstrip("/"), host_key(target.scheme, target.host, parts.port)


def _hosts(values: list[str], base_host: str) -> list[str]:
    hosts = [base_host]
    for value in values:
        host = value.strip().rstrip(".").lower()
        if not HOST.match(host):
            raise errors.BadHostName(host=value)
        if host not in hosts:
            hosts.append(host)
    if len(hosts) > MAX_HOSTS:
        raise invalid("allowedHosts", _("at most {most} hosts"), most=MAX_HOSTS)
    return hosts


def _methods(values: list[str]) -> list[str]:
    methods = []
    for value in values or ["GET"]:
        method = value.strip().upper()
        if method not in METHODS:
            raise invalid(
                "allowedMethods",
                _("{method!r} is not one of {known}"),
                method=value,
                known=", ".join(METHODS),
            )
        if method not in methods:
            methods.append(method)
    return [method for method in METHODS if method in methods]


def _auth_name(kind: str, name: str) -> str:
    name = name.strip()
    needs: dict[str, str] = {
        StoredApi.Auth.HEADER.value: _("the header's name, such as X-Api-Key"),
        StoredApi.Auth.QUERY.value: _("the query parameter's name, such as api_key"),
        StoredApi.Auth.BASIC.value: _("the user name"),
    }
    if kind not in needs:
        if name:
            raise errors.AuthNameNotUsed(kind=kind)
        return ""
    if not name:
        raise errors.AuthNameRequired(kind=kind, what=needs[kind])
    if kind == StoredApi.Auth.HEADER and (
        not HEADER_NAME.match(name) or name.lower() in REFUSED_HEADERS - {"authorization", "x-api-key"}
    ):
        raise invalid("authName", _("{name!r} cannot carry a credential: give a header's name"), name=name)
    if kind == StoredApi.Auth.BASIC and ":" in name:
        raise invalid("authName", _("a basic user name cannot hold a colon"))
    return clean.text(name, field="authName", limit=200)


def api_named(name: str) -> StoredApi:
    found = StoredApi.objects.filter(name__iexact=name.strip()).first()
    if found is None:
        raise errors.StoredApiNotFound(api=name)
    return found


def apis() -> list[StoredApi]:
    return list(StoredApi.objects.order_by(Lower("name"), "id"))


@dataclass(frozen=True)
class Declared:
    """A stored API's fields, checked (saveStoredApi's arguments)."""

    name: str
    description: str
    base_url: str
    allowed_hosts: list[str]
    allowed_methods: list[str]
    auth_kind: str
    auth_name: str


def declared(
    *,
    name: str,
    description: str,
    base_url: str,
    allowed_hosts: list[str],
    allowed_methods: list[str],
    auth_kind: str,
    auth_name: str,
) -> Declared:
    base, base_host = _base_url(base_url)
    return Declared(
        name=clean.text(name, field="name", limit=80, required=True),
        description=clean.text(description, field="description", limit=500),
        base_url=base,
        allowed_hosts=_hosts(allowed_hosts, base_host),
        allowed_methods=_methods(allowed_methods),
        auth_kind=auth_kind,
        auth_name=_auth_name(auth_kind, auth_name),
    )


def needs_secret(found: StoredApi | None, fields: Declared, *, replace: bool) -> bool:
    """Whether saving `fields` asks the person for the credential (a new one, another kind, or
    replaceSecret)."""
    if fields.auth_kind == StoredApi.Auth.NONE:
        return False
    return replace or found is None or found.auth_kind != fields.auth_kind or not found.secret_encrypted


def api_save(*, actor: Actor, found: StoredApi | None, fields: Declared, secret: str | None) -> StoredApi:
    """Creates (found None) or updates a stored API; `secret` replaces the credential when given."""
    require(actor, PlatformPerm.ADMIN)
    api = found or StoredApi(created_by_id=actor.pk)
    api.name = fields.name
    api.description = fields.description
    api.base_url = fields.base_url
    api.allowed_hosts = fields.allowed_hosts
    api.allowed_methods = fields.allowed_methods
    api.auth_kind = fields.auth_kind
    api.auth_name = fields.auth_name
    if fields.auth_kind == StoredApi.Auth.NONE:
        api.secret_encrypted = ""
    elif secret is not None:
        api.secret_encrypted = encryption.encrypt(secret)
    api.save()
    return api


def api_delete(*, actor: Actor, api: StoredApi) -> None:
    require(actor, PlatformPerm.ADMIN)
    api.delete()


# --- calls -----------------------------------------------------------------------------------------


@dataclass
class Answered:
    method: str
    url: str
    status: int
    headers: dict[str, str]
    content_type: str
    size: int
    truncated: bool
    binary: bool
    text: str | None
    json: Any
    redirects: int
    duration_ms: float


def _allowed_address(api: StoredApi, url: str, *, scheme: str) -> str:
    """`url` if a call to it is within the stored API's bounds (scheme, no user info, its hosts)."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise errors.ApiPathUnsafe() from None
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        raise errors.ApiUserInfo()
    if parts.scheme.lower() != scheme:
        raise errors.ApiSchemeChanged(scheme=scheme)
    host = host_key(scheme, parts.hostname or "", port)
    if host not in api.allowed_hosts:
        raise errors.ApiHostNotAllowed(host=host, api=api.name, hosts=", ".join(api.allowed_hosts))
    return url


def address_of(api: StoredApi, path: str) -> str:
    """The address a call's path names: joined to the base URL, or a full URL on one of its hosts."""
    path = path.strip()
    if any(char.isspace() or ord(char) < 32 or char == "\\" for char in path) or path.startswith("//"):
        raise errors.ApiPathUnsafe()
    scheme = urlsplit(api.base_url).scheme
    if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", path):
        url = path
    else:
        url = api.base_url.rstrip("/") + ("/" + path.lstrip("/") if path else "")
    if len(url) > outbound.MAX_URL_LENGTH:
        raise errors.ApiPathUnsafe()
    return _allowed_address(api, url, scheme=scheme)


def checked_headers(api: StoredApi, headers: dict[str, str]) -> dict[str, str]:
    own = api.auth_name.lower() if api.auth_kind == StoredApi.Auth.HEADER else ""
    checked = {}
    for name, value in headers.items():
        lowered = name.strip().lower()
        if not HEADER_NAME.match(name.strip()):
            raise errors.ApiHeaderRefused(header=name)
        if lowered in REFUSED_HEADERS or lowered == own or lowered.startswith("proxy-"):
            raise errors.ApiHeaderRefused(header=name)
        if any(char in value for char in "\r\n\0"):
            raise errors.ApiHeaderValue(header=name)
        checked[name.strip()] = value
    return checked


def _credential(api: StoredApi) -> tuple[dict[str, str], dict[str, str]]:
    """The headers and query parameters that sign a call in (decrypted here, used once)."""
    if api.auth_kind == StoredApi.Auth.NONE:
        return {}, {}
    try:
        secret = encryption.decrypt(api.secret_encrypted)
    except encryption.DecryptionFailed:
        raise errors.ApiSecretUnreadable(api=api.name) from None
    if api.auth_kind == StoredApi.Auth.BEARER:
        return {"Authorization": f"Bearer {secret}"}, {}
    if api.auth_kind == StoredApi.Auth.BASIC:
        pair = base64.b64encode(f"{api.auth_name}:{secret}".encode()).decode()
        return {"Authorization": f"Basic {pair}"}, {}
    if api.auth_kind == StoredApi.Auth.HEADER:
        return {api.auth_name: secret}, {}
    return {}, {api.auth_name: secret}


_clients: dict[int, httpx.Client] = {}


def _client() -> httpx.Client:
    """One client per process: no redirects followed by it, no proxies from the environment."""
    client = _clients.get(os.getpid())
    if client is None:
        client = httpx.Client(follow_redirects=False, trust_env=False)
        _clients[os.getpid()] = client
    return client


def _is_binary(content_type: str, raw: bytes) -> bool:
    kind = content_type.split(";", 1)[0].strip().lower()
    if b"\0" in raw[:4096]:
        return True
    return not (not kind or kind.startswith("text/") or any(word in kind for word in TEXT_TYPES))


def _read(response: httpx.Response, limit: int, until: float) -> tuple[bytes, bool]:
    """At most `limit` bytes of the answer, and whether there was more (or time ran out)."""
    collected = bytearray()
    for chunk in response.iter_bytes():
        collected += chunk
        if len(collected) > limit or time.monotonic() > until:
            return bytes(collected[:limit]), True
    return bytes(collected), False


def _redirected_method(status: int, method: str) -> str:
    if status == 303 and method != "HEAD":
        return "GET"
    if status in (301, 302) and method == "POST":
        return "GET"
    return method


def _shown(url: str, api: StoredApi) -> str:
    """The address as the log and the answer give it: without a query credential."""
    if api.auth_kind != StoredApi.Auth.QUERY:
        return url
    parsed = httpx.URL(url)
    params = parsed.params.remove(api.auth_name) if api.auth_name in parsed.params else parsed.params
    return str(parsed.copy_with(params=params))


def checked_call(
    api: StoredApi, *, method: str, path: str, query: dict[str, Any], body: Any, headers: dict[str, str]
) -> tuple[str, dict[str, str]]:
    """The address (with its query) and the extra headers of a call within the stored API's bounds;
    raises what it refuses (before a confirmation is asked, and again at the call)."""
    if method not in api.allowed_methods:
        raise errors.ApiMethodNotAllowed(method=method, api=api.name, allowed=", ".join(api.allowed_methods))
    if body is not None and method in SAFE_METHODS:
        raise errors.ApiBodyNotTaken(method=method)
    if api.auth_kind == StoredApi.Auth.QUERY and api.auth_name in query:
        raise errors.ApiQueryKeyGiven(name=api.auth_name)
    checked = checked_headers(api, headers)
    url = address_of(api, path)
    params = {name: _query_value(value) for name, value in query.items()}
    return (str(httpx.URL(url).copy_merge_params(params)) if params else url), checked


def call(
    *,
    actor: Actor,
    api: StoredApi,
    method: str,
    path: str,
    query: dict[str, Any],
    body: Any,
    headers: dict[str, str],
    max_bytes: int | None,
) -> Answered:
    """Calls the stored API (module docstring); raises before sending anything it refuses."""
    require(actor, PlatformPerm.INTEGRATE)
    method = method.upper()
    url, checked = checked_call(api, method=method, path=path, query=query, body=body, headers=headers)
    sent_headers = {"User-Agent": USER_AGENT, "Accept": "application/json, text/*;q=0.9, */*;q=0.5"}
    sent_headers.update(checked)
    content: bytes | None = None
    if body is not None:
        if isinstance(body, str):
            content = body.encode()
            sent_headers.setdefault("Content-Type", "text/plain; charset=utf-8")
        else:
            content = json.dumps(body, ensure_ascii=False).encode()
            sent_headers.setdefault("Content-Type", "application/json")
    own_headers, own_params = _credential(api)
    limit = min(
        max_bytes or settings.ATRIUM_STORED_API_MAX_RESPONSE_BYTES,
        settings.ATRIUM_STORED_API_MAX_RESPONSE_BYTES,
    )
    scheme = urlsplit(api.base_url).scheme
    started = time.monotonic()
    until = started + settings.ATRIUM_STORED_API_TIMEOUT_SECONDS
    redirects = 0
    log = StoredApiCall(
        api=api, api_name=api.name, user_id=actor.pk, method=method, url=_shown(url, api)[:2000]
    )
    while True:
        try:
            target = outbound.check_url(
                url,
                noun=_("The address"),
                allow_loopback=settings.WEBHOOKS_ALLOW_LOOPBACK,
                require_resolution=True,
            )
        except outbound.UnsafeUrl as unsafe:
            if redirects:
                raise errors.ApiRedirectRefused(
                    api=api.name, location=_shown(url, api), reason=unsafe.message
                ) from None
            raise errors.ApiAddressRefused(api=api.name, problem=unsafe.message) from None
        signed = str(httpx.URL(url).copy_merge_params(own_params)) if own_params else url
        pinned, host_header, extensions = outbound.pinned(target, signed)
        request = _client().build_request(
            method,
            pinned,
            headers={**sent_headers, **own_headers, "Host": host_header},
            content=content,
            extensions=extensions,
            timeout=httpx.Timeout(
                settings.ATRIUM_STORED_API_TIMEOUT_SECONDS,
                connect=settings.ATRIUM_STORED_API_CONNECT_TIMEOUT_SECONDS,
            ),
        )
        outbound.reached("stored API")
        try:
            response = _client().send(request, stream=True)
        except httpx.HTTPError as error:
            raise errors.ApiNoAnswer(api=api.name, kind=type(error).__name__) from None
        location = response.headers.get("location", "")
        if 300 <= response.status_code < 400 and response.status_code != 304 and location:
            response.close()
            if redirects >= settings.ATRIUM_STORED_API_MAX_REDIRECTS:
                raise errors.ApiTooManyRedirects(api=api.name, most=settings.ATRIUM_STORED_API_MAX_REDIRECTS)
            following = urljoin(url, location)
            try:
                _allowed_address(api, following, scheme=scheme)
            except errors.ValidationFailed as refused:
                raise errors.ApiRedirectRefused(
                    api=api.name, location=_shown(following, api)[:300], reason=str(refused.message)
                ) from None
            redirects += 1
            method = _redirected_method(response.status_code, method)
            if method == "GET":
                content = None
                sent_headers.pop("Content-Type", None)
            url = following
            continue
        try:
            raw, truncated = _read(response, limit, until)
        except httpx.HTTPError as error:
            raise errors.ApiAnswerBroke(api=api.name, kind=type(error).__name__) from None
        finally:
            response.close()
        break
    log.url = _shown(url, api)[:2000]
    log.method = method
    _logged(log, started, status=response.status_code, size=len(raw))
    api.last_called_at = timezone.now()
    api.save(update_fields=["last_called_at"])
    content_type = response.headers.get("content-type", "")
    binary = _is_binary(content_type, raw)
    text: str | None = None
    parsed: Any = None
    if not binary:
        text = raw.decode(response.encoding or "utf-8", errors="replace")
        if not truncated and "json" in content_type.lower() and raw.strip():
            try:
                parsed = json.loads(raw)
                text = None
            except ValueError:
                pass
    return Answered(
        method=method,
        url=_shown(url, api),
        status=response.status_code,
        headers={name: response.headers[name] for name in SHOWN_HEADERS if name in response.headers},
        content_type=content_type,
        size=len(raw),
        truncated=truncated,
        binary=binary,
        text=text,
        json=parsed,
        redirects=redirects,
        duration_ms=(time.monotonic() - started) * 1000,
    )


def _query_value(value: Any) -> Any:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return [_query_value(item) for item in value]
    return value


def _logged(log: StoredApiCall, started: float, *, status: int, size: int) -> None:
    log.status = status
    log.response_bytes = size
    log.duration_ms = (time.monotonic() - started) * 1000
    log.save()
