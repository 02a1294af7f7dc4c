"""The official MCP conformance suite's authorization-server scenarios (every protocol version
has the same two: the metadata document, and the authorization code grant with PKCE) against the
workspace's own authorization server, on Node 22 as the suite requires.

The grant scenario prints an authorization URL for a person to open and waits on its own callback
address: here the person is `consent_over_http` (signs in, allows on the consent page), and the
redirect is followed to the suite's callback, which then redeems the code at the token endpoint."""

import json
import os
import subprocess
import threading
from pathlib import Path

import httpx
import pytest

from apps.core.testing import NODE22, free_port
from apps.oauth.tests.oauth_client import OAuthClient, consent_over_http

pytestmark = pytest.mark.live

NODE_DIR = Path(__file__).resolve().parents[3] / "tests" / "node"
SUITE = NODE_DIR / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"


def test_the_authorization_server_passes_the_suites_metadata_and_code_grant_scenarios(acme_url, tmp_path):
    if not NODE22.exists():
        pytest.fail(f"{NODE22} is missing: `make test` installs tests/node's packages")
    port = free_port()
    client = OAuthClient.register(
        acme_url, name="Conformance suite", redirect_uri=f"http://127.0.0.1:{port}/callback"
    )
    options = {"--url": acme_url, "--client-id": client.client_id, "--resource": f"{acme_url}/api/mcp"}
    options |= {"--port": str(port), "--output-dir": str(tmp_path)}
    suite = subprocess.Popen(
        [str(NODE22), str(SUITE), "authorization", *(part for pair in options.items() for part in pair)],
        cwd=NODE_DIR,
        env={**os.environ, "NO_COLOR": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    printed: list[str] = []
    answered: list[int] = []

    def person() -> None:
        assert suite.stdout is not None
        for line in suite.stdout:
            printed.append(line)
            if line.startswith(f"{acme_url}/oauth/authorize?"):
                redirect = consent_over_http(line.strip(), email="member@acme.example")
                assert redirect is not None
                answered.append(httpx.get(redirect.url, timeout=10).status_code)

    reader = threading.Thread(target=person, daemon=True)
    reader.start()
    try:
        suite.wait(timeout=120)
    finally:
        suite.kill()
    reader.join(timeout=10)
    output = "".join(printed)

    assert answered == [200], output[-3000:]
    assert suite.returncode == 0, output[-3000:]
    checks = {
        check["id"]: check["status"]
        for path in tmp_path.rglob("checks.json")
        for check in json.loads(path.read_text())
    }
    assert {"authorization-server-metadata", "authorization-code-grant"} <= set(checks), (
        checks,
        output[-2000:],
    )
    assert set(checks.values()) == {"SUCCESS"}, (checks, output[-3000:])
