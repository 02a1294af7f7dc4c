"""The tool-call log's settings page: each credential by its kind and name, the time kept on one
line, and why a call was answered "unknown or not allowed", for the admins who read the log only."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from oauth2_provider.models import get_access_token_model, get_application_model

from apps.accounts.services import access_token_create
from apps.apikeys.services import api_key_create
from apps.catalogue import dispatch
from apps.catalogue.dispatch import ToolNotFound
from apps.catalogue.models import ToolCall
from apps.catalogue.testing import call, context_for, principal_for
from apps.core import privacy

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def no_earlier_calls(people):  # type: ignore[no-untyped-def]
    """Only this test's calls on the page: live tests in the same process commit theirs to Acme
    (removed here inside the test's transaction, so they are back afterwards)."""
    ToolCall.objects.all().delete()


def row_of(page: str, tool: str) -> str:
    """The table row of the (only) call of `tool`."""
    rows = [row for row in re.findall(r"<tr>(.*?)</tr>", page, re.DOTALL) if f"<code>{tool}</code>" in row]
    assert len(rows) == 1, rows
    return rows[0]


def refused(user, name: str, arguments: dict | None = None, **context) -> ToolCall:  # type: ignore[no-untyped-def]
    with pytest.raises(ToolNotFound):
        call(user, name, arguments or {}, **context)
    return ToolCall.objects.filter(tool=name, user=user).latest("at")


def test_an_access_token_is_named_not_numbered(acme_client, people):
    token, _raw = access_token_create(user=people["member"], name="Nightly report")
    context = context_for(people["member"])
    context.principal = principal_for(people["member"], credential=f"pat:{token.pk}", client="Report key")
    dispatch.call_tool(context, "searchContacts", {"query": "nobody"})
    acme_client.force_login(people["admin"])

    row = row_of(acme_client.get("/settings/tool-calls/").content.decode(), "searchContacts")

    assert "access token" in row and "Nightly report" in row
    assert f"pat:{token.pk}" not in row
    assert "Report key" in row  # the client column: the API key's label


def test_a_call_names_its_api_key_and_the_page_filters_by_it(acme_client, people):
    key = api_key_create(user=people["admin"], label="Nightly key").key
    other = api_key_create(user=people["admin"], label="Other key").key
    for metered_to, tool, arguments in ((key, "searchContacts", {"query": "x"}), (other, "listTasks", {})):
        context = context_for(people["admin"])
        context.principal = principal_for(people["admin"], client=metered_to.label, api_key_id=metered_to.pk)
        dispatch.call_tool(context, tool, arguments)
    key.label = "Renamed key"
    key.save(update_fields=["label"])
    acme_client.force_login(people["admin"])

    everything = acme_client.get("/settings/tool-calls/").content.decode()
    filtered = acme_client.get(f"/settings/tool-calls/?key={key.pk}").content.decode()
    detail = acme_client.get(f"/settings/api-keys/{key.pk}/").content.decode()

    assert f'<a href="?key={key.pk}">Renamed key</a>' in row_of(everything, "searchContacts")
    assert "Other key" in row_of(everything, "listTasks")
    assert "searchContacts" in filtered and "<code>listTasks</code>" not in filtered
    assert "Calls metered to the API key Renamed key" in filtered
    assert f"/settings/tool-calls/?key={key.pk}" in detail
    assert ToolCall.objects.get(tool="searchContacts").api_key_id == key.pk


def test_a_connected_app_is_named_by_its_client_even_once_its_token_is_gone(acme_client, people):
    application = get_application_model().objects.create(
        name="Inspector",
        client_type="public",
        authorization_grant_type="authorization-code",
        redirect_uris="http://127.0.0.1/callback",
        user=people["member"],
    )
    token = get_access_token_model().objects.create(
        user=people["member"],
        application=application,
        token="tool-calls-page-token",
        expires=timezone.now() + timedelta(hours=1),
        scope="mcp",
    )
    for credential, client, tool in (
        (f"oauth:{token.pk}", "Inspector", "searchContacts"),
        (f"oauth:{token.pk + 1000}", "Old client", "getContact"),
    ):
        context = context_for(people["member"])
        context.principal = principal_for(
            people["member"], scheme="oauth", credential=credential, client=client
        )
        dispatch.call_tool(context, tool, {"query": "x"} if tool == "searchContacts" else {"contactId": 1})
    acme_client.force_login(people["admin"])

    page = acme_client.get("/settings/tool-calls/").content.decode()

    live = row_of(page, "searchContacts")
    assert "connected app" in live and "Inspector" in live and "oauth:" not in live
    gone = row_of(page, "getContact")
    assert "connected app" in gone and "Old client" in gone and "oauth:" not in gone


def test_a_removed_token_and_an_unknown_kind_say_what_they_can(acme_client, people):
    ToolCall.objects.bulk_create(
        [
            ToolCall(
                at=timezone.now(), tool="getContact", outcome="ok", duration_ms=1, credential="pat:999999"
            ),
            ToolCall(
                at=timezone.now(), tool="listContacts", outcome="ok", duration_ms=1, credential="gateway"
            ),
            ToolCall(at=timezone.now(), tool="searchContacts", outcome="ok", duration_ms=1, credential="x:1"),
        ]
    )
    acme_client.force_login(people["admin"])

    page = acme_client.get("/settings/tool-calls/").content.decode()

    assert "access token" in row_of(page, "getContact") and "(removed)" in row_of(page, "getContact")
    assert "message gateway" in row_of(page, "listContacts")
    assert "x:1" in row_of(page, "searchContacts")


def test_the_time_is_kept_on_one_line(acme_client, people):
    call(people["member"], "searchContacts", {"query": "nobody"})
    acme_client.force_login(people["admin"])

    row = row_of(acme_client.get("/settings/tool-calls/").content.decode(), "searchContacts")

    assert re.search(r'<td class="nowrap"><time datetime="[^"]+">', row)


def test_each_refusal_is_logged_with_its_reason(acme, people):
    assert refused(people["viewer"], "noSuchTool").refusal == "unknown_tool"
    assert refused(people["viewer"], "createContact", {"contact": {"firstName": "X"}}).refusal == "role"
    write_under_read_scope = refused(
        people["owner"], "createContact", {"contact": {"firstName": "X"}}, scopes={"mcp:read"}
    )
    assert write_under_read_scope.refusal == "scope"

    acme.installed_areas = [area for area in acme.installed_areas if area != "contacts"]
    acme.save()
    assert refused(people["owner"], "getContact", {"contactId": 1}).refusal == "area_not_installed"

    people["member"].is_active = False
    people["member"].save(update_fields=["is_active"])
    assert refused(people["member"], "getContact", {"contactId": 1}).refusal == "no_role"

    call(people["owner"], "searchTools", {"query": "contact"})
    assert ToolCall.objects.get(tool="searchTools").refusal == ""


def test_admins_read_why_a_call_was_refused_and_the_caller_is_told_nothing_more(acme_client, people):
    with pytest.raises(ToolNotFound) as unknown:
        call(people["viewer"], "noSuchTool")
    with pytest.raises(ToolNotFound) as forbidden:
        call(people["viewer"], "createContact", {"contact": {"firstName": "X"}})
    assert (
        str(unknown.value) == "Unknown tool: noSuchTool"
        and str(forbidden.value) == "Unknown tool: createContact"
    )
    acme_client.force_login(people["admin"])

    page = acme_client.get("/settings/tool-calls/?outcome=not_found").content.decode()

    assert "no tool of that name" in row_of(page, "noSuchTool")
    assert "the person&#x27;s role does not allow it" in row_of(page, "createContact")
    acme_client.force_login(people["viewer"])
    assert acme_client.get("/settings/tool-calls/").status_code == 403


def test_the_persons_export_leaves_out_why_their_calls_were_refused(acme, people):
    viewer = people["viewer"]
    refused(viewer, "createContact", {"contact": {"firstName": "X"}})
    (handler,) = [handler for handler in privacy.handlers() if handler.label == "catalogue.toolcall"]

    exported = handler.export(privacy.Subject(email=viewer.email, user=viewer, workspace=acme))

    (row,) = [row for row in exported if row["tool"] == "createContact"]
    assert row["outcome"] == "not_found" and "refusal" not in row
