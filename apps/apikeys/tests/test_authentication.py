"""The token + key check (SPEC 5.2, 7.1): every refusal, in the right order, through each door."""

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.test import APIRequestFactory
from rest_framework.views import APIView

from apps.accounts.models import PersonalAccessToken
from apps.apikeys import services
from apps.apikeys.authentication import AccessTokenAndApiKeyAuthentication, authenticate_token_and_key
from apps.apikeys.errors import BudgetExceeded, InvalidApiKey, KeyOwnerMismatch, KeyRevoked
from apps.core import credentials
from apps.core.credentials import CredentialRequest
from apps.core.errors import AppError, Unauthenticated

pytestmark = pytest.mark.django_db


def check(token, key):
    return authenticate_token_and_key(authorization=f"Bearer {token}" if token else None, api_key=key)


def test_a_good_token_and_key_give_the_tokens_person_and_the_key(make_credentials):
    mine = make_credentials("viewer")

    credential = check(mine.token, mine.raw_key)

    assert credential.user == mine.user
    assert credential.key.pk == mine.key.pk
    mine.key.refresh_from_db()
    assert mine.key.last_used_at is not None


@pytest.mark.parametrize("authorization", [None, "", "Bearer", "Basic dXNlcjpwYXNz", "Bearer atp_nope"])
def test_a_missing_or_malformed_token_is_401_unauthenticated(make_credentials, authorization):
    mine = make_credentials()

    with pytest.raises(Unauthenticated) as refused:
        authenticate_token_and_key(authorization=authorization, api_key=mine.raw_key)

    assert refused.value.http_status == 401 and refused.value.code == "UNAUTHENTICATED"
    assert refused.value.headers["WWW-Authenticate"].startswith("Bearer")


def test_an_expired_or_revoked_token_is_401_unauthenticated(make_credentials):
    mine = make_credentials()
    PersonalAccessToken.objects.filter(user=mine.user).update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )

    with pytest.raises(Unauthenticated):
        check(mine.token, mine.raw_key)


@pytest.mark.parametrize("key", [None, "", "   ", "atr_short", "atr_" + "a" * 36, "sk_live_whatever"])
def test_a_missing_or_made_up_key_is_401_invalid_api_key(make_credentials, key):
    mine = make_credentials()

    with pytest.raises(InvalidApiKey) as refused:
        check(mine.token, key)

    assert refused.value.http_status == 401 and refused.value.code == "INVALID_API_KEY"


def test_a_well_formed_key_that_does_not_exist_is_invalid(make_credentials):
    from apps.core import secrets

    mine = make_credentials()

    with pytest.raises(InvalidApiKey):
        check(mine.token, secrets.generate("atr"))


def test_the_token_is_checked_before_the_key(make_credentials):
    with pytest.raises(Unauthenticated):
        check("atp_" + "x" * 36, None)


def test_another_persons_key_is_403_key_owner_mismatch(make_credentials):
    mine, theirs = make_credentials("member"), make_credentials("admin")

    with pytest.raises(KeyOwnerMismatch) as refused:
        check(mine.token, theirs.raw_key)

    assert refused.value.http_status == 403 and refused.value.code == "KEY_OWNER_MISMATCH"


def test_another_persons_revoked_key_says_only_that_it_is_not_yours(make_credentials):
    mine, theirs = make_credentials("member"), make_credentials("admin")
    services.api_key_revoke(actor=theirs.user, key=theirs.key)

    with pytest.raises(KeyOwnerMismatch):
        check(mine.token, theirs.raw_key)


def test_a_revoked_key_is_403_key_revoked(make_credentials):
    mine = make_credentials()
    services.api_key_revoke(actor=mine.user, key=mine.key)

    with pytest.raises(KeyRevoked) as refused:
        check(mine.token, mine.raw_key)

    assert refused.value.http_status == 403 and refused.value.code == "KEY_REVOKED"


def test_a_spent_budget_is_429_with_when_it_resets_and_retry_after(make_credentials):
    mine = make_credentials(budget_usd_cents=10, budget_period="daily")
    reservation = services.budget_reserve(key=mine.key, micro_usd=100_000)
    services.budget_settle(reservation=reservation, micro_usd=100_000)

    with pytest.raises(BudgetExceeded) as refused:
        check(mine.token, mine.raw_key)

    error = refused.value
    assert error.http_status == 429 and error.code == "BUDGET_EXCEEDED"
    assert error.details["resets_at"] is not None
    assert 0 < int(error.headers["Retry-After"]) <= 24 * 3600
    assert "resets at" in str(error.message)


def test_a_budget_held_only_by_reservations_does_not_close_the_door(make_credentials):
    mine = make_credentials(budget_usd_cents=10)
    services.budget_reserve(key=mine.key, micro_usd=100_000)

    assert check(mine.token, mine.raw_key).key.pk == mine.key.pk


def test_a_zero_budget_is_spent_from_the_start(make_credentials):
    mine = make_credentials(budget_usd_cents=0, budget_period="total")

    with pytest.raises(BudgetExceeded) as refused:
        check(mine.token, mine.raw_key)

    assert refused.value.details["resets_at"] is None
    assert "Retry-After" not in refused.value.headers


