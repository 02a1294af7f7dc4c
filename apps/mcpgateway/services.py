"""Registering outside MCP servers (administrators), and reaching them for a person: the URL
checked again and pinned to the address it resolved, the server's credential resolved from the
vault for that server alone, the tool list cached for its time to live, each request logged
(`ServerCall`). What a server says comes back as data, labelled with where it came from."""

import re
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apps.accounts.models import Role
from apps.core import clean, origin, outbound
from apps.core.actors import Actor
from apps.core.errors import invalid
from apps.core.records import create, unique_name, update
from apps.mcpgateway import errors
from apps.mcpgateway.models import DiscoveredTool, ExternalServer, ServerCall
from apps.mcpgateway.permissions import McpGatewayPerm
from apps.mcpgateway.providers import client
from apps.vaults import api as vaults

NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
HEADER = re.compile(r"^[A-Za-z0-9-]{1,60}$")
SEPARATOR = "__"
MAX_TOOL_NAMES = 100
FIELDS = (
    "name",
    "title",
    "url",
    "description",
    "credential",
    "auth_header",
    "auth_scheme",
    "visibility",
    "trusted",
    "enabled",
    "allowed_tools",
    "denied_tools",
)


def _names(value: Any, field: str) -> list[str]:
    given = value.replace(",", " ").split() if isinstance(value, str) else list(value or [])
    names = list(dict.fromkeys(str(name).strip() for name in given if str(name).strip()))
    if len(names) > MAX_TOOL_NAMES or any(len(name) > 128 for name in names):
        raise invalid(field, _("at most {limit} tool names of 128 characters"), limit=MAX_TOOL_NAMES)
    return names


def _refused(problem: str) -> Exception:
    return errors.McpServerRefused(problem=problem)


def _apply(actor: Actor, server: ExternalServer, fields: dict[str, Any], creating: bool) -> None:
    if "name" in fields or creating:
        name = unique_name(server, fields.get("name"), what="an MCP server", limit=40).lower()
        if not NAME.match(name) or SEPARATOR in name:
            raise invalid("name", _("lower-case letters, digits and single hyphens (it prefixes tool names)"))
        server.name = name
    if "title" in fields:
        server.title = clean.text(fields["title"], field="title", limit=120)
    if "description" in fields:
        server.description = clean.text(fields["description"], field="description", limit=500)
    if "url" in fields or creating:
        url = clean.text(fields.get("url"), field="url", limit=2000, required=True)
        server.url = outbound.check_given(url, noun=str(_("The MCP server's URL")), refused=_refused).url
    if "credential" in fields:
        item = fields["credential"]
        if item is not None:
            # One the administrator sees: they may not hand a server a secret not theirs to use.
            item = vaults.items_for(actor).filter(pk=getattr(item, "pk", item)).first()
            if item is None:
                raise invalid("credential", _("no vault item you may use has that id (vaultList)"))
        server.credential = item
    if "auth_header" in fields:
        header = str(fields["auth_header"] or "Authorization").strip()
        if not HEADER.match(header) or header.lower() in ("host", "content-length", "cookie"):
            raise invalid("authHeader", _("must be an HTTP header name (Authorization, X-Api-Key)"))
        server.auth_header = header
    if "auth_scheme" in fields:
        server.auth_scheme = clean.text(fields["auth_scheme"], field="authScheme", limit=30)
    if "visibility" in fields:
        if fields["visibility"] not in ("workspace", "private"):
            raise invalid("visibility", _("must be one of {choices}"), choices="workspace, private")
        server.visibility = fields["visibility"]
    for flag in ("trusted", "enabled"):
        if flag in fields:
            setattr(server, flag, bool(fields[flag]))
    for field, key in (("allowed_tools", "allowedTools"), ("denied_tools", "deniedTools")):
        if field in fields:
            setattr(server, field, _names(fields[field], key))


def _roles(server: ExternalServer, fields: dict[str, Any]) -> None:
    if "roles" in fields:
        server.roles.set(list(fields["roles"] or []))


@transaction.atomic
def server_create(*, actor: Actor, fields: dict[str, Any]) -> ExternalServer:
    made = create(ExternalServer, actor=actor, permission=McpGatewayPerm.ADMIN, fields=fields, apply=_apply)
    _roles(made, fields)
    return made


