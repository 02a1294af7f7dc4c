"""Stored APIs and executeApiCall through the real dispatcher, against a real HTTP server on
loopback: the credential entered on the secure page, kept encrypted and never shown; calls within
the API's hosts and methods, redirects checked again, answers capped; non-GET confirmed; every
answered call logged without its credential; refusals send nothing and write nothing."""

import json

import pytest

from apps.catalogue import dispatch
from apps.catalogue.dispatch import ToolNotFound
from apps.catalogue.testing import confirmed, context_for, ok, refused, structured, text_of
from apps.core import encryption
from apps.platform.models import StoredApi, StoredApiCall

from .servers import Api, Reply, as_json

SECRET = "sk_live_0123456789abcdef"


def _call(user, name, arguments, *, secret=None, confirm=False):
    ctx = context_for(
        user, capabilities={"elicitation": {}} if confirm else None, elicit=confirmed if confirm else None
    )
    if secret is not None:
        ctx.secure_input_door = lambda request: secret
    return dispatch.call_tool(ctx, name, arguments)


def _save(user, arguments, *, secret=SECRET):
    return structured(_call(user, "saveStoredApi", arguments, secret=secret, confirm=True))


@pytest.fixture
def api():
    server = Api().start()
    yield server
    server.stop()


@pytest.fixture
def stored(people, api):
    return _save(
        people["admin"],
        {
            "name": "Shipping",
            "baseUrl": f"{api.url}/v1",
            "allowedMethods": ["GET", "POST"],
            "authKind": "bearer",
        },
    )


def test_saving_keeps_the_secret_encrypted_and_never_shows_it(people, api, stored):
    row = StoredApi.objects.get(name="Shipping")

    assert stored["hasSecret"] is True and stored["authKind"] == "bearer"
    assert stored["allowedHosts"] == [f"127.0.0.1:{api.port}"]
    assert stored["allowedMethods"] == ["GET", "POST"]
    assert SECRET not in json.dumps(stored)
    assert SECRET not in row.secret_encrypted and encryption.decrypt(row.secret_encrypted) == SECRET
    listed = ok(people["member"], "listStoredApis")["apis"]
    assert [entry["name"] for entry in listed] == ["Shipping"] and SECRET not in json.dumps(listed)


def test_updating_by_name_keeps_the_secret_unless_asked_to_replace_it(people, api, stored):
    def asked(request):
        raise AssertionError("the secret was asked again")

    ctx = context_for(people["admin"], capabilities={"elicitation": {}}, elicit=confirmed)
    ctx.secure_input_door = asked
    answer = structured(
        dispatch.call_tool(
            ctx,
            "saveStoredApi",
            {"name": "shipping", "baseUrl": f"{api.url}/v2", "authKind": "bearer", "description": "Parcels"},
        )
    )

    row = StoredApi.objects.get()
    assert answer["baseUrl"] == f"{api.url}/v2" and answer["allowedMethods"] == ["GET"]
    assert encryption.decrypt(row.secret_encrypted) == SECRET
    _save(
        people["admin"],
        {"name": "Shipping", "baseUrl": f"{api.url}/v2", "authKind": "bearer", "replaceSecret": True},
        secret="new-secret",
    )
    row.refresh_from_db()
    assert encryption.decrypt(row.secret_encrypted) == "new-secret"


def test_a_get_is_sent_with_the_credential_and_answers_parsed_json_without_confirming(people, api, stored):
    answer = ok(
        people["member"], "executeApiCall", {"api": "Shipping", "path": "/parcels", "query": {"page": 2}}
    )

    (got,) = api.received
    assert got.method == "GET" and got.path == "/v1/parcels" and got.query == {"page": ["2"]}
    assert got.headers["authorization"] == f"Bearer {SECRET}"
    assert answer["status"] == 200 and answer["ok"] is True and answer["truncated"] is False
    assert answer["data"] == {"method": "GET", "path": "/v1/parcels", "query": {"page": ["2"]}}
    assert answer["text"] is None and answer["contentType"] == "application/json"
    log = StoredApiCall.objects.get()
    assert (log.api_name, log.method, log.status, log.user_id) == (
        "Shipping",
        "GET",
        200,
        people["member"].pk,
    )
    assert log.url == f"{api.url}/v1/parcels?page=2"
    assert SECRET not in json.dumps(answer)
    assert StoredApi.objects.get().last_called_at is not None


