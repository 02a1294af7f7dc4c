"""How the authorization server appears in the OpenAPI schema: the discovery documents (RFC 9728,
RFC 8414), authorization, token, revocation and dynamic registration (RFC 7591, RFC 7592).

They are the toolkit's Django views, not DRF views, so a postprocessing hook adds their paths
(SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"]). The values (scopes, grants, PKCE method, limits,
lifetimes) are read from the settings and modules that enforce them. Errors of these endpoints
are OAuth's (`{"error", "error_description"}`, RFC 6749 5.2), as SPEC 4.3 says; a path that does
not exist under /.well-known/ answers SPEC 7.1's 404.
"""

from typing import Any

from django.conf import settings

from apps.core.api.schema import absolute, error_answer
from apps.oauth import registration, resource, scopes

TAG = "OAuth and discovery"


def _oauth_settings() -> dict[str, Any]:
    return dict(settings.OAUTH2_PROVIDER)


def advertised_scopes() -> dict[str, str]:
    """The scopes the authorization server advertises, with the words the consent page uses."""
    return {name: str(words) for name, words in _oauth_settings()["SCOPES"].items()}


def _oauth_error(description: str, codes: list[str]) -> dict[str, Any]:
    return {
        "description": description,
        "content": {
            "application/json": {
                "schema": {
                    "allOf": [{"$ref": "#/components/schemas/OAuthError"}],
                    "properties": {"error": {"enum": codes}},
                }
            }
        },
    }


def _string_list(description: str, values: list[str] | tuple[str, ...] | None = None) -> dict[str, Any]:
    items: dict[str, Any] = {"type": "string"}
    if values:
        items["enum"] = list(values)
    return {"type": "array", "items": items, "description": description}


def components() -> dict[str, Any]:
    oauth = _oauth_settings()
    scope_names = list(advertised_scopes())
    return {
        "OAuthError": {
            "type": "object",
            "description": "An OAuth error (RFC 6749 section 5.2, RFC 7591 section 3.2.2).",
            "required": ["error"],
            "properties": {
                "error": {"type": "string", "description": "The error code, e.g. invalid_grant."},
                "error_description": {"type": "string", "description": "What to change, for a person."},
            },
        },
        "ProtectedResourceMetadata": {
            "type": "object",
            "description": "RFC 9728 metadata of the workspace's one protected resource, its MCP endpoint.",
            "required": ["resource", "authorization_servers"],
            "properties": {
                "resource": {
                    "type": "string",
                    "format": "uri",
                    "description": f"`{{base_url}}{resource.MCP_PATH}`: what every token is bound to.",
                },
                "authorization_servers": _string_list(
                    "One entry, `{base_url}`: the workspace is its own authorization server (the issuer)."
                ),
                "bearer_methods_supported": _string_list("How a token is sent.", ["header"]),
                "scopes_supported": _string_list("Scopes the resource understands.", scopes.RESOURCE_SCOPES),
                "resource_name": {"type": "string", "description": "The workspace's brand name."},
            },
        },
        "AuthorizationServerMetadata": {
            "type": "object",
            "description": "RFC 8414 metadata of the workspace's authorization server.",
            "required": ["issuer", "authorization_endpoint", "token_endpoint", "response_types_supported"],
            "properties": {
                "issuer": {
                    "type": "string",
                    "format": "uri",
                    "description": "`{base_url}`, compared by clients as an exact string.",
                },
                "authorization_endpoint": {"type": "string", "format": "uri"},
                "token_endpoint": {"type": "string", "format": "uri"},
                "revocation_endpoint": {"type": "string", "format": "uri"},
                "registration_endpoint": {"type": "string", "format": "uri"},
                "response_types_supported": _string_list("", oauth["OAUTH2_RESPONSE_TYPES_SUPPORTED"]),
                "grant_types_supported": _string_list("", oauth["OAUTH2_GRANT_TYPES_SUPPORTED"]),
                "code_challenge_methods_supported": _string_list("PKCE is required, with S256.", ["S256"]),
                "scopes_supported": _string_list(
                    "The advertised scopes (profile scopes are accepted but not listed).", scope_names
                ),
                "token_endpoint_auth_methods_supported": _string_list(
                    "", oauth["OAUTH2_TOKEN_ENDPOINT_AUTH_METHODS_SUPPORTED"]
                ),
                "authorization_response_iss_parameter_supported": {
                    "type": "boolean",
                    "description": "True: every redirect back to the client carries `iss` (RFC 9207).",
                },
            },
            "additionalProperties": True,
        },
        "TokenResponse": {
            "type": "object",
            "required": ["access_token", "token_type", "expires_in", "scope"],
            "properties": {
                "access_token": {"type": "string"},
                "token_type": {"type": "string", "enum": ["Bearer"]},
                "expires_in": {
                    "type": "integer",
                    "description": f"Seconds; access tokens live {oauth['ACCESS_TOKEN_EXPIRE_SECONDS']} s.",
                },
                "scope": {"type": "string", "description": "The granted scopes, space-separated."},
                "refresh_token": {
                    "type": "string",
                    "description": "Only with `offline_access`; every refresh answers a new one (rotation) "
                    "and a replayed one revokes its whole family.",
                },
            },
        },
        "ClientMetadata": {
            "type": "object",
            "description": "RFC 7591 client metadata, validated before the client is made.",
            "required": ["redirect_uris"],
            "properties": {
                "redirect_uris": {
                    "type": "array",
                    "minItems": 1,
                    "maxItems": registration.MAX_REDIRECT_URIS,
                    "items": {"type": "string", "maxLength": registration.MAX_URI_LENGTH},
                    "description": "https anywhere; http only on 127.0.0.1, [::1] or localhost (any port); "
                    "or one of the custom schemes "
                    + ", ".join(settings.OAUTH_REDIRECT_URI_SCHEMES)
                    + ". No fragment or user information.",
                },
                "client_name": {"type": "string", "maxLength": registration.MAX_CLIENT_NAME_LENGTH},
                "grant_types": _string_list(
                    "Must include authorization_code.", oauth["OAUTH2_GRANT_TYPES_SUPPORTED"]
                ),
                "response_types": _string_list("", oauth["OAUTH2_RESPONSE_TYPES_SUPPORTED"]),
                "token_endpoint_auth_method": {
                    "type": "string",
                    "enum": oauth["OAUTH2_TOKEN_ENDPOINT_AUTH_METHODS_SUPPORTED"],
                    "description": "`none` for a public client (no secret); "
                    "the default is client_secret_basic.",
                },
                "scope": {
                    "type": "string",
                    "description": "Space-separated, among " + ", ".join(scope_names),
                },
            },
        },
        "ClientInformation": {
            "type": "object",
            "description": "The registered client (RFC 7591 section 3.2.1, RFC 7592).",
            "required": ["client_id", "redirect_uris"],
            "properties": {
                "client_id": {"type": "string"},
                "client_secret": {
                    "type": "string",
                    "description": "Confidential clients only; shown in this answer only.",
                },
                "client_id_issued_at": {"type": "integer"},
                "client_secret_expires_at": {"type": "integer", "description": "0: never."},
                "registration_access_token": {"type": "string"},
                "registration_client_uri": {"type": "string", "format": "uri"},
                "redirect_uris": {"type": "array", "items": {"type": "string"}},
                "client_name": {"type": "string"},
                "grant_types": {"type": "array", "items": {"type": "string"}},
                "response_types": {"type": "array", "items": {"type": "string"}},
                "token_endpoint_auth_method": {"type": "string"},
                "scope": {"type": "string"},
            },
            "additionalProperties": True,
        },
    }


