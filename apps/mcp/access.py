"""Who may reach the MCP endpoint: the workspace from the host, the Origin check, and the
credential check, with what each process keeps of them (apps.core.kept). Synchronous (ORM); the
consumer calls these from its worker threads, or on its loop once they are kept."""

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django_tenants.utils import tenant_context

from apps.core import credentials
from apps.core.credentials import CredentialRequest, Principal
from apps.core.errors import AppError, Unauthenticated
from apps.core.kept import MISSING, REVOKED, WORKSPACES, Kept
from apps.mcp.errors import ScopeReadOnly, ScopeWithoutMcp
from apps.tenancy.models import Domain, Workspace

MCP_SCOPES = frozenset({"mcp", "mcp:read", "mcp:write"})
_HOSTS_TTL = 10.0
_CACHE_LIMIT = 10_000


def base_url(scheme: str, host_header: str, headers: Mapping[str, str]) -> str:
    """The workspace's origin as the client reached it: the scheme is the request's (a trusted
    proxy's X-Forwarded-Proto already in it: apps.core.proxies), the host X-Forwarded-Host when
    the Django side honours it too (USE_X_FORWARDED_HOST; only a trusted proxy's reaches here)."""
    if getattr(settings, "USE_X_FORWARDED_HOST", False) and headers.get("x-forwarded-host"):
        host_header = headers["x-forwarded-host"].split(",")[0].strip()
    default_port = ":443" if scheme == "https" else ":80"
    return f"{scheme}://{host_header.removesuffix(default_port)}"


def hostname_of(host_header: str) -> str:
    """The host name of a Host header, without port (IPv6 literals keep their brackets off)."""
    host = host_header.strip().lower()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if ":" in host else host


# A workspace's host names, by schema (the Origin check); told of changes on the WORKSPACES channel.
_hosts: Kept[str, frozenset[str]] = Kept(WORKSPACES, lambda: _HOSTS_TTL)


def workspace_hosts(workspace: Workspace) -> frozenset[str]:
    names = _hosts.get(workspace.schema_name, renew=partial(_read_hosts, workspace))
    if names is MISSING:
        names = _read_hosts(workspace)
    return names


def _read_hosts(workspace: Workspace) -> frozenset[str]:
    stamp = _hosts.stamp()  # before reading: a change told meanwhile voids it
    names = frozenset(Domain.objects.filter(tenant=workspace).values_list("domain", flat=True))
    _hosts.put(workspace.schema_name, names, stamp)
    return names


def forget_hosts() -> None:
    _hosts.forget()


def origin_allowed(origin: str | None, workspace: Workspace) -> bool:
    """DNS-rebinding protection: a browser's Origin must be one of the workspace's own hosts or
    on the configured allow-list. Requests without Origin (non-browser clients) pass."""
    if origin is None:
        return True
    if origin in settings.MCP_ALLOWED_ORIGINS:
        return True
    parts = urlsplit(origin)
    if parts.scheme not in {"http", "https"} or not parts.hostname:
        return False
    return parts.hostname.lower() in workspace_hosts(workspace)


@dataclass(frozen=True)
class Refusal:
    """An HTTP answer refusing the credential: status, headers and the SPEC 7.1 body."""

    status: int
    headers: dict[str, str]
    body: dict[str, Any]


# credential key -> (schema name, principal); told of revocations on the REVOKED channel.
_principals: Kept[str, tuple[str, Principal]] = Kept(
    REVOKED, lambda: settings.MCP_CREDENTIAL_CACHE_SECONDS, limit=_CACHE_LIMIT
)


def _cache_key(schema_name: str, headers: Mapping[str, str], url: str) -> str:
    """The same credential at the same origin: an OAuth token is good only for the resource it
    was issued for (RFC 8707), so a use at one of the workspace's host names vouches for nothing
    at another."""
    material = "\0".join((schema_name, url, headers.get("authorization", ""), headers.get("x-api-key", "")))
    return hashlib.sha256(material.encode("utf-8", "surrogateescape")).hexdigest()


