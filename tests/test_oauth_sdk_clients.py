"""Interop with the official MCP clients' OAuth support, against the live server:

- the Python SDK (`mcp` from PyPI): its `OAuthClientProvider` runs discovery from the 401
  challenge, dynamic registration, authorization (a headless person signs in and allows over real
  HTTP), the code exchange, and later a refresh;
- the TypeScript SDK (`@modelcontextprotocol/sdk` from npm): its `auth()` does the same from the
  MCP URL (tests/node/oauth_flow.mjs).

Discovery starts from the endpoint's own 401 challenge (SPEC 4.1); the tokens they obtain open
/api/mcp, and are also presented to the MCP door's credential check directly.
"""

import json
import subprocess
import time
from urllib.parse import parse_qs, urlsplit

import anyio
import httpx2
import pytest
from mcp.client.auth import OAuthClientProvider
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)
from pydantic import AnyUrl

from apps.core.errors import Unauthenticated
from apps.core.testing import NODE22, ROOT
from apps.oauth import resource
from apps.oauth.tests.oauth_client import PASSWORD, consent_over_http, present_to_mcp

pytestmark = pytest.mark.live

CALLBACK = "http://127.0.0.1:9/callback"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "0"},
    },
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-06-18"}


class MemoryStorage:
    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client_info: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


class RecordingTransport(httpx2.AsyncBaseTransport):
    """Real HTTP, every exchange recorded."""

    def __init__(self) -> None:
        self.inner = httpx2.AsyncHTTPTransport()
        self.log: list[tuple[str, str, int]] = []
        self.mcp_answers: list[httpx2.Response] = []

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        response = await self.inner.handle_async_request(request)
        if request.url.path == resource.MCP_PATH:
            await response.aread()
            self.mcp_answers.append(response)
        self.log.append((request.method, request.url.path, response.status_code))
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


def test_the_python_sdk_client_discovers_registers_authorizes_and_refreshes(live_http, committed):
    base_url = live_http.url()
    storage = MemoryStorage()
    redirects = []

    async def redirect_handler(authorization_url: str) -> None:
        redirects.append(
            await anyio.to_thread.run_sync(
                lambda: consent_over_http(authorization_url, email="member@acme.example", password=PASSWORD)
            )
        )

    async def callback_handler() -> AuthorizationCodeResult:
        params = redirects[-1].params
        return AuthorizationCodeResult(code=params["code"], state=params.get("state"), iss=params.get("iss"))

    provider = OAuthClientProvider(
        server_url=f"{base_url}/api/mcp",
        client_metadata=OAuthClientMetadata(
            client_name="Interop client (Python SDK)", redirect_uris=[AnyUrl(CALLBACK)]
        ),
        storage=storage,
        redirect_handler=redirect_handler,
        callback_handler=callback_handler,
    )
    transport = RecordingTransport()

    async def run() -> tuple[httpx2.Response, httpx2.Response]:
        async with httpx2.AsyncClient(auth=provider, transport=transport, timeout=20) as http:
            first = await http.post(f"{base_url}/api/mcp", json=INITIALIZE, headers=MCP_HEADERS)
            # An hour later the access token has expired: the provider refreshes it first.
            provider.context.token_expiry_time = time.time() - 1
            second = await http.post(f"{base_url}/api/mcp", json=INITIALIZE, headers=MCP_HEADERS)
            return first, second

    first_tokens_holder: list[OAuthToken] = []
    original_set_tokens = storage.set_tokens

    async def keep_every_token(tokens: OAuthToken) -> None:
        first_tokens_holder.append(tokens)
        await original_set_tokens(tokens)

    storage.set_tokens = keep_every_token  # type: ignore[method-assign]
    first, second = anyio.run(run)

    # Discovery started from the challenge, then the SDK registered, authorized and exchanged.
    unauthenticated = transport.mcp_answers[0]
    assert unauthenticated.status_code == 401
    assert unauthenticated.headers["www-authenticate"] == resource.challenge(base_url)
    assert transport.log[:5] == [
        ("POST", "/api/mcp", 401),
        ("GET", "/.well-known/oauth-protected-resource", 200),
        ("GET", "/.well-known/oauth-authorization-server", 200),
        ("POST", "/oauth/register", 201),
        ("POST", "/oauth/token", 200),
    ]
    assert transport.log[6] == ("POST", "/oauth/token", 200)  # the refresh
    assert len(redirects) == 1
    assert redirects[0].params["iss"] == base_url  # checked by the SDK too (RFC 9207)
    assert storage.client_info is not None
    assert storage.client_info.token_endpoint_auth_method == "client_secret_basic"
    assert storage.client_info.client_secret

    issued, refreshed = first_tokens_holder
    assert set(issued.scope.split()) == {"mcp", "mcp:read", "mcp:write", "offline_access"}
    assert issued.refresh_token and refreshed.refresh_token
    assert refreshed.access_token != issued.access_token
    assert refreshed.refresh_token != issued.refresh_token

    principal = present_to_mcp(refreshed.access_token, base_url)
    assert principal.user.email == "member@acme.example"
    assert principal.client == "Interop client (Python SDK)"
    with pytest.raises(Unauthenticated):
        present_to_mcp(issued.access_token, base_url)
    for answer in (first, second):  # the first token, then the refreshed one, open the endpoint
        assert answer.status_code == 200, answer.text
        assert answer.json()["result"]["serverInfo"]["name"] == "Acme Workspace"


def test_the_typescript_sdk_client_discovers_registers_authorizes_and_refreshes(live_http, committed):
    base_url = live_http.url()
    node = str(NODE22) if NODE22.exists() else "node"

    finished = subprocess.run(
        [node, "oauth_flow.mjs", base_url, "member@acme.example", PASSWORD],
        cwd=ROOT / "tests" / "node",
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert finished.returncode == 0, finished.stderr[-3000:]
    result = json.loads(finished.stdout.strip().splitlines()[-1])
    assert result["probe"] == {"status": 401, "challenge": resource.challenge(base_url)}
    assert result["mcp"]["serverName"] == "Acme Workspace"
    assert result["steps"] == ["REDIRECT", "AUTHORIZED", "AUTHORIZED"]
    asked = parse_qs(urlsplit(result["authorizationUrl"]).query)
    assert asked["resource"] == [f"{base_url}/api/mcp"]
    assert asked["code_challenge_method"] == ["S256"]
    assert asked["scope"] == ["mcp offline_access"]
    assert result["redirect"]["iss"] == base_url
    assert result["client"]["token_endpoint_auth_method"] == "none"
    assert "client_secret" not in result["client"]

    issued, refreshed = result["tokens"]
    assert issued["scope"] == "mcp offline_access"
    assert issued["expires_in"] == 3600
    assert refreshed["access_token"] != issued["access_token"]
    assert refreshed["refresh_token"] != issued["refresh_token"]
    principal = present_to_mcp(refreshed["access_token"], base_url)
    assert principal.user.email == "member@acme.example"
    assert principal.client == "Interop client (TypeScript SDK)"
    assert principal.scopes == frozenset({"mcp"})
    with pytest.raises(Unauthenticated):
        present_to_mcp(issued["access_token"], base_url)
