"""The server card (SPEC 2.5): what an agent can learn about this endpoint before connecting; and
the Developers settings page, which tells a person wiring a client where everything is."""

from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET

from apps.accounts.requests import AuthenticatedHttpRequest
from apps.catalogue import profiles
from apps.core import workspaces
from apps.core.pages import READ, page
from apps.mcp.protocol import (
    HANDSHAKE_VERSION,
    PROTOCOL_VERSION,
    SESSION_NOT_FOUND,
    SUPPORTED_VERSIONS,
    UNSUPPORTED_PROTOCOL_VERSION,
)
from apps.oauth import resource, scopes

CARD_MAX_AGE = 300


@require_GET
def server_card(request: HttpRequest) -> JsonResponse:
    brand = workspaces.brand()
    base = request.build_absolute_uri("/").rstrip("/")
    card = {
        "name": brand,
        "title": brand,
        "version": settings.ATRIUM_VERSION,
        "protocolVersion": PROTOCOL_VERSION,
        # 2026-07-28 needs no handshake; the others are negotiated with `initialize`.
        "supportedVersions": list(SUPPORTED_VERSIONS),
        "serverInfo": {"name": brand, "title": brand, "version": settings.ATRIUM_VERSION},
        "transport": {"type": "streamable-http", "url": f"{base}/api/mcp"},
        "capabilities": {"tools": {"listChanged": True}},
        # Short lists of tools for clients that take few (apps.catalogue.profiles).
        "profiles": [
            {
                "name": profile.key,
                # What a person who does this job says of it, as the consent page offers it.
                "job": str(profile.job),
                "title": profile.title,
                "description": profile.description,
                "url": f"{base}/api/mcp?profile={profile.key}",
                # The OAuth scope that pins a connection to it (apps.oauth.scopes).
                "scope": f"profile:{profile.key}",
                "tools": len(profiles.tool_names(profile.key)),
            }
            for profile in profiles.PROFILES
        ],
        "authentication": {
            "type": "oauth2",
            "required": True,
            "protectedResourceMetadata": f"{base}/.well-known/oauth-protected-resource",
            "authorizationServerMetadata": f"{base}/.well-known/oauth-authorization-server",
            "scopes": ["mcp", "mcp:read", "mcp:write", "offline_access"],
        },
        "oauth": {
            "protectedResourceMetadata": f"{base}/.well-known/oauth-protected-resource",
            "authorizationServerMetadata": f"{base}/.well-known/oauth-authorization-server",
        },
    }
    response = JsonResponse(card)
    response["Access-Control-Allow-Origin"] = "*"
    response["Cache-Control"] = f"public, max-age={CARD_MAX_AGE}"
    return response


# --- Settings → Developers ------------------------------------------------------------------------


@page(methods=READ)
def developers(request: AuthenticatedHttpRequest) -> HttpResponse:
    """For a developer wiring a client: this workspace's MCP endpoint, OAuth endpoints and
    discovery documents at its own absolute URLs, with the rules each enforces (read from the
    modules and settings that enforce them)."""
    base = resource.base_url_of(request)
    oauth: dict[str, Any] = settings.OAUTH2_PROVIDER

    def at(url_name: str) -> str:
        return f"{base}{reverse(url_name)}"

    return render(
        request,
        "mcp/developers.html",
        {
            "nav": "developers",
            "reference_url": reverse("api-docs"),
            "base_url": base,
            "mcp_url": resource.resource_for(base),
            "protocol_version": PROTOCOL_VERSION,
            "handshake_version": HANDSHAKE_VERSION,
            "supported_versions": SUPPORTED_VERSIONS,
            "unsupported_version_code": UNSUPPORTED_PROTOCOL_VERSION,
            "session_not_found_code": SESSION_NOT_FOUND,
            "max_body_bytes": settings.MCP_MAX_BODY_BYTES,
            "idle_hours": settings.MCP_SESSION_IDLE_SECONDS // 3600,
            "resource_metadata_url": resource.resource_metadata_url(base),
            "resource_metadata_path_url": f"{resource.resource_metadata_url(base)}{resource.MCP_PATH}",
            "server_metadata_url": f"{base}{resource.SERVER_METADATA_PATH}",
            "server_card_url": at("mcp:server-card"),
            "server_card_alias_url": at("mcp:server-card-alias"),
            "authorize_url": at("oauth2_provider:authorize"),
            "token_url": at("oauth2_provider:token"),
            "register_url": at("oauth2_provider:dcr-register"),
            "revoke_url": at("oauth2_provider:revoke-token"),
            "grant_types": oauth["OAUTH2_GRANT_TYPES_SUPPORTED"],
            "auth_methods": oauth["OAUTH2_TOKEN_ENDPOINT_AUTH_METHODS_SUPPORTED"],
            "scopes": [(name, words) for name, words in oauth["SCOPES"].items()],
            "resource_scopes": scopes.RESOURCE_SCOPES,
            "profiles": [
                {
                    "profile": profile,
                    "scope": scopes.profile_scope(profile.key),
                    "url": f"{resource.resource_for(base)}?profile={profile.key}",
                }
                for profile in profiles.PROFILES
            ],
            "code_seconds": oauth["AUTHORIZATION_CODE_EXPIRE_SECONDS"],
            "access_token_seconds": oauth["ACCESS_TOKEN_EXPIRE_SECONDS"],
            "refresh_token_days": oauth["REFRESH_TOKEN_EXPIRE_SECONDS"] // (24 * 3600),
            "redirect_schemes": settings.OAUTH_REDIRECT_URI_SCHEMES,
            "registrations_per_hour": settings.OAUTH_REGISTRATIONS_PER_HOUR,
        },
    )
