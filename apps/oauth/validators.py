"""django-oauth-toolkit's request validator, extended where Atrium's rules go further.

- Tokens are bound to this workspace's MCP endpoint: the `resource` of a token request must name
  it (or be left out), and what is stored is always the canonical `{base_url}/api/mcp`.
- A spent authorization code that comes back revokes what it issued (RFC 6749 §4.1.2).
- Concurrent uses of one code or one refresh token are serialised (the token view runs in a
  transaction, these lock the row), so the second is seen as the replay it is.
- At most one `profile:<key>` scope, and a refresh keeps the one the connection was pinned to.
- Each issued token updates the person's "Connected apps" entry.
"""

import hashlib
import logging
from typing import Any

from django.utils import timezone
from oauth2_provider.models import (
    AbstractAccessToken,
    AbstractRefreshToken,
    get_access_token_model,
    get_grant_model,
    get_refresh_token_model,
    revoke_access_token,
)
from oauth2_provider.oauth2_validators import OAuth2Validator
from oauthlib.oauth2.rfc6749 import errors

from apps.oauth import resource, services
from apps.oauth import scopes as scopes_module
from apps.oauth.models import SpentCode
from apps.oauth.server import base_url_of

logger = logging.getLogger(__name__)


def code_digest(code: str) -> str:
    return hashlib.sha256(code.encode()).hexdigest()


class Validator(OAuth2Validator):
    # --- scopes ----------------------------------------------------------------------------

    def validate_scopes(
        self, client_id: str, scopes: Any, client: Any, request: Any, *args: Any, **kwargs: Any
    ) -> bool:
        return len(scopes_module.profile_scopes(scopes)) <= 1 and super().validate_scopes(
            client_id, scopes, client, request, *args, **kwargs
        )

    # --- authorization codes ---------------------------------------------------------------

    def validate_code(
        self, client_id: str, code: str, client: Any, request: Any, *args: Any, **kwargs: Any
    ) -> bool:
        grant = (
            get_grant_model()
            .objects.select_for_update(of=("self",))
            .select_related("user")
            .filter(code=code, application=client)
            .first()
        )
        if grant is None:
            self._revoke_what_a_spent_code_issued(code)
            return False
        if not grant.user.is_active:
            return False
        return super().validate_code(client_id, code, client, request, *args, **kwargs)

    def _revoke_what_a_spent_code_issued(self, code: str) -> None:
        spent = SpentCode.objects.select_for_update().filter(digest=code_digest(code)).first()
        if spent is None:
            return
        access_token = get_access_token_model().objects.filter(pk=spent.access_token_id).first()
        if access_token is not None:
            revoke_access_token(access_token)
        if spent.token_family is not None:
            get_refresh_token_model().revoke_family(spent.token_family)
        if spent.replayed_at is None:
            SpentCode.objects.filter(pk=spent.pk).update(replayed_at=timezone.now())
        logger.warning("authorization code %s replayed: what it issued is revoked", spent.pk)

    def invalidate_authorization_code(
        self, client_id: str, code: str, request: Any, *args: Any, **kwargs: Any
    ) -> None:
        access_token = getattr(request, "atrium_access_token", None)
        refresh_token = getattr(request, "atrium_refresh_token", None)
        SpentCode.objects.create(
            digest=code_digest(code),
            application=request.client,
            access_token_id=access_token.pk if access_token is not None else None,
            token_family=refresh_token.token_family if refresh_token is not None else None,
        )
        super().invalidate_authorization_code(client_id, code, request, *args, **kwargs)

    # --- refresh tokens --------------------------------------------------------------------

    def validate_refresh_token(
        self, refresh_token: str, client: Any, request: Any, *args: Any, **kwargs: Any
    ) -> bool:
        # Hold the row until this request is done: a concurrent use of the same token then
        # waits, finds it rotated, and is treated as a replay (the family is revoked).
        checksum = hashlib.sha256(refresh_token.encode()).hexdigest()
        list(get_refresh_token_model().objects.select_for_update().filter(token_checksum=checksum))
        if not super().validate_refresh_token(refresh_token, client, request, *args, **kwargs):
            return False
        # A person who left (deactivated) gets no new tokens, whatever their clients hold.
        return bool(request.user is not None and request.user.is_active)

    # --- the resource (RFC 8707) -----------------------------------------------------------

    def _check_and_set_request_resource(self, request: Any) -> None:
        base_url = base_url_of(request)
        expected = resource.resource_for(base_url)
        values = request.resource if isinstance(getattr(request, "resource", None), list) else None
        if values is None:
            value = getattr(request, "resource", None)
            values = [value] if isinstance(value, str) and value.strip() else []
            body_values = [v for k, v in (getattr(request, "decoded_body", None) or []) if k == "resource"]
            if len(body_values) > 1:
                values = body_values
        for value in values:
            if not resource.is_same_resource(value, base_url):
                raise errors.CustomOAuth2Error(
                    "invalid_target",
                    description=f"Tokens here are only for {expected}.",
                    request=request,
                )
        request.resource = [expected] if values else []
        super()._check_and_set_request_resource(request)
        if request.resource != [expected]:
            # A grant or refresh token made for another origin of this workspace.
            raise errors.CustomOAuth2Error(
                "invalid_target", description=f"Tokens here are only for {expected}.", request=request
            )

    # --- what a token issues ---------------------------------------------------------------

    def _create_access_token(
        self, expires: Any, request: Any, token: Any, source_refresh_token: Any = None
    ) -> AbstractAccessToken:
        access_token = super()._create_access_token(expires, request, token, source_refresh_token)
        request.atrium_access_token = access_token
        return access_token

    def _create_refresh_token(
        self, request: Any, refresh_token_code: str, access_token: Any, previous_refresh_token: Any
    ) -> AbstractRefreshToken:
        refresh_token = super()._create_refresh_token(
            request, refresh_token_code, access_token, previous_refresh_token
        )
        request.atrium_refresh_token = refresh_token
        return refresh_token

    def _save_bearer_token(self, token: Any, request: Any, *args: Any, **kwargs: Any) -> None:
        if request.grant_type == "refresh_token":
            # The profile the person pinned stays, whatever (narrower) scope the refresh asks for:
            # leaving it out would widen what the connection lists.
            original = self.get_original_scopes(request.refresh_token, request)
            pinned = scopes_module.profile_of(str(original).split())
            if pinned:
                token["scope"] = scopes_module.with_profile(token["scope"], pinned)
        super()._save_bearer_token(token, request, *args, **kwargs)
        if request.user is not None and request.client is not None:
            services.connection_record(user=request.user, application=request.client, scope=token["scope"])
