"""A credential the MCP door keeps (MCP_CREDENTIAL_CACHE_SECONDS) stops working the moment it is
revoked: in the process that revoked it at once, in every other one when told through Redis
(apps.mcp.endings). In-process, through `serve`; the two-process case is in test_two_processes."""

import secrets
import time
from datetime import timedelta

import pytest
from django.utils import timezone
from oauth2_provider.models import get_access_token_model, get_application_model

from apps.accounts.services import access_token_create, access_token_revoke
from apps.apikeys.services import api_key_create, api_key_revoke
from apps.core.credentials import credentials_revoked, revoke_all
from apps.mcp import access, endings
from apps.mcp.testing import Door

PING = {"jsonrpc": "2.0", "id": 9, "method": "ping"}


def fresh(role: str):  # type: ignore[no-untyped-def]
    """A person of Acme with this role, made in the test's transaction: the demo people may have
    keys that other modules' live tests committed."""
    from apps.accounts.models import Role, User

    return User.objects.create_user(
        email=f"revoke-{secrets.token_hex(4)}@acme.example", role=Role.objects.get(key=role)
    )


@pytest.fixture
def member(acme):  # type: ignore[no-untyped-def]
    return fresh("member")


@pytest.fixture
def keyed(member):  # type: ignore[no-untyped-def]
    """The member's token and key, and a door that opened a session with them (and so keeps them)."""
    token, raw = access_token_create(user=member, name=f"t {secrets.token_hex(3)}")
    created = api_key_create(user=member, label=f"k {secrets.token_hex(3)}")
    door = Door({"Authorization": f"Bearer {raw}", "X-Api-Key": created.raw_key})
    door.initialize()
    assert door.send("POST", PING).status == 200
    return token, created.key, door


@pytest.fixture
def sent():  # type: ignore[no-untyped-def]
    """What credentials_revoked carried, in order."""
    seen: list[tuple[str, list[int]]] = []

    def receive(sender, *, schema_name, user_ids, **kwargs):  # type: ignore[no-untyped-def]
        seen.append((schema_name, user_ids))

    credentials_revoked.connect(receive, dispatch_uid="test-revocations")
    yield seen
    credentials_revoked.disconnect(dispatch_uid="test-revocations")


def kept_for(member) -> list[str]:  # type: ignore[no-untyped-def]
    return [key for key, (_schema, principal) in access._principals.items() if principal.user.pk == member.pk]


def test_a_revoked_key_is_refused_at_once_where_it_was_kept(member, keyed):
    _token, key, door = keyed
    assert kept_for(member)

    api_key_revoke(actor=member, key=key)

    reply = door.send("POST", PING)
    assert reply.status == 403
    assert reply.body["error"]["code"] == "KEY_REVOKED"


def test_a_revoked_personal_access_token_is_refused_at_once_where_it_was_kept(member, keyed):
    token, _key, door = keyed

    access_token_revoke(actor=member, token=token)

    reply = door.send("POST", PING)
    assert reply.status == 401
    assert reply.headers["WWW-Authenticate"].startswith("Bearer ")


def test_revoking_twice_tells_once(member, keyed, sent):
    _token, key, _door = keyed
    api_key_revoke(actor=member, key=key)
    api_key_revoke(actor=member, key=key)
    assert sent == [("acme", [member.pk])]


def test_keys_revoked_by_an_erasure_tell_the_doors_of_their_people(member, keyed, sent):
    from apps.apikeys.models import ApiKey

    viewer = fresh("viewer")
    api_key_create(user=viewer, label="viewer's")
    assert revoke_all(ApiKey.objects.filter(user__in=[member, viewer])) == 2
    assert sent == [("acme", sorted([member.pk, viewer.pk]))]
    # Nothing left to revoke: nobody is told.
    assert revoke_all(ApiKey.objects.filter(user=member)) == 0
    assert len(sent) == 1


def test_an_oauth_access_token_that_ends_tells_the_doors_an_expired_one_does_not(member, sent):
    application = get_application_model().objects.create(
        name="Editor",
        client_type="public",
        authorization_grant_type="authorization-code",
        redirect_uris="http://127.0.0.1:9/cb",
    )
    tokens = get_access_token_model().objects
    live = tokens.create(
        user=member,
        application=application,
        token_checksum="a" * 64,
        expires=timezone.now() + timedelta(hours=1),
    )
    expired = tokens.create(
        user=member,
        application=application,
        token_checksum="b" * 64,
        expires=timezone.now() - timedelta(minutes=1),
    )

    live.revoke()  # RFC 7009 revocation, a refresh and a disconnection all delete it
    expired.delete()

    assert sent == [("acme", [member.pk])]


