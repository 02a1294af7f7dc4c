"""`POST /api/mcp/quick-setup` (SPEC 4.2): a fresh token and key and the client's configuration."""

import json

import pytest

from apps.accounts.models import PersonalAccessToken
from apps.apikeys.authentication import authenticate_token_and_key
from apps.apikeys.models import ApiKey

pytestmark = pytest.mark.django_db


def quick_setup(client, body, **headers):
    return client.post(
        "/api/mcp/quick-setup", data=json.dumps(body), content_type="application/json", **headers
    )


def test_generic_gives_mcp_servers_with_the_brand_name_url_and_both_headers(acme_client, bearer):
    response = quick_setup(acme_client, {"client": "generic"}, **bearer("viewer"))

    assert response.status_code == 201, response.content
    body = response.json()
    assert body["client"] == "generic"
    assert body["server_name"] == "Acme Workspace"
    assert body["mcp_url"] == "http://127.0.0.1/api/mcp"
    assert body["config"] == {
        "mcpServers": {
            "Acme Workspace": {
                "url": "http://127.0.0.1/api/mcp",
                "headers": {"Authorization": f"Bearer {body['access_token']}", "X-Api-Key": body["api_key"]},
            }
        }
    }
    assert body["access_token"].startswith("atp_") and body["api_key"].startswith("atr_")
    assert body["signing_secret"].startswith("atw_")
    assert body["instructions"] and body["config_format"]
    assert response["Cache-Control"] == "no-store"


def test_the_credentials_are_new_and_pass_the_token_and_key_check(acme_client, bearer, people):
    caller = bearer("member")
    before = PersonalAccessToken.objects.filter(user=people["member"]).count()

    body = quick_setup(acme_client, {"client": "generic"}, **caller).json()

    assert PersonalAccessToken.objects.filter(user=people["member"]).count() == before + 1
    assert body["access_token"] != caller["HTTP_AUTHORIZATION"].split()[1]
    headers = body["config"]["mcpServers"]["Acme Workspace"]["headers"]
    credential = authenticate_token_and_key(
        authorization=headers["Authorization"], api_key=headers["X-Api-Key"]
    )
    assert credential.user == people["member"]
    assert credential.key.pk == body["api_key_id"]
    assert credential.token.pk == body["access_token_id"]
    assert ApiKey.objects.get(pk=body["api_key_id"]).budget_usd_cents is None


def test_the_editor_variant_nests_under_mcp_servers_with_type_http(acme_client, bearer):
    body = quick_setup(acme_client, {"client": "editor"}, **bearer()).json()

    server = body["config"]["mcp"]["servers"]["Acme Workspace"]
    assert server["type"] == "http"
    assert server["url"] == body["mcp_url"]
    assert set(server["headers"]) == {"Authorization", "X-Api-Key"}
    assert "mcpServers" not in body["config"]


@pytest.mark.parametrize(
    ("client", "typed"), [("desktop-assistant", False), ("command-line", True), ("generic", False)]
)
def test_each_mcp_servers_variant_has_url_and_headers(acme_client, bearer, client, typed):
    body = quick_setup(acme_client, {"client": client}, **bearer()).json()

    server = body["config"]["mcpServers"]["Acme Workspace"]
    assert server["url"] == body["mcp_url"]
    assert server["headers"]["X-Api-Key"] == body["api_key"]
    assert ("type" in server) is typed


def test_the_server_name_is_the_workspaces_own_brand(globex_client):
    from django_tenants.utils import schema_context

    from apps.accounts.models import User
    from apps.accounts.services import access_token_create

    with schema_context("globex"):
        _token, raw = access_token_create(user=User.objects.get(email="member@globex.example"), name="t")

    body = quick_setup(globex_client, {"client": "generic"}, HTTP_AUTHORIZATION=f"Bearer {raw}").json()

    assert list(body["config"]["mcpServers"]) == ["Globex Hub"]
    assert body["mcp_url"] == "http://127.0.0.2/api/mcp"


def test_without_a_client_the_generic_configuration_is_given(acme_client, bearer):
    assert quick_setup(acme_client, {}, **bearer()).json()["client"] == "generic"


@pytest.mark.parametrize("client", ["emacs", "", 7, None, ["generic"]])
def test_an_unknown_client_is_422_naming_the_accepted_values(acme_client, bearer, client):
    before = ApiKey.objects.count()

    response = quick_setup(acme_client, {"client": client}, **bearer())

    assert response.status_code == 422
    error = response.json()["error"]
    assert error["code"] == "VALIDATION_ERROR"
    for name in ("command-line", "desktop-assistant", "editor", "generic"):
        assert name in error["message"]
    assert "client" in error["details"]
    assert ApiKey.objects.count() == before