def test_a_post_is_confirmed_first_then_sends_its_json_body(people, api, stored):
    arguments = {"api": "Shipping", "method": "POST", "path": "orders", "body": {"parcel": 7}}

    asked = text_of(_call(people["member"], "executeApiCall", arguments))
    assert "confirm" in asked.lower() and api.received == []

    answer = structured(_call(people["member"], "executeApiCall", arguments, confirm=True))
    (got,) = api.received
    assert got.method == "POST" and got.path == "/v1/orders" and json.loads(got.body) == {"parcel": 7}
    assert got.headers["content-type"] == "application/json" and answer["status"] == 200


@pytest.mark.parametrize(
    "path",
    [
        "https://evil.example/steal",
        "http://evil.example/steal",
        "//evil.example/steal",
        "http://user:pass@127.0.0.1/x",
        "https://127.0.0.1/x",
        "\\\\evil.example",
    ],
)
def test_an_address_off_the_apis_hosts_is_refused_and_nothing_is_sent(people, api, stored, path):
    message = refused(people["member"], "executeApiCall", {"api": "Shipping", "path": path})

    assert "nothing was sent" in message.lower()
    assert api.received == [] and StoredApiCall.objects.count() == 0


def test_a_method_the_api_does_not_allow_a_body_on_get_and_credential_headers_are_refused(
    people, api, stored
):
    member = people["member"]

    assert "DELETE is not allowed" in refused(
        member, "executeApiCall", {"api": "Shipping", "method": "DELETE", "path": "/x"}
    )
    assert "takes no body" in refused(member, "executeApiCall", {"api": "Shipping", "body": {"a": 1}})
    for header in ("Authorization", "cookie", "Host", "Proxy-Authorization"):
        assert "cannot be given" in refused(
            member, "executeApiCall", {"api": "Shipping", "headers": {header: "x"}}
        )
    assert "No stored API is named 'Nope'" in refused(member, "executeApiCall", {"api": "Nope"})
    assert api.received == []


def test_redirects_are_followed_on_its_hosts_and_refused_elsewhere(people, api, stored):
    api.routes["/v1/old"] = Reply(302, b"", {"Location": "/v1/new"})
    api.routes["/v1/away"] = Reply(302, b"", {"Location": "https://evil.example/x"})

    answer = ok(people["member"], "executeApiCall", {"api": "Shipping", "path": "/old"})
    assert (
        answer["redirects"] == 1
        and answer["url"] == f"{api.url}/v1/new"
        and answer["data"]["path"] == "/v1/new"
    )

    message = refused(people["member"], "executeApiCall", {"api": "Shipping", "path": "/away"})
    assert "redirected to https://evil.example/x" in message
    assert [got.path for got in api.received] == ["/v1/old", "/v1/new", "/v1/away"]


def test_a_long_answer_is_cut_at_the_cap_and_flagged(people, api, stored):
    api.routes["/v1/big"] = Reply(200, b"x" * 5000, {"Content-Type": "text/plain"})
    api.routes["/v1/image"] = Reply(200, b"\x89PNG\r\n\x1a\n\0\0", {"Content-Type": "image/png"})

    answer = ok(people["member"], "executeApiCall", {"api": "Shipping", "path": "/big", "maxBytes": 1000})
    assert answer["truncated"] is True and answer["text"] == "x" * 1000 and answer["bytes"] == 1000

    image = ok(people["member"], "executeApiCall", {"api": "Shipping", "path": "/image"})
    assert image["binary"] is True and image["text"] is None and image["bytes"] == 10