def security_schemes(request: Any) -> dict[str, Any]:
    return {
        "oauth2": {
            "type": "oauth2",
            "description": "The workspace's own authorization server (OAuth 2.1): authorization code with "
            "PKCE S256, dynamic client registration, tokens bound to `{base_url}/api/mcp` (RFC 8707 "
            "`resource`). Scopes narrow what a connection sees; the person's role is the real boundary.",
            "flows": {
                "authorizationCode": {
                    "authorizationUrl": absolute(request, "/oauth/authorize"),
                    "tokenUrl": absolute(request, "/oauth/token"),
                    "refreshUrl": absolute(request, "/oauth/token"),
                    "scopes": advertised_scopes(),
                }
            },
        },
        "registrationAccessToken": {
            "type": "http",
            "scheme": "bearer",
            "description": "The registration access token answered by POST /oauth/register (RFC 7592).",
        },
    }


def _metadata_get(operation_id: str, summary: str, description: str, schema: str) -> dict[str, Any]:
    return {
        "get": {
            "operationId": operation_id,
            "summary": summary,
            "description": description,
            "tags": [TAG],
            "security": [],
            "parameters": [
                {
                    "in": "header",
                    "name": "MCP-Protocol-Version",
                    "required": False,
                    "schema": {"type": "string"},
                    "description": "MCP clients send it on discovery; it is allowed (CORS) and not needed.",
                }
            ],
            "responses": {
                "200": {
                    "description": "The document (CORS: any origin).",
                    "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{schema}"}}},
                },
                "404": error_answer("NOT_FOUND: no such document here."),
            },
        }
    }


def _form_body(required: list[str], properties: dict[str, Any]) -> dict[str, Any]:
    """The body of an OAuth endpoint that takes a form (RFC 6749: application/x-www-form-urlencoded)."""
    schema = {"type": "object", "required": required, "properties": properties}
    return {"required": True, "content": {"application/x-www-form-urlencoded": {"schema": schema}}}


