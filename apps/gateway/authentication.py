"""Who may use `/api/agent`: the personal access token and API key of SPEC 5.2, checked by the one
check of apps.apikeys (every SPEC 7.1 refusal, in order), except that a spent budget does not lock
the owner out of the replies they already paid for: polling, listing and cancelling stay open.
Only sending a message is refused with 429 BUDGET_EXCEEDED (`AgentView.post` checks the budget
first thing, so the order of refusals is the same as the full check's)."""

from typing import Any

from rest_framework.request import Request

from apps.apikeys.authentication import (
    AccessTokenAndApiKeyAuthentication,
    KeyCredential,
    authenticate_token_and_key,
)


class GatewayAuthentication(AccessTokenAndApiKeyAuthentication):
    def authenticate(self, request: Request) -> tuple[Any, KeyCredential]:
        credential = authenticate_token_and_key(
            authorization=request.META.get("HTTP_AUTHORIZATION"),
            api_key=request.META.get("HTTP_X_API_KEY"),
            budget=False,
        )
        return credential.user, credential
