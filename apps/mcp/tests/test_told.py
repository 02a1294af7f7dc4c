"""While its process is told of changes (apps.mcp.endings), the door keeps what every request
reads (routes, host names, credentials) for TOLD_CACHE_SECONDS instead of its short while
(apps.core.kept); a change is seen at once, told by whichever process made it, once committed.
In-process, through `serve`; the listener runs on an event loop of its own, as in a web process."""

import secrets
import time

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.accounts.models import User
from apps.accounts.services import access_token_create
from apps.apikeys.services import api_key_create
from apps.core.testing import wait_for
from apps.mcp import endings, streams
from apps.mcp.testing import Door
from apps.tenancy import routing
from apps.tenancy.models import Domain

PING = {"jsonrpc": "2.0", "id": 9, "method": "ping"}
SHORT = 0.05


def reads_of(captured: CaptureQueriesContext, *tables: str) -> list[str]:
    return [query["sql"] for query in captured.captured_queries if any(t in query["sql"] for t in tables)]


def credential_reads(captured: CaptureQueriesContext) -> list[str]:
    return reads_of(captured, '"accounts_personalaccesstoken"', '"apikeys_apikey"')


def door_of(budget_usd_cents: int | None = None) -> Door:
    member = User.objects.get(email="member@acme.example")
    _token, raw = access_token_create(user=member, name=f"told {secrets.token_hex(3)}")
    key = api_key_create(user=member, label=f"told {secrets.token_hex(3)}", budget_usd_cents=budget_usd_cents)
    door = Door({"Authorization": f"Bearer {raw}", "X-Api-Key": key.raw_key})
    door.initialize()
    assert door.send("POST", PING).status == 200  # the credential checked, and kept
    return door


@pytest.fixture
def short_whiles(settings, monkeypatch):  # type: ignore[no-untyped-def]
    settings.MCP_CREDENTIAL_CACHE_SECONDS = SHORT
    settings.TOLD_CACHE_SECONDS = 60.0
    monkeypatch.setattr(routing, "ROUTE_TTL", SHORT)
    routing.forget()


def test_told_a_credential_is_kept_past_its_short_while(people, told, short_whiles):
    door = door_of()
    time.sleep(SHORT * 2)

    with CaptureQueriesContext(connection) as captured:
        assert door.send("POST", PING).status == 200
    assert credential_reads(captured) == []


def test_untold_a_credential_is_checked_again_after_its_short_while(people, short_whiles):
    door = door_of()
    time.sleep(SHORT * 2)

    with CaptureQueriesContext(connection) as captured:
        assert door.send("POST", PING).status == 200
    assert credential_reads(captured)


def test_a_key_with_a_budget_is_checked_again_after_its_short_while_even_told(people, told, short_whiles):
    # Spending is not told to the doors: a spent budget must be refused within the short while.
    door = door_of(budget_usd_cents=500)
    time.sleep(SHORT * 2)

    with CaptureQueriesContext(connection) as captured:
        assert door.send("POST", PING).status == 200
    assert credential_reads(captured)


def test_told_a_route_is_kept_past_its_short_while_and_untold_it_is_not(
    acme, told, short_whiles, monkeypatch
):
    host = Domain.objects.filter(tenant=acme).values_list("domain", flat=True).first()
    assert routing.workspace_for_host(host) == acme
    time.sleep(SHORT * 2)
    with CaptureQueriesContext(connection) as captured:
        assert routing.workspace_for_host(host) == acme
    assert reads_of(captured, '"tenancy_domain"') == []

    monkeypatch.setattr(told, "stamp", lambda kind="ended": None)  # as while the listener is not subscribed
    routing.forget()
    assert routing.workspace_for_host(host) == acme
    time.sleep(SHORT * 2)
    with CaptureQueriesContext(connection) as captured:
        assert routing.workspace_for_host(host) == acme
    assert reads_of(captured, '"tenancy_domain"')


def test_a_host_name_added_elsewhere_is_routed_as_soon_as_this_process_is_told(acme, told):
    host = f"told-{secrets.token_hex(4)}.acme.example"
    assert routing.workspace_for_host(host) is None  # kept: no workspace there
    # Another process adds it: nothing of it is seen here (no signal in this process)...
    Domain.objects.bulk_create([Domain(domain=host, tenant=acme, is_primary=False)])
    assert routing.workspace_for_host(host) is None

    # ...until it tells every process, once committed.
    endings.tell_workspaces_changed(["acme"])
    assert wait_for(lambda: routing.workspace_for_host(host) == acme, timeout=5)


def workspace_messages():  # type: ignore[no-untyped-def]
    pubsub = streams.redis_client().pubsub()
    pubsub.subscribe(endings.workspaces_channel())
    assert pubsub.get_message(timeout=5)["type"] == "subscribe"
    return pubsub


def next_message(pubsub, timeout: float):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while (left := deadline - time.monotonic()) > 0:
        message = pubsub.get_message(timeout=left)
        if message is not None and message["type"] == "message":
            return message["data"]
    return None


def test_a_host_name_or_a_workspace_saved_is_told_to_every_process_once_committed(
    acme, django_capture_on_commit_callbacks
):
    pubsub = workspace_messages()
    try:
        with django_capture_on_commit_callbacks() as callbacks:
            Domain.objects.create(domain=f"told-{secrets.token_hex(4)}.acme.example", tenant=acme)
            assert next_message(pubsub, 0.3) is None  # not before the commit
        for callback in callbacks:
            callback()
        added = next_message(pubsub, 5)

        with django_capture_on_commit_callbacks(execute=True):
            acme.save()
        saved = next_message(pubsub, 5)
    finally:
        pubsub.close()

    assert added is not None
    assert saved == b"acme"