def paths() -> dict[str, Any]:
    oauth = _oauth_settings()
    resource_metadata = _metadata_get(
        "getProtectedResourceMetadata",
        "Protected-resource metadata (RFC 9728)",
        "Which authorization server protects the MCP endpoint. The URL a 401 of /api/mcp names in "
        "`resource_metadata`.",
        "ProtectedResourceMetadata",
    )
    path_form = _metadata_get(
        "getProtectedResourceMetadataForMcp",
        "Protected-resource metadata, path form",
        "The same document at the path form RFC 9728 gives for the resource `/api/mcp`; any other "
        "path after the well-known name answers 404.",
        "ProtectedResourceMetadata",
    )
    return {
        resource.RESOURCE_METADATA_PATH: resource_metadata,
        f"{resource.RESOURCE_METADATA_PATH}{resource.MCP_PATH}": path_form,
        resource.SERVER_METADATA_PATH: _metadata_get(
            "getAuthorizationServerMetadata",
            "Authorization-server metadata (RFC 8414)",
            "Endpoints, grants, PKCE method and scopes of the workspace's authorization server. There "
            "is no OpenID discovery document.",
            "AuthorizationServerMetadata",
        ),
        "/oauth/authorize": {
            "get": {
                "operationId": "authorize",
                "summary": "Authorization endpoint (a browser page)",
                "description": "Opened in the person's browser: the workspace's sign-in page, then the "
                "consent page (Allow or Deny; the person may pin the connection to a tool profile). "
                "A malformed request (no S256 challenge, an unknown scope, another resource) is "
                "refused before either page with an error redirect; an unknown client or an "
                "unregistered redirect URI gets an error page, never a redirect. Every redirect "
                "carries `iss`.",
                "tags": [TAG],
                "security": [],
                "parameters": [
                    _query("response_type", "`code`.", True, enum=oauth["OAUTH2_RESPONSE_TYPES_SUPPORTED"]),
                    _query("client_id", "From dynamic registration.", True),
                    _query("redirect_uri", "One of the client's registered redirect URIs.", True),
                    _query("code_challenge", "PKCE: BASE64URL(SHA-256(code_verifier)).", True),
                    _query("code_challenge_method", "Only S256.", True, enum=["S256"]),
                    _query(
                        "scope",
                        "Space-separated; at least one of mcp, mcp:read, mcp:write (none given: mcp); "
                        "offline_access for a refresh token; at most one profile:<key>.",
                        False,
                    ),
                    _query("state", "Returned unchanged.", False),
                    _query("resource", f"RFC 8707; defaults to `{{base_url}}{resource.MCP_PATH}`.", False),
                ],
                "responses": {
                    "200": {"description": "The sign-in or consent page.", "content": {"text/html": {}}},
                    "302": {
                        "description": "Back to `redirect_uri` with `code` (single use, "
                        f"{oauth['AUTHORIZATION_CODE_EXPIRE_SECONDS']} s), `state` and `iss`; or with "
                        "`error` (invalid_request, invalid_scope, invalid_target, access_denied, "
                        "unsupported_response_type), `state` and `iss`. To the sign-in page first when "
                        "no one is signed in.",
                        "headers": {"Location": {"schema": {"type": "string"}}},
                    },
                    "400": {
                        "description": "Unknown client or unregistered redirect URI: an error page.",
                        "content": {"text/html": {}},
                    },
                },
            }
        },
        "/oauth/token": {
            "post": {
                "operationId": "token",
                "summary": "Token endpoint",
                "description": "Exchanges a code (with its PKCE verifier) or a refresh token. Public "
                "clients send `client_id`; confidential ones authenticate with their secret "
                "(client_secret_basic or client_secret_post). A spent code that comes back revokes "
                "what it issued.",
                "tags": [TAG],
                "security": [],
                "requestBody": _form_body(
                    ["grant_type"],
                    {
                        "grant_type": {"type": "string", "enum": oauth["OAUTH2_GRANT_TYPES_SUPPORTED"]},
                        "code": {"type": "string"},
                        "redirect_uri": {"type": "string"},
                        "code_verifier": {"type": "string"},
                        "refresh_token": {"type": "string"},
                        "client_id": {"type": "string"},
                        "client_secret": {"type": "string"},
                        "scope": {"type": "string", "description": "On refresh: may narrow, never widen."},
                        "resource": {"type": "string"},
                    },
                ),
                "responses": {
                    "200": {
                        "description": "Tokens (Cache-Control: no-store).",
                        "content": {
                            "application/json": {"schema": {"$ref": "#/components/schemas/TokenResponse"}}
                        },
                    },
                    "400": _oauth_error(
                        "The request was refused.",
                        [
                            "invalid_request",
                            "invalid_grant",
                            "invalid_scope",
                            "invalid_target",
                            "unsupported_grant_type",
                        ],
                    ),
                    "401": _oauth_error("The client could not be authenticated.", ["invalid_client"]),
                },
            }
        },
        "/oauth/revoke": {
            "post": {
                "operationId": "revokeToken",
                "summary": "Revoke a token (RFC 7009)",
                "description": "Revoking either token of a pair ends both. "
                "An unknown token also answers 200.",
                "tags": [TAG],
                "security": [],
                "requestBody": _form_body(
                    ["token"],
                    {
                        "token": {"type": "string"},
                        "token_type_hint": {"type": "string", "enum": ["access_token", "refresh_token"]},
                        "client_id": {"type": "string"},
                        "client_secret": {"type": "string"},
                    },
                ),
                "responses": {
                    "200": {"description": "Revoked (or unknown)."},
                    "400": _oauth_error(
                        "The request was refused.", ["invalid_request", "unsupported_token_type"]
                    ),
                    "401": _oauth_error("The client could not be authenticated.", ["invalid_client"]),
                },
            }
        },
        "/oauth/register": {
            "post": {
                "operationId": "registerClient",
                "summary": "Dynamic client registration (RFC 7591)",
                "description": "Open to anonymous clients, validated, and rate-limited per client address "
                f"({settings.OAUTH_REGISTRATIONS_PER_HOUR} an hour). A client that obtains no token "
                f"within {settings.OAUTH_UNUSED_CLIENT_HOURS} hours is deleted.",
                "tags": [TAG],
                "security": [],
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {"schema": {"$ref": "#/components/schemas/ClientMetadata"}}
                    },
                },
                "responses": {
                    "201": {
                        "description": "Registered.",
                        "content": {
                            "application/json": {"schema": {"$ref": "#/components/schemas/ClientInformation"}}
                        },
                    },
                    "400": _oauth_error(
                        "The metadata was refused; the description says what to change.",
                        ["invalid_redirect_uri", "invalid_client_metadata"],
                    ),
                    "413": _oauth_error(
                        f"The body is larger than {registration.MAX_BODY_BYTES} bytes.",
                        ["invalid_client_metadata"],
                    ),
                    "429": {
                        **_oauth_error("Too many registrations from this address.", ["too_many_requests"]),
                        "headers": {"Retry-After": {"schema": {"type": "integer"}}},
                    },
                },
            }
        },
        "/oauth/register/{client_id}": {
            **{
                method: {
                    "operationId": operation_id,
                    "parameters": [
                        {"in": "path", "name": "client_id", "required": True, "schema": {"type": "string"}},
                    ],
                    "summary": summary,
                    "tags": [TAG],
                    "security": [{"registrationAccessToken": []}],
                    **(
                        {
                            "requestBody": {
                                "required": True,
                                "content": {
                                    "application/json": {
                                        "schema": {"$ref": "#/components/schemas/ClientMetadata"}
                                    }
                                },
                            }
                        }
                        if method == "put"
                        else {}
                    ),
                    "responses": {
                        **(
                            {"204": {"description": "Deleted."}}
                            if method == "delete"
                            else {
                                "200": {
                                    "description": "The client as registered.",
                                    "content": {
                                        "application/json": {
                                            "schema": {"$ref": "#/components/schemas/ClientInformation"}
                                        }
                                    },
                                }
                            }
                        ),
                        **(
                            {
                                "400": _oauth_error(
                                    "The metadata was refused.",
                                    ["invalid_redirect_uri", "invalid_client_metadata"],
                                )
                            }
                            if method == "put"
                            else {}
                        ),
                        "401": {
                            "description": "The registration access token is missing, wrong "
                            "or for another client."
                        },
                    },
                }
                for method, operation_id, summary in (
                    ("get", "getClientRegistration", "Read a registration (RFC 7592)"),
                    ("put", "updateClientRegistration", "Update a registration (RFC 7592)"),
                    ("delete", "deleteClientRegistration", "Delete a registration (RFC 7592)"),
                )
            },
        },
    }


def _query(name: str, description: str, required: bool, enum: list[str] | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    if enum:
        schema["enum"] = list(enum)
    return {"in": "query", "name": name, "required": required, "description": description, "schema": schema}


def add_paths(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """Postprocessing hook: the authorization server's paths, components and security schemes."""
    result.setdefault("paths", {}).update(paths())
    found = result.setdefault("components", {})
    found.setdefault("schemas", {}).update(components())
    found.setdefault("securitySchemes", {}).update(security_schemes(request))
    return result
