"""The OAuth 2.1 authorization server for MCP (apps.oauth, on django-oauth-toolkit), and CORS for
the browser-based MCP clients that use it."""

from corsheaders.defaults import default_headers as cors_default_headers
from django.utils.translation import gettext_lazy as _

from apps.core import env

# Redirect URIs a client may register: https anywhere, http on loopback only (127.0.0.1, [::1],
# localhost; any port), and these custom schemes of desktop and editor clients.
OAUTH_REDIRECT_URI_SCHEMES = env.list(
    "ATRIUM_OAUTH_REDIRECT_SCHEMES", ["claude", "cursor", "vscode", "vscode-insiders", "windsurf", "zed"]
)
# Dynamic client registration is open, but each client address may register this many per hour.
OAUTH_REGISTRATIONS_PER_HOUR = env.int("ATRIUM_OAUTH_REGISTRATIONS_PER_HOUR", 20, min=0)
# A certificate authority trusted besides the system's when fetching client metadata documents
# (apps.oauth.client_metadata); only tests, which serve them on loopback, need one.
OAUTH_CIMD_CA_FILE = env.str("ATRIUM_OAUTH_CIMD_CA_FILE", "")
# Clients that registered but never obtained a token are removed after this many hours.
OAUTH_UNUSED_CLIENT_HOURS = env.int("ATRIUM_OAUTH_UNUSED_CLIENT_HOURS", 24, min=0)
# The toolkit's own client model (named so migrations can refer to it).
OAUTH2_PROVIDER_APPLICATION_MODEL = "oauth2_provider.Application"
OAUTH2_PROVIDER = {
    "SCOPES": {
        "mcp": _("Use every tool your role allows: read, create, change and delete data"),
        "mcp:read": _("Read your workspace's data (read-only tools)"),
        "mcp:write": _("Use every tool your role allows, including those that change data"),
        "offline_access": _("Stay connected while you are away, until you disconnect it"),
    },
    # The scopes above and one `profile:<key>` per tool profile (accepted, not advertised).
    "SCOPES_BACKEND_CLASS": "apps.oauth.scopes.Scopes",
    # No `scope` on the authorization request: everything the role allows, no refresh token.
    "DEFAULT_SCOPES": ["mcp"],
    # Only authorization_code (PKCE S256) and refresh_token; tokens bound to {base_url}/api/mcp.
    "OAUTH2_SERVER_CLASS": "apps.oauth.server.Server",
    "OAUTH2_VALIDATOR_CLASS": "apps.oauth.validators.Validator",
    "OAUTH2_BACKEND_CLASS": "apps.oauth.server.OAuthLibCore",
    "PKCE_REQUIRED": True,
    "AUTHORIZATION_CODE_EXPIRE_SECONDS": 60,
    "ACCESS_TOKEN_EXPIRE_SECONDS": 3600,
    # A refresh token dies this long after its last access token expired (it slides with use).
    "REFRESH_TOKEN_EXPIRE_SECONDS": 30 * 24 * 3600,
    "ROTATE_REFRESH_TOKEN": True,
    "REFRESH_TOKEN_REUSE_PROTECTION": True,
    "REFRESH_TOKEN_GRACE_PERIOD_SECONDS": 0,
    "REQUEST_APPROVAL_PROMPT": "force",
    "ALLOWED_REDIRECT_URI_SCHEMES": ["https", "http", *OAUTH_REDIRECT_URI_SCHEMES],
    "ALLOW_LOCALHOST_LOOPBACK": True,
    "DCR_ENABLED": True,
    # Clients may also be known by the URL of their metadata document (apps.oauth.client_metadata).
    "CIMD_ENABLED": True,
    "CIMD_METADATA_FETCHER": "apps.oauth.client_metadata.MetadataFetcher",
    "DCR_REGISTRATION_PERMISSION_CLASSES": ("oauth2_provider.dcr.AllowAllDCRPermission",),
    "DCR_REGISTRATION_TOKEN_EXPIRE_SECONDS": 90 * 24 * 3600,
    # RFC 8414 metadata says only what is true.
    "OAUTH2_RESPONSE_TYPES_SUPPORTED": ["code"],
    "OAUTH2_GRANT_TYPES_SUPPORTED": ["authorization_code", "refresh_token"],
    "OAUTH2_TOKEN_ENDPOINT_AUTH_METHODS_SUPPORTED": ["none", "client_secret_basic", "client_secret_post"],
    # RFC 9700 (security best current practice), enforced. `http` stays an allowed redirect
    # scheme for loopback callbacks (RFC 8252), which the registration rules confine.
    "COMPLIANT_BCP_RFC9700_IMPLICIT_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PASSWORD_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PKCE_METHOD": True,
    "COMPLIANT_BCP_RFC9700_ACCESS_TOKEN_TRANSPORT": True,
    "COMPLIANT_BCP_RFC9700_AUTHZ_RESPONSE_ISS": True,
    "COMPLIANT_BCP_RFC9700_TOKEN_STORAGE": True,
    "COMPLIANT_BCP_RFC9700_REFRESH_TOKEN": True,
    "COMPLIANT_BCP_RFC9700_REDIRECT_URI_MATCHING": True,
    "COMPLIANT_BCP_RFC9700_PKCE_REQUIRED": True,
}
# CORS for browser-based MCP clients: the discovery documents, token, registration, revocation.
CORS_URLS_REGEX = (
    r"^/(\.well-known/oauth-(authorization-server|protected-resource)(/.*)?"
    r"|oauth/(token|revoke|register(/[^/]+)?))$"
)
CORS_ALLOW_ALL_ORIGINS = True
CORS_ALLOW_HEADERS = (*cors_default_headers, "mcp-protocol-version")
