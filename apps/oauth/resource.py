"""The protected resource (the MCP endpoint) as OAuth sees it: its identifier, its metadata
document, and the `WWW-Authenticate` challenge the MCP door answers with (SPEC 4.1).

Everything here is derived from the workspace's origin, `{base_url}`: scheme://host[:port] as
the client reached it, no trailing slash. It is also the issuer of the authorization server, and
clients compare both as exact strings.
"""

from urllib.parse import urlsplit

from django.http import HttpRequest

MCP_PATH = "/api/mcp"
RESOURCE_METADATA_PATH = "/.well-known/oauth-protected-resource"
SERVER_METADATA_PATH = "/.well-known/oauth-authorization-server"

_DEFAULT_PORTS = {"http": 80, "https": 443}


def base_url_of(request: HttpRequest) -> str:
    """The workspace's origin as this request reached it: "http://127.0.0.1:8000"."""
    return f"{request.scheme}://{request.get_host()}"


def resource_for(base_url: str) -> str:
    """The resource every token is bound to (RFC 8707): the MCP endpoint's URL."""
    return f"{base_url}{MCP_PATH}"


def resource_metadata_url(base_url: str) -> str:
    return f"{base_url}{RESOURCE_METADATA_PATH}"


def is_same_resource(value: str, base_url: str) -> bool:
    """Whether a client's `resource` parameter names this workspace's MCP endpoint.

    Compared as URLs, the way RFC 3986 normalises them (scheme and host case, default port, one
    trailing slash), so a client that writes the identifier slightly differently is not refused;
    what the token records is always the canonical `resource_for(base_url)`.
    """
    expected = _normalised(resource_for(base_url))
    return expected is not None and _normalised(value) == expected


def _normalised(value: object) -> tuple[str, str, int | None, str] | None:
    if not isinstance(value, str) or "#" in value or "?" in value:
        return None
    try:
        parts = urlsplit(value.strip())
        port = parts.port
    except ValueError:
        return None
    if parts.username is not None or parts.password is not None or not parts.hostname:
        return None
    scheme = parts.scheme.lower()
    return (scheme, parts.hostname.lower(), port or _DEFAULT_PORTS.get(scheme), parts.path.rstrip("/"))


def _quoted(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\r", " ").replace("\n", " ")


def challenge(
    base_url: str, *, error: str | None = None, description: str | None = None, scope: str | None = None
) -> str:
    """The `WWW-Authenticate` value of a 401 (or, with `error="insufficient_scope"`, a 403) from
    the MCP endpoint:

        Bearer resource_metadata="{base_url}/.well-known/oauth-protected-resource"

    RFC 6750 §3: no `error` when the request carried no credential at all; `invalid_token` when
    it carried a bad one; `insufficient_scope` with the `scope` it needs when the token is good
    but too narrow.
    """
    params = []
    if error:
        params.append(f'error="{_quoted(error)}"')
    if description:
        params.append(f'error_description="{_quoted(description)}"')
    if scope:
        params.append(f'scope="{_quoted(scope)}"')
    params.append(f'resource_metadata="{resource_metadata_url(base_url)}"')
    return "Bearer " + ", ".join(params)


def insufficient_scope_challenge(base_url: str, *, scope: str) -> str:
    """The challenge of a 403 for a token whose scope is too narrow for what it asked."""
    return challenge(
        base_url,
        error="insufficient_scope",
        description=f"This needs the {scope} scope.",
        scope=scope,
    )
