"""Failures of the OAuth scheme at the MCP door. All are 401 UNAUTHENTICATED (SPEC 7.1, 7.2); the
message says which, and `headers` carries the RFC 6750 `invalid_token` challenge."""

from django.utils.translation import gettext_lazy as _

from apps.core.errors import Forbidden, Unauthenticated


class InvalidOAuthToken(Unauthenticated):
    # RFC 6750 error code for the WWW-Authenticate challenge.
    oauth_error = "invalid_token"
    message = _("The access token is not valid here.")


class UnknownOAuthToken(InvalidOAuthToken):
    message = _("The access token is unknown or has been revoked.")


class ExpiredOAuthToken(InvalidOAuthToken):
    message = _("The access token has expired; refresh it or sign in again.")


class OAuthTokenForAnotherResource(InvalidOAuthToken):
    message = _("The access token was not issued for this MCP endpoint.")


class OAuthTokenWithoutMcpScope(InvalidOAuthToken):
    message = _("The access token carries none of the scopes mcp, mcp:read, mcp:write.")


class OAuthTokenWithoutPerson(InvalidOAuthToken):
    message = _("The access token does not stand for an active person of this workspace.")


class InsufficientScope(Forbidden):
    """A good token whose scope is too narrow for what it asked (403 `insufficient_scope`)."""

    code = "INSUFFICIENT_SCOPE"
    oauth_error = "insufficient_scope"
    message = _("The access token's scope does not allow this.")