def test_quick_setup_needs_the_access_token(acme_client):
    response = quick_setup(acme_client, {"client": "generic"})

    assert response.status_code == 401 and response.json()["error"]["code"] == "UNAUTHENTICATED"


def test_only_post_is_allowed(acme_client, bearer):
    response = acme_client.get("/api/mcp/quick-setup", **bearer())

    assert response.status_code == 405 and response.json()["error"]["code"] == "METHOD_NOT_ALLOWED"


def test_a_profile_pins_the_new_key_and_names_it_in_the_url(acme_client, bearer):
    from apps.apikeys.credentials import access_token_and_api_key
    from apps.catalogue import profiles
    from apps.catalogue.dispatch import list_tools
    from apps.core.credentials import CredentialRequest

    body = quick_setup(acme_client, {"client": "generic", "profile": "sales"}, **bearer("owner")).json()

    assert body["profile"] == "sales"
    assert body["mcp_url"] == "http://127.0.0.1/api/mcp?profile=sales"
    assert body["config"]["mcpServers"]["Acme Workspace"]["url"] == body["mcp_url"]
    assert ApiKey.objects.get(pk=body["api_key_id"]).profile == "sales"
    headers = {"authorization": f"Bearer {body['access_token']}", "x-api-key": body["api_key"]}
    principal = access_token_and_api_key(CredentialRequest(headers, "http://127.0.0.1", "mcp"))
    assert principal is not None and principal.profile == "sales"
    pinned = {tool["name"] for tool in list_tools(principal=principal)}
    assert pinned == set(profiles.tool_names("sales"))
    # A request may narrow a pinned profile, never widen it.
    narrowed = {tool["name"] for tool in list_tools(principal=principal, profile="essentials")}
    assert narrowed == pinned & profiles.tool_names("essentials") and narrowed < pinned


def test_an_unknown_profile_creates_nothing(acme_client, bearer):
    headers = bearer("owner")
    keys, tokens = ApiKey.objects.count(), PersonalAccessToken.objects.count()

    response = quick_setup(acme_client, {"client": "generic", "profile": "everything"}, **headers)

    assert response.status_code == 422
    assert "sales" in json.dumps(response.json())
    assert (ApiKey.objects.count(), PersonalAccessToken.objects.count()) == (keys, tokens)


@pytest.mark.parametrize(
    ("body", "profile"),
    [
        ({"client": "cursor"}, "essentials"),  # the one that suits the client
        ({"client": "cursor", "profile": ""}, None),  # none, said so
        ({"client": "cursor", "profile": "sales"}, "sales"),
        ({"client": "claude-code"}, None),
    ],
)
def test_each_client_gets_the_profile_that_suits_it_unless_another_or_none_is_asked(
    acme_client, bearer, body, profile
):
    answer = quick_setup(acme_client, body, **bearer()).json()

    assert answer["profile"] == profile
    assert ApiKey.objects.get(pk=answer["api_key_id"]).profile == (profile or "")
    assert answer["mcp_url"].endswith(f"?profile={profile}" if profile else "/api/mcp")


def test_a_client_with_a_command_line_gets_it_and_its_documentation(acme_client, bearer):
    claude_code = quick_setup(acme_client, {"client": "claude-code"}, **bearer()).json()
    cursor = quick_setup(acme_client, {"client": "cursor"}, **bearer()).json()

    assert claude_code["command"].startswith("claude mcp add --transport http acme-workspace ")
    assert claude_code["api_key"] in claude_code["command"]
    assert claude_code["docs"].startswith("https://")
    assert cursor["command"] is None
    assert "~/.cursor/mcp.json" in cursor["config_format"]


@pytest.mark.parametrize(
    "raw", [b'{"client": ' + b"[" * 5000 + b"]" * 5000 + b"}", b'{"client": "generic", "label": "a\\u0000"}']
)
def test_json_no_store_can_keep_is_422_and_creates_nothing(acme_client, bearer, raw):
    auth = bearer()
    keys, tokens = ApiKey.objects.count(), PersonalAccessToken.objects.count()

    response = acme_client.post("/api/mcp/quick-setup", data=raw, content_type="application/json", **auth)

    assert response.status_code == 422, response.content
    assert response.json()["error"]["code"] == "VALIDATION_ERROR"
    assert (ApiKey.objects.count(), PersonalAccessToken.objects.count()) == (keys, tokens)