def test_an_error_status_is_an_answer_not_a_tool_error(people, api, stored):
    api.routes["/v1/missing"] = as_json({"error": "no such parcel"}, 404)

    answer = ok(people["member"], "executeApiCall", {"api": "Shipping", "path": "/missing"})

    assert answer["status"] == 404 and answer["ok"] is False and answer["data"] == {"error": "no such parcel"}


def test_a_query_key_credential_is_sent_but_never_logged_or_answered(people, api):
    _save(
        people["admin"],
        {"name": "Weather", "baseUrl": api.url, "authKind": "query", "authName": "api_key"},
        secret="qk-123",
    )

    answer = ok(
        people["member"], "executeApiCall", {"api": "Weather", "path": "/today", "query": {"q": "Oslo"}}
    )

    (got,) = api.received
    assert got.query == {"q": ["Oslo"], "api_key": ["qk-123"]}
    assert "qk-123" not in answer["url"] and "qk-123" not in StoredApiCall.objects.get().url
    assert "credential parameter" in refused(
        people["member"], "executeApiCall", {"api": "Weather", "query": {"api_key": "mine"}}
    )


def test_basic_and_header_credentials(people, api):
    _save(
        people["admin"],
        {"name": "Basic", "baseUrl": api.url, "authKind": "basic", "authName": "ada"},
        secret="pw",
    )
    _save(
        people["admin"],
        {"name": "Keyed", "baseUrl": api.url, "authKind": "header", "authName": "X-Api-Key"},
        secret="hk-1",
    )

    ok(people["member"], "executeApiCall", {"api": "Basic"})
    ok(people["member"], "executeApiCall", {"api": "Keyed", "headers": {"X-Trace": "1"}})

    basic, keyed = api.received
    assert basic.headers["authorization"] == "Basic YWRhOnB3"
    assert keyed.headers["x-api-key"] == "hk-1" and keyed.headers["x-trace"] == "1"


def test_a_private_base_url_and_bad_fields_are_refused_at_saving(people):
    admin = people["admin"]

    for base_url in ("http://10.0.0.7/api", "https://169.254.169.254/latest", "ftp://files.example"):
        message = text_of(
            _call(admin, "saveStoredApi", {"name": "Inside", "baseUrl": base_url}, confirm=True)
        )
        assert "baseUrl" in message, message
    message = text_of(
        _call(
            admin,
            "saveStoredApi",
            {"name": "H", "baseUrl": "https://api.example.com", "authKind": "header"},
            confirm=True,
        )
    )
    assert "needs authName" in message
    message = text_of(
        _call(
            admin,
            "saveStoredApi",
            {"name": "H", "baseUrl": "https://api.example.com", "allowedHosts": ["not a host"]},
            confirm=True,
        )
    )
    assert "is not a host name" in message
    assert StoredApi.objects.count() == 0


def test_loopback_is_refused_where_the_settings_do_not_allow_it(people, api, stored, settings):
    settings.WEBHOOKS_ALLOW_LOOPBACK = False

    message = refused(people["member"], "executeApiCall", {"api": "Shipping"})

    assert "loopback" in message and api.received == []


def test_deleting_removes_the_api_and_its_secret_and_calls_stop(people, api, stored):
    answer = structured(_call(people["admin"], "deleteStoredApi", {"name": "Shipping"}, confirm=True))

    assert answer == {"name": "Shipping", "deleted": True} and StoredApi.objects.count() == 0
    assert "No stored API" in refused(people["member"], "executeApiCall", {"api": "Shipping"})


def test_who_may_manage_and_who_may_call(people, api, stored):
    for name in ("saveStoredApi", "deleteStoredApi"):
        with pytest.raises(ToolNotFound):
            _call(people["member"], name, {"name": "Shipping", "baseUrl": api.url})
    for name in ("executeApiCall", "listStoredApis"):
        with pytest.raises(ToolNotFound):
            _call(people["viewer"], name, {"api": "Shipping"} if name == "executeApiCall" else {})
    assert api.received == []
