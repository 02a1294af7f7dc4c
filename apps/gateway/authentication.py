"""Who may read and cancel conversations: the personal access token and API key of SPEC 5.2,
checked by the one check of apps.apikeys, except that a spent budget does not lock the owner out
of the replies they already paid for. Only sending a message is refused with 429 BUDGET_EXCEEDED.
"""

from typing import Any

from rest_framework.request import Request

from apps.accounts.authentication import authenticate_access_token, bearer_value
from apps.apikeys import selectors as apikeys_selectors
from apps.apikeys.authentication import (
    AccessTokenAndApiKeyAuthentication,
    KeyCredential,
    authenticate_token_and_key,
)
from apps.apikeys.errors import BudgetExceeded


class ReadingAuthentication(AccessTokenAndApiKeyAuthentication):
    def authenticate(self, request: Request) -> tuple[Any, KeyCredential]:
        authorization = request.META.get("HTTP_AUTHORIZATION")
        api_key = request.META.get("HTTP_X_API_KEY")
        try:
            credential = authenticate_token_and_key(authorization=authorization, api_key=api_key)
        except BudgetExceeded:
            # The budget is the check's last step: the token and the key are good and belong together.
            token = authenticate_access_token(bearer_value(authorization or "") or "")
            key = apikeys_selectors.api_key_for_secret(api_key or "")
            if key is None or key.user_id != token.user_id:  # changed in between: check it all again
                raise
            credential = KeyCredential(token=token, key=key)
        return credential.user, credential