@transaction.atomic
def server_update(*, actor: Actor, server: ExternalServer, fields: dict[str, Any]) -> list[str]:
    ExternalServer.objects.fetch(actor, server.pk, "change")
    before = server.url
    names = [name for name in FIELDS if name in fields]
    changed = update(
        server, actor=actor, permission=McpGatewayPerm.ADMIN, fields=fields, apply=_apply, names=names
    )
    _roles(server, fields)
    if server.url != before:
        # Another server at that address: what the old one listed says nothing of it.
        server.tools.all().delete()
        ExternalServer.objects.filter(pk=server.pk).update(tools_expire_at=None, status="unknown")
    return changed


def server_delete(*, actor: Actor, server: ExternalServer) -> None:
    ExternalServer.objects.fetch(actor, server.pk, "delete")
    server.trash(actor)


def roles_named(keys: list[str]) -> list[Role]:
    found = {role.key: role for role in Role.objects.filter(key__in=keys)}
    for key in keys:
        if key not in found:
            raise invalid("roles", _("no role {key!r}"), key=key[:80])
    return [found[key] for key in keys]


# --- reaching a server ---------------------------------------------------------------------------


def _endpoint(server: ExternalServer, actor: Actor) -> client.Endpoint:
    if not server.enabled:
        raise errors.McpServerDisabled(server=server.name)
    target = outbound.check_given(
        server.url, noun=str(_("The MCP server's URL")), refused=_refused, require_resolution=True
    )
    headers: dict[str, str] = {}
    if server.credential is not None and server.credential.deleted_at is not None:
        # In the trash: called without it, the server would refuse, or answer as to anyone.
        raise errors.McpCredentialUnusable(server=server.name)
    if server.credential is not None:
        # The server's own key, for this server alone: never the person's token.
        try:
            secret = vaults.resolve(
                server.credential, actor=actor, purpose=f"MCP server {server.name}", host=target.host
            )
        except (vaults.VaultItemExpired, vaults.VaultItemNotForThis, vaults.VaultUnreadable):
            # The vault's words name the item; only those who see it read them.
            if vaults.items_for(actor).filter(pk=server.credential.pk).exists():
                raise
            raise errors.McpCredentialUnusable(server=server.name) from None
        headers[server.auth_header] = f"{server.auth_scheme} {secret}".strip()
    return client.Endpoint(
        url=target.url,
        address=target.addresses[0] if target.addresses else "",
        headers=headers,
        timeout=float(settings.ATRIUM_MCP_GATEWAY_TIMEOUT_SECONDS),
        max_bytes=int(settings.ATRIUM_MCP_GATEWAY_MAX_RESULT_BYTES),
    )


def _reach(
    server: ExternalServer,
    actor: Actor,
    kind: str,
    target: str,
    work: Callable[[client.Endpoint], tuple[Any, int]],
) -> Any:
    """`work` against the server, logged, the server's status kept; the failure in our words."""
    endpoint = _endpoint(server, actor)
    came = origin.current()
    started = time.monotonic()
    outbound.reached("MCP server")
    log = ServerCall(
        server=server,
        actor_id=getattr(actor, "pk", None),
        kind=kind,
        target=target[:300],
        door=came.door if came else "",
        client=came.client[:200] if came else "",
    )
    try:
        answer, size = work(endpoint)
    except client.Failure as failure:
        log.outcome = ServerCall.Outcome.FAILED
        log.detail = _outside(failure.problem or failure.kind)[:300]
        log.duration_ms = int((time.monotonic() - started) * 1000)
        log.save()
        ExternalServer.objects.filter(pk=server.pk).update(
            status=ExternalServer.Status.FAILING, last_error=log.detail, last_checked_at=timezone.now()
        )
        if failure.kind == "timeout":
            raise errors.McpServerTimeout(server=server.name, seconds=int(endpoint.timeout)) from None
        if failure.kind == "too_large":
            raise errors.McpResultTooLarge(server=server.name, limit=endpoint.max_bytes) from None
        raise errors.McpServerUnavailable(
            server=server.name, problem=failure.problem or failure.kind
        ) from None
    log.duration_ms = int((time.monotonic() - started) * 1000)
    log.size = size
    is_error = isinstance(answer, dict) and answer.get("isError")
    log.outcome = ServerCall.Outcome.TOOL_ERROR if is_error else ServerCall.Outcome.OK
    log.save()
    ExternalServer.objects.filter(pk=server.pk).update(
        status=ExternalServer.Status.OK, last_error="", last_checked_at=timezone.now()
    )
    return answer


