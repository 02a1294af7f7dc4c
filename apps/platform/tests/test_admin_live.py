"""A person deactivated through deactivateWorkspaceUser: their access token and API key stop
working at once on every web process that kept them (told through Redis, apps.mcp.endings), not
when the processes' credential cache runs out. Two web processes on loopback, the tool called by
a third (this one)."""

import secrets

import pytest
from django_tenants.utils import schema_context

from apps.catalogue.testing import confirmed, ok
from apps.core.testing import start_web, wait_for
from apps.mcp.tests.conftest import Mcp, mcp_env, mcp_server  # noqa: F401 (fixtures)

pytestmark = pytest.mark.live


@pytest.fixture(scope="module")
def second_server(mcp_env):  # type: ignore[no-untyped-def]  # noqa: F811
    server = start_web(mcp_env)
    yield server
    server.stop()


def test_a_deactivated_persons_token_stops_working_on_every_process_at_once(
    mcp_server,  # noqa: F811
    second_server,
    committed,
):
    from apps.accounts.models import Role, User
    from apps.accounts.services import access_token_create
    from apps.apikeys.services import api_key_create

    with schema_context("acme"):
        person = User.objects.create_user(
            email=f"leaving-{secrets.token_hex(4)}@acme.example", role=Role.objects.get(key="member")
        )
        _token, raw = access_token_create(user=person, name="laptop")
        created = api_key_create(user=person, label=f"leaving {secrets.token_hex(3)}")
        admin = User.objects.select_related("role").get(email="admin@acme.example")
    clients = []
    try:
        # Each process keeps the good credential a moment (MCP_CREDENTIAL_CACHE_SECONDS).
        for server in (mcp_server, second_server):
            client = Mcp(server)
            client.credentials = {"Authorization": f"Bearer {raw}", "X-Api-Key": created.raw_key}
            client.initialize()
            assert client.request("ping").status_code == 200
            clients.append(client)

        with schema_context("acme"):
            answer = ok(
                admin,
                "deactivateWorkspaceUser",
                {"userId": person.pk},
                capabilities={"elicitation": {}},
                elicit=confirmed,
            )
        assert answer["active"] is False

        # Told by Redis pub/sub, well within the credential cache's TTL (5 s).
        for client in clients:
            refused = wait_for(
                lambda client=client: (reply := client.request("ping")).status_code != 200 and reply,
                timeout=2,
                every=0.05,
                what="the deactivation to reach the process",
            )
            assert refused.status_code in (401, 403), refused.text
    finally:
        for client in clients:
            client.close()
        with schema_context("acme"):
            person.delete()