def test_an_acme_key_is_unknown_at_globex(make_credentials, globex):
    from django_tenants.utils import schema_context

    from apps.accounts.models import User
    from apps.accounts.services import access_token_create

    mine = make_credentials("owner")
    with schema_context("globex"):
        _token, raw = access_token_create(user=User.objects.get(email="owner@globex.example"), name="t")
        with pytest.raises(InvalidApiKey):
            check(raw, mine.raw_key)


# --- the MCP endpoint's scheme ------------------------------------------------------------------


def mcp_request(**headers):
    return CredentialRequest(headers=headers, base_url="http://127.0.0.1:8000", door="mcp")


def test_the_mcp_scheme_gives_a_principal_with_the_keys_label(make_credentials):
    mine = make_credentials("viewer", label="Editor on my laptop")
    token = PersonalAccessToken.objects.filter(user=mine.user).latest("created_at")

    principal = credentials.authenticate(
        mcp_request(authorization=f"Bearer {mine.token}", **{"x-api-key": mine.raw_key})
    )

    assert principal.user == mine.user
    assert principal.scheme == "access_token"
    assert principal.scopes == frozenset({"mcp"})
    assert principal.credential == f"pat:{token.pk}"
    assert principal.client == "Editor on my laptop"
    assert principal.api_key_id == mine.key.pk


def test_the_mcp_scheme_is_registered_after_oauth():
    assert "apps.apikeys.credentials.access_token_and_api_key" in credentials.registered()


def test_the_mcp_scheme_leaves_other_bearer_tokens_and_no_header_alone(make_credentials):
    from apps.apikeys.credentials import access_token_and_api_key

    mine = make_credentials()

    assert access_token_and_api_key(mcp_request()) is None
    assert access_token_and_api_key(mcp_request(**{"x-api-key": mine.raw_key})) is None
    assert access_token_and_api_key(mcp_request(authorization="Bearer some-oauth-token")) is None


@pytest.mark.parametrize(
    ("case", "code"),
    [
        ("no key", "INVALID_API_KEY"),
        ("their key", "KEY_OWNER_MISMATCH"),
        ("revoked", "KEY_REVOKED"),
        ("spent", "BUDGET_EXCEEDED"),
        ("bad token", "UNAUTHENTICATED"),
    ],
)
def test_the_mcp_scheme_refuses_with_the_schemes_errors(make_credentials, case, code):
    from apps.apikeys.credentials import access_token_and_api_key

    mine, theirs = make_credentials("member", budget_usd_cents=0), make_credentials("admin")
    headers = {"authorization": f"Bearer {mine.token}", "x-api-key": mine.raw_key}
    if case == "no key":
        del headers["x-api-key"]
    elif case == "their key":
        headers["x-api-key"] = theirs.raw_key
    elif case == "revoked":
        services.api_key_update(actor=mine.user, key=mine.key, budget_usd_cents=None)
        services.api_key_revoke(actor=mine.user, key=mine.key)
    elif case == "bad token":
        headers["authorization"] = "Bearer atp_" + "0" * 36

    with pytest.raises(AppError) as refused:
        access_token_and_api_key(mcp_request(**headers))

    assert refused.value.code == code


# --- the DRF door (the gateway's) ----------------------------------------------------------------


class Echo(APIView):
    authentication_classes = [AccessTokenAndApiKeyAuthentication]
    permission_classes = [IsAuthenticated]

    def post(self, request):
        return Response({"user": request.user.email, "key": request.auth.key.pk})


def call_echo(acme, **headers):
    request = APIRequestFactory().post("/api/echo", {}, format="json", **headers)
    request.tenant = acme
    response = Echo.as_view()(request)
    response.render()
    return response


def test_the_drf_door_passes_the_person_and_the_key(acme, make_credentials):
    mine = make_credentials()

    response = call_echo(acme, **mine.headers())

    assert response.status_code == 200
    assert response.data == {"user": mine.user.email, "key": mine.key.pk}


@pytest.mark.parametrize(
    ("case", "status", "code"),
    [
        ("nothing", 401, "UNAUTHENTICATED"),
        ("token only", 401, "INVALID_API_KEY"),
        ("key only", 401, "UNAUTHENTICATED"),
        ("their key", 403, "KEY_OWNER_MISMATCH"),
        ("revoked", 403, "KEY_REVOKED"),
        ("spent", 429, "BUDGET_EXCEEDED"),
    ],
)
def test_the_drf_door_answers_each_refusal_in_the_error_format(acme, make_credentials, case, status, code):
    mine = make_credentials("member")
    theirs = make_credentials("owner")
    headers = mine.headers()
    if case == "nothing":
        headers = {}
    elif case == "token only":
        del headers["HTTP_X_API_KEY"]
    elif case == "key only":
        del headers["HTTP_AUTHORIZATION"]
    elif case == "their key":
        headers["HTTP_X_API_KEY"] = theirs.raw_key
    elif case == "revoked":
        services.api_key_revoke(actor=mine.user, key=mine.key)
    elif case == "spent":
        services.api_key_update(actor=mine.user, key=mine.key, budget_usd_cents=0, budget_period="monthly")

    response = call_echo(acme, **headers)

    assert response.status_code == status
    assert response.data["error"]["code"] == code
    assert response.data["error"]["message"]
    if status == 401:
        assert response["WWW-Authenticate"].startswith("Bearer")
    if status == 429:
        assert int(response["Retry-After"]) > 0
        assert response.data["error"]["details"]["resets_at"]
