"""The oauthlib server django-oauth-toolkit drives, cut down to what Atrium offers.

- Grants: authorization_code (PKCE with S256 only) and refresh_token. No implicit, password,
  client-credentials or device grants exist here, whatever a client asks.
- A refresh token is issued only when `offline_access` is granted; a refresh always rotates it.
- Every authorization request is bound to this workspace's MCP endpoint (RFC 8707 `resource`,
  defaulting to it) and must ask for at least one MCP scope; both are checked before the
  consent page is shown, and again when the person answers it.

`OAuthLibCore` hands the workspace's origin to the validator (oauthlib sees only the path).
"""

from typing import Any
from urllib.parse import parse_qs

from django.http import HttpRequest
from oauth2_provider import oauth2_backends
from oauthlib.oauth2.rfc6749 import errors
from oauthlib.oauth2.rfc6749.endpoints import (
    AuthorizationEndpoint,
    ResourceEndpoint,
    RevocationEndpoint,
    TokenEndpoint,
)
from oauthlib.oauth2.rfc6749.grant_types import AuthorizationCodeGrant, RefreshTokenGrant
from oauthlib.oauth2.rfc6749.grant_types.authorization_code import code_challenge_method_s256
from oauthlib.oauth2.rfc6749.tokens import BearerToken

from apps.oauth import resource, scopes

# oauthlib's headers dict is Django's META: client headers all start with HTTP_, so this key
# cannot be sent by a client.
BASE_URL_KEY = "ATRIUM_BASE_URL"


def base_url_of(request: Any) -> str:
    """The workspace origin of an oauthlib request (set by `OAuthLibCore.extract_headers`)."""
    return request.headers[BASE_URL_KEY]


def requested_resources(request: Any) -> list[str]:
    """Every `resource` parameter of an authorization request (RFC 8707 allows repeating it)."""
    value = getattr(request, "resource", None)
    if isinstance(value, list):
        return [str(item) for item in value]
    from_query = parse_qs(request.uri_query or "", keep_blank_values=True).get("resource")
    if from_query:
        return from_query
    return [value] if isinstance(value, str) and value else []


def bind_to_mcp_resource(request: Any) -> dict[str, Any]:
    """Authorization requests: the resource is the MCP endpoint (a missing one defaults to it,
    anything else is `invalid_target`), and the scopes include an MCP scope."""
    base_url = base_url_of(request)
    for value in requested_resources(request):
        if not resource.is_same_resource(value, base_url):
            raise errors.CustomOAuth2Error(
                "invalid_target",
                description=f"Tokens here are only for {resource.resource_for(base_url)}.",
                request=request,
            )
    request.resource = [resource.resource_for(base_url)]
    if not scopes.mcp_scopes(request.scopes or []):
        raise errors.InvalidScopeError(
            description="Ask for at least one of the scopes mcp, mcp:read, mcp:write.", request=request
        )
    return {}


class OfflineAccessBearerToken(BearerToken):
    """Refresh tokens only with `offline_access` (and always on a refresh, so rotation never
    leaves the old refresh token alive)."""

    def create_token(self, request: Any, refresh_token: bool = False, **kwargs: Any) -> Any:
        if request.grant_type != "refresh_token":
            refresh_token = refresh_token and scopes.OFFLINE_ACCESS in (request.scopes or [])
        return super().create_token(request, refresh_token=refresh_token, **kwargs)


class Server(AuthorizationEndpoint, TokenEndpoint, ResourceEndpoint, RevocationEndpoint):
    def __init__(
        self,
        request_validator: Any,
        token_expires_in: Any = None,
        token_generator: Any = None,
        refresh_token_generator: Any = None,
        **_device_flow_options: Any,
    ) -> None:
        self.auth_grant = AuthorizationCodeGrant(request_validator, post_auth=[bind_to_mcp_resource])
        # RFC 9700 §2.1.1: S256 only. A missing method means "plain" to oauthlib, so it is
        # refused too, before the consent page.
        self.auth_grant._code_challenge_methods = {"S256": code_challenge_method_s256}  # type: ignore[attr-defined]
        self.refresh_grant = RefreshTokenGrant(request_validator)
        self.bearer = OfflineAccessBearerToken(
            request_validator, token_generator, token_expires_in, refresh_token_generator
        )
        # The token handler itself, as oauthlib's own Server passes it (its stubs say a name).
        AuthorizationEndpoint.__init__(
            self,
            default_response_type="code",
            response_types={"code": self.auth_grant},
            default_token_type=self.bearer,  # type: ignore[arg-type]
        )
        TokenEndpoint.__init__(
            self,
            default_grant_type="authorization_code",
            grant_types={"authorization_code": self.auth_grant, "refresh_token": self.refresh_grant},
            default_token_type=self.bearer,  # type: ignore[arg-type]
        )
        ResourceEndpoint.__init__(self, default_token="Bearer", token_types={"Bearer": self.bearer})  # noqa: S106
        RevocationEndpoint.__init__(self, request_validator)


class OAuthLibCore(oauth2_backends.OAuthLibCore):
    def extract_headers(self, request: HttpRequest) -> dict[str, Any]:
        headers = super().extract_headers(request)
        headers[BASE_URL_KEY] = resource.base_url_of(request)
        return headers
