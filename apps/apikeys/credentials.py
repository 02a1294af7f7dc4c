"""The MCP endpoint's second scheme (SPEC 5.2): a personal access token with an API key.

Recognised by `Authorization: Bearer atp_…`; the OAuth scheme (order 10) leaves such tokens alone.
"""

from collections.abc import Mapping

from django.conf import settings
from django.utils.translation import gettext_lazy as _

from apps.accounts.authentication import bearer_value
from apps.accounts.models import PersonalAccessToken
from apps.apikeys.authentication import authenticate_token_and_key
from apps.apikeys.models import ApiKey
from apps.core import credentials
from apps.core.credentials import CredentialRequest, Principal


@credentials.register(order=20)
def access_token_and_api_key(request: CredentialRequest) -> Principal | None:
    authorization = request.headers.get("authorization", "")
    value = bearer_value(authorization)
    if value is None or not value.startswith(f"{settings.ACCESS_TOKEN_PREFIX}_"):
        return None
    credential = authenticate_token_and_key(
        authorization=authorization, api_key=request.headers.get("x-api-key")
    )
    return Principal(
        user=credential.user,
        scheme="access_token",
        scopes=frozenset({"mcp"}),
        credential=f"pat:{credential.token.pk}",
        client=credential.key.label,
        api_key_id=credential.key.pk,
        profile=credential.key.profile,
        good_until=credential.token.expires_at.timestamp(),
        # Spending is not told to the doors: a key with a budget is checked again every few seconds.
        kept_briefly=credential.key.budget_usd_cents is not None,
    )


@credentials.namer("pat", kind=_("access token"))
def access_token_names(ids: list[str]) -> Mapping[str, str]:
    """The names of the personal access tokens the audit log identifies as `pat:<pk>`."""
    wanted = [int(ident) for ident in ids if ident.isascii() and ident.isdigit()]
    return {
        str(pk): name
        for pk, name in PersonalAccessToken.objects.filter(pk__in=wanted).values_list("pk", "name")
    }


@credentials.namer("key", kind=_("API key"))
def api_key_names(ids: list[str]) -> Mapping[str, str]:
    """The labels of the API keys the audit log names by id (`ToolCall.api_key_id`), as "key:<pk>"."""
    wanted = [int(ident) for ident in ids if ident.isascii() and ident.isdigit()]
    return {str(pk): label for pk, label in ApiKey.objects.filter(pk__in=wanted).values_list("pk", "label")}