# What a server said, as a store keeps it (no NUL, no lone surrogate, in texts and JSON).
_outside = clean.storable_json


# The longest a server's tool list is kept, whatever time to live it gives.
LONGEST_TTL = timedelta(days=1)


def tools_expire_at(now: datetime, ttl_ms: int) -> datetime:
    """When a tool list fetched `now` with a time to live of `ttl_ms` goes stale: at most a day
    on (a server's ttlMs past any calendar would overflow the date), never before now."""
    return now + min(timedelta(milliseconds=max(min(int(ttl_ms), 10**12), 0)), LONGEST_TTL)


def discover(*, actor: Actor, server: ExternalServer, refresh: bool = False) -> list[DiscoveredTool]:
    """The server's tools (those its registration allows), from the cache while it lasts."""
    now = timezone.now()
    if refresh or server.tools_expire_at is None or server.tools_expire_at <= now:
        listing: client.Listing = _reach(
            server, actor, ServerCall.Kind.TOOLS, "tools/list", client.list_tools
        )
        ttl = (
            listing.ttl_ms
            if listing.ttl_ms is not None
            else settings.ATRIUM_MCP_GATEWAY_TOOLS_TTL_SECONDS * 1000
        )
        with transaction.atomic():
            server.tools.all().delete()
            DiscoveredTool.objects.bulk_create(
                DiscoveredTool(
                    server=server,
                    name=name[:128],
                    title=_outside(str(tool.get("title") or ""))[:200],
                    description=_outside(str(tool.get("description") or ""))[:4000],
                    input_schema=_outside(tool.get("inputSchema") or {}),
                    annotations=_outside(tool.get("annotations") or {}),
                )
                for name, tool in {
                    _outside(str(tool.get("name", ""))): tool for tool in listing.tools if tool.get("name")
                }.items()
                if name
            )
            server.protocol_version = _outside(listing.protocol_version)[:20]
            server.server_name = _outside(listing.server_name)[:200]
            server.tools_fetched_at = now
            server.tools_expire_at = tools_expire_at(now, ttl)
            server.save(
                update_fields=["protocol_version", "server_name", "tools_fetched_at", "tools_expire_at"]
            )
    return [tool for tool in server.tools.order_by("name") if server.allows(tool.name)]


def split(full_name: str) -> tuple[str, str]:
    server, sep, tool = full_name.partition(SEPARATOR)
    if not sep or not server or not tool:
        raise errors.McpToolUnknown()
    return server, tool


def usable_server(actor: Actor, name: str) -> ExternalServer:
    """A live server of that name the person may use (or the unknown-tool answer, naming nothing)."""
    found = (
        ExternalServer.objects.restrict(actor).select_related("credential").filter(name=name.lower()).first()
    )
    if found is None:
        raise errors.McpToolUnknown()
    return found


def tool_named(actor: Actor, full_name: str) -> tuple[ExternalServer, DiscoveredTool]:
    server_name, tool_name = split(full_name)
    server = usable_server(actor, server_name)
    if not server.allows(tool_name):
        raise errors.McpToolBlocked(tool=tool_name, server=server.name)
    tools = {tool.name: tool for tool in discover(actor=actor, server=server)}
    if tool_name not in tools:
        raise errors.McpToolUnknown()
    return server, tools[tool_name]


def needs_confirmation(server: ExternalServer, tool: DiscoveredTool) -> bool:
    """Every call is confirmed but a read-only tool's on a server whose annotations are trusted: an
    untrusted server may say anything of its tools."""
    return not (server.trusted and tool.read_only)


def call(
    *, actor: Actor, server: ExternalServer, tool: DiscoveredTool, arguments: dict[str, Any]
) -> dict[str, Any]:
    return _reach(
        server,
        actor,
        ServerCall.Kind.CALL,
        tool.name,
        lambda endpoint: client.call_tool(endpoint, tool.name, arguments),
    )


def read(*, actor: Actor, server: ExternalServer, uri: str) -> dict[str, Any]:
    return _reach(
        server, actor, ServerCall.Kind.RESOURCE, uri, lambda endpoint: client.read_resource(endpoint, uri)
    )