def test_a_revocation_told_by_another_process_drops_what_this_one_keeps(member, keyed, told):
    assert kept_for(member)

    endings.tell_revoked("acme", [member.pk])

    deadline = time.monotonic() + 5
    while kept_for(member) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not kept_for(member)


def test_the_revocation_message_names_the_workspace_and_its_people():
    assert endings.decode_people(endings.encode_people("acme", [3, 12])) == ("acme", [3, 12])
    assert endings.decode_people(b"acme 3,x,") == ("acme", [3])


# --- the origin a token is for, and a change of role ---------------------------------------------


def oauth_token_for(user, origin: str) -> str:  # type: ignore[no-untyped-def]
    """An OAuth access token of `user`, issued for the MCP endpoint at `origin` (RFC 8707)."""
    from oauth2_provider.models import set_token_value

    from apps.oauth.resource import resource_for

    application = get_application_model().objects.create(
        name="Editor",
        client_type="public",
        authorization_grant_type="authorization-code",
        redirect_uris="http://127.0.0.1:9/cb",
    )
    raw = secrets.token_urlsafe(24)
    token = get_access_token_model()(
        user=user,
        application=application,
        scope="mcp",
        resource=[resource_for(origin)],
        expires=timezone.now() + timedelta(hours=1),
    )
    set_token_value(token, raw)
    token.save()
    return raw


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t"}},
}


def test_a_token_accepted_at_its_own_origin_is_still_refused_at_another_name_of_the_workspace(member):
    # Acme answers at 127.0.0.1 and at localhost; the token is for the endpoint at the first.
    raw = oauth_token_for(member, "http://127.0.0.1")
    own = Door({"Authorization": f"Bearer {raw}"}, host="127.0.0.1")
    other = Door({"Authorization": f"Bearer {raw}"}, host="localhost")

    cold = other.send("POST", INITIALIZE)
    own.initialize()
    assert own.send("POST", PING).status == 200
    assert kept_for(member)  # accepted at its own origin, and kept
    warm = other.send("POST", INITIALIZE)

    for refused in (cold, warm):
        assert refused.status == 401
        assert 'error="invalid_token"' in refused.headers["WWW-Authenticate"]


def revoked_messages():  # type: ignore[no-untyped-def]
    """A subscription to the revoked-credentials channel, as every web process has one."""
    from apps.mcp import streams

    pubsub = streams.redis_client().pubsub()
    pubsub.subscribe(endings.revoked_channel())
    assert pubsub.get_message(timeout=5)["type"] == "subscribe"
    return pubsub


def told_about(pubsub, person, timeout: float) -> tuple[str, list[int]] | None:  # type: ignore[no-untyped-def]
    """The first message naming `person` within `timeout` seconds (other work of this test
    process may publish on the same channel), or None."""
    deadline = time.monotonic() + timeout
    while (left := deadline - time.monotonic()) > 0:
        message = pubsub.get_message(timeout=left)
        if message is not None and message["type"] == "message":
            told = endings.decode_people(message["data"])
            if person.pk in told[1]:
                return told
    return None


def test_a_change_of_role_is_told_to_every_process_once_committed(
    member, keyed, django_capture_on_commit_callbacks
):
    from apps.accounts.models import Role, User
    from apps.accounts.services import user_change_role

    owner = User.objects.get(email="owner@acme.example")
    pubsub = revoked_messages()
    try:
        with django_capture_on_commit_callbacks() as callbacks:
            user_change_role(actor=owner, user=member, role=Role.objects.get(key="viewer"))
            assert not kept_for(member)  # this process: at once
            assert told_about(pubsub, member, 0.5) is None  # the others: not before the commit
        for callback in callbacks:
            callback()
        told = told_about(pubsub, member, 5)
    finally:
        pubsub.close()

    assert told == ("acme", [member.pk])


def test_a_person_deactivated_is_told_to_every_process_and_a_workspace_change_is_not(
    member, keyed, django_capture_on_commit_callbacks
):
    from apps.accounts.models import User
    from apps.accounts.services import user_set_active
    from apps.catalogue.signals import tool_list_changed

    owner = User.objects.get(email="owner@acme.example")
    pubsub = revoked_messages()
    try:
        with django_capture_on_commit_callbacks(execute=True):
            user_set_active(actor=owner, user=member, active=False)
        deactivated = told_about(pubsub, member, 5)
        with django_capture_on_commit_callbacks(execute=True):
            tool_list_changed.send(sender=None, schema_name="acme", user_ids=None)  # areas installed
        areas = told_about(pubsub, member, 0.5)
    finally:
        pubsub.close()

    assert deactivated == ("acme", [member.pk])
    assert areas is None
