"""The server card (SPEC 2.5): what an agent can learn about this endpoint before connecting."""

from django.conf import settings
from django.http import HttpRequest, JsonResponse
from django.views.decorators.http import require_GET

from apps.catalogue import profiles
from apps.core.workspaces import current_workspace
from apps.mcp.protocol import PROTOCOL_VERSION

CARD_MAX_AGE = 300


@require_GET
def server_card(request: HttpRequest) -> JsonResponse:
    workspace = current_workspace()
    brand = workspace.brand_name if workspace is not None else "Atrium"
    base = request.build_absolute_uri("/").rstrip("/")
    card = {
        "name": brand,
        "title": brand,
        "version": settings.ATRIUM_VERSION,
        "protocolVersion": PROTOCOL_VERSION,
        "serverInfo": {"name": brand, "title": brand, "version": settings.ATRIUM_VERSION},
        "transport": {"type": "streamable-http", "url": f"{base}/api/mcp"},
        "capabilities": {"tools": {"listChanged": True}},
        # Short lists of tools for clients that take few (apps.catalogue.profiles).
        "profiles": [
            {
                "name": profile.key,
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