def forget_principals(*, user_ids: list[int] | None = None, schema_name: str | None = None) -> None:
    """Drops cached credentials (all, or those of these people in this workspace): a revocation
    or a change of role applies in every process at once (`signals`, told through `endings`)."""
    if user_ids is None:
        _principals.forget()
        return
    wanted = set(user_ids)
    _principals.drop(
        lambda _key, kept: getattr(kept[1].user, "pk", None) in wanted and schema_name in (None, kept[0])
    )


def authenticate(*, workspace: Workspace, headers: Mapping[str, str], url: str) -> Principal | Refusal:
    """The caller's Principal, or the refusal to answer (SPEC 4.1 challenge, 7.1 bodies)."""
    caching = settings.MCP_CREDENTIAL_CACHE_SECONDS > 0
    key = _cache_key(workspace.schema_name, headers, url) if caching else ""
    if key:
        kept = _principals.get(key, renew=partial(_renew, workspace, headers, url, key))
        if kept is not MISSING:
            return kept[1]
    return _read(workspace, headers, url, key)


def _read(workspace: Workspace, headers: Mapping[str, str], url: str, key: str) -> Principal | Refusal:
    """The credential checked against the database (the connection set to `workspace`), and kept
    under `key` when one is given and it is good."""
    stamp = _principals.stamp()  # before reading: a revocation told meanwhile voids it
    try:
        principal = credentials.authenticate(CredentialRequest(headers=headers, base_url=url, door="mcp"))
    except Unauthenticated as error:
        return _challenge(url, error, token_presented="authorization" in headers)
    except AppError as error:
        return refusal_for(url, error)
    if principal is None:
        return _challenge(url, Unauthenticated(), token_presented=False)
    if not principal.scopes & MCP_SCOPES:
        return Refusal(
            403,
            {"WWW-Authenticate": 'Bearer error="insufficient_scope", scope="mcp"'},
            ScopeWithoutMcp().as_body(),
        )
    if key:
        # What no message tells (a budget being spent) is kept only for the short while.
        _principals.put(
            key,
            (workspace.schema_name, principal),
            None if principal.kept_briefly else stamp,
            until=principal.good_until,
        )
    return principal


def _renew(workspace: Workspace, headers: Mapping[str, str], url: str, key: str) -> None:
    """A kept credential checked again in the background before it runs out (apps.core.kept):
    one refused now is dropped, so that the next request is refused as well."""
    with tenant_context(workspace):
        if isinstance(_read(workspace, headers, url, key), Refusal):
            _principals.discard(key)


def insufficient_scope(url: str, scope: str, tool: str) -> Refusal:
    """403 with the challenge that names the scope to ask for (MCP 2025-11-25, "Scope challenge
    handling"): a client asks the person to consent to it, then retries with the new token."""
    challenge = (
        f'Bearer error="insufficient_scope", scope="{scope}", {_resource_metadata(url)}, '
        f'error_description="{tool} needs the mcp:write scope"'
    )
    return Refusal(403, {"WWW-Authenticate": challenge}, ScopeReadOnly(tool=tool, scope=scope).as_body())


def _resource_metadata(url: str) -> str:
    return f'resource_metadata="{url}/.well-known/oauth-protected-resource"'


def _challenge(url: str, error: AppError, *, token_presented: bool) -> Refusal:
    challenge = f"Bearer {_resource_metadata(url)}"
    if token_presented:
        challenge += ', error="invalid_token"'
    return Refusal(401, {"WWW-Authenticate": challenge, **error.headers}, error.as_body())


def refusal_for(url: str, error: AppError) -> Refusal:
    headers = dict(error.headers)
    if error.http_status == 401:
        # At this door every 401 is SPEC 4.1's challenge: it tells OAuth clients where to go.
        headers["WWW-Authenticate"] = f"Bearer {_resource_metadata(url)}"
    return Refusal(error.http_status, headers, error.as_body())
