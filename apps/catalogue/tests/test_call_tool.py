"""callTool: any tool the person may use, run by name through the same dispatcher as a direct call,
with the same answer (the official client's view of it: apps/mcp/tests/test_call_tool_client.py)."""

import re

import pytest
from django.db import connection

from apps.catalogue import registry
from apps.catalogue.dispatch import MemorySession, list_tools
from apps.catalogue.models import ToolCall
from apps.catalogue.registry import Marker, RegistryError, tool
from apps.catalogue.shapes import Done, RawResult
from apps.catalogue.testing import (
    call,
    confirmed,
    person_with,
    principal_for,
    structured,
    temporary_tools,
    text_of,
)
from apps.catalogue.tests.marked_tools import open_desk, wipe_contact
from apps.contacts.models import Contact
from apps.contacts.permissions import ContactsPerm


def through(user, name, arguments=None, **context):  # type: ignore[no-untyped-def]
    """A call of `name` through callTool."""
    return call(user, "callTool", {"name": name, "arguments": arguments or {}}, **context)


def token_in(result):  # type: ignore[no-untyped-def]
    match = re.search(r'"confirmationToken": "([^"]+)"', text_of(result))
    assert match, text_of(result)
    return match.group(1)


def rows_since(before, user):  # type: ignore[no-untyped-def]
    rows = ToolCall.objects.filter(user=user, id__gt=before).order_by("id")
    return [(row.tool, row.outcome, row.error_code) for row in rows]


def last_row_id() -> int:
    # Other modules' live tests may have committed rows of the demo people: only ours count.
    return ToolCall.objects.order_by("-id").values_list("id", flat=True).first() or 0


@tool("countOnTwo", permission=ContactsPerm.VIEW, title="Count to two", read_only=True, register_it=False)
def count_on_two(ctx) -> Done:  # type: ignore[no-untyped-def]
    """Reports progress 1 and 2 of 2, then answers how many transactions it ran in."""
    ctx.report_progress(1, 2, "one")
    ctx.report_progress(2, 2, "two")
    return Done(message=str(len(connection.atomic_blocks)))


@tool("depthOfWrites", permission=ContactsPerm.CREATE, title="Depth (write)", register_it=False)
def depth_of_writes(ctx) -> Done:  # type: ignore[no-untyped-def]
    """Answers how many transactions it runs in."""
    return Done(message=str(len(connection.atomic_blocks)))


@pytest.fixture
def noted(acme):  # type: ignore[no-untyped-def]
    return Contact.objects.create(first_name="Nora", notes="keep me")


# --- the definition -----------------------------------------------------------------------------


def test_its_definition_is_short_and_its_annotations_assume_the_worst():
    spec = registry.get("callTool")
    definition = spec.definition

    first_sentence = re.split(r"(?<=[.!?])\s", spec.description, maxsplit=1)[0]
    assert len(first_sentence) <= 100
    assert len(spec.description) <= 400
    assert set(definition["inputSchema"]["properties"]) == {"name", "arguments"}
    assert definition["inputSchema"]["required"] == ["name"]
    assert "outputSchema" not in definition  # it answers in the shape of the tool it ran
    # readOnlyHint and idempotentHint left out: MCP's default for both is false.
    assert definition["annotations"] == {"destructiveHint": True, "openWorldHint": True}
    assert definition["title"] == "Call a tool"
    assert spec.markers == Marker.NONE and spec.permission.value == "catalogue.discover"


def test_a_tool_that_runs_tools_cannot_carry_markers_nor_be_read_only():
    def runner(ctx) -> RawResult:  # type: ignore[no-untyped-def]
        """Runs other tools, wrongly declared."""
        return RawResult(content=[])

    with pytest.raises(RegistryError, match="no markers and is not read-only"):
        tool("runner", permission=ContactsPerm.VIEW, title="R", runs_tools=True, read_only=True)(runner)
    with pytest.raises(RegistryError, match="no markers and is not read-only"):
        tool("runner", permission=ContactsPerm.VIEW, title="R", runs_tools=True, markers=Marker.GATED)(runner)


# --- the same answer as a direct call -----------------------------------------------------------


def test_a_read_tool_answers_exactly_what_a_direct_call_answers(people):
    contact = Contact.objects.create(first_name="Ada", last_name="Lovelace")

    direct = call(people["viewer"], "getContact", {"contactId": contact.pk})
    indirect = through(people["viewer"], "getContact", {"contactId": contact.pk})

    assert indirect == direct
    assert structured(indirect)["displayName"] == "Ada Lovelace"
    assert indirect["content"][0]["text"] == direct["content"][0]["text"]


def test_a_write_tool_acts_in_a_transaction_of_its_own_and_callTool_opens_none(people):
    around = len(connection.atomic_blocks)  # the test's own
    with temporary_tools(depth_of_writes, count_on_two):
        write = structured(through(people["member"], "depthOfWrites"))
        read = structured(through(people["member"], "countOnTwo"))
        grace = {"contact": {"firstName": "Grace", "lastName": "Hopper"}}
        created = structured(through(people["member"], "createContact", grace))

    assert int(write["message"]) == around + 1
    assert int(read["message"]) == around
    assert Contact.objects.get(pk=created["contact"]["id"]).last_name == "Hopper"


def test_bad_arguments_get_the_same_validation_error_as_a_direct_call(people):
    arguments = {"contactId": "twelve", "colour": "red"}

    direct = call(people["member"], "getContact", arguments)
    indirect = through(people["member"], "getContact", arguments)

    assert indirect == direct
    assert "Invalid arguments for getContact" in text_of(indirect)


def test_a_tool_error_is_the_tools_own_answer(people):
    direct = call(people["member"], "getContact", {"contactId": 999999})

    assert through(people["member"], "getContact", {"contactId": 999999}) == direct
    assert direct["isError"] is True


# --- not found, never forbidden -----------------------------------------------------------------


def test_a_tool_the_role_may_not_use_answers_as_an_unknown_one(people):
    forbidden = through(people["viewer"], "createContact", {"contact": {"firstName": "Sneaky"}})
    unknown = through(people["viewer"], "noSuchTool", {"contact": {"firstName": "Sneaky"}})

    assert forbidden["isError"] is True and unknown["isError"] is True
    assert text_of(forbidden) == (
        "Unknown tool: createContact. Nothing was done; searchTools finds the tools you may use."
    )
    assert text_of(forbidden).replace("createContact", "noSuchTool") == text_of(unknown)
    assert forbidden.keys() == unknown.keys()
    assert not Contact.objects.filter(first_name="Sneaky").exists()


def test_the_scope_of_the_credential_applies_to_the_tool_it_runs(people):
    read_only = {"scopes": {"mcp:read"}}
    owner = people["owner"]

    assert "callTool" in [entry["name"] for entry in list_tools(principal=principal_for(owner, **read_only))]
    assert structured(through(owner, "searchContacts", {"query": "nobody"}, **read_only))["total"] == 0
    refused = through(owner, "createContact", {"contact": {"firstName": "Scoped"}}, **read_only)
    assert text_of(refused).startswith("Unknown tool: createContact.")
    assert not Contact.objects.filter(first_name="Scoped").exists()


def test_a_role_without_discovery_cannot_use_it(acme):
    person = person_with({"contacts.view"}, email="no-discovery@acme.example")

    assert "callTool" not in [entry["name"] for entry in list_tools(principal=principal_for(person))]


# --- markers ------------------------------------------------------------------------------------


def test_a_destructive_tool_asks_for_confirmation_then_acts_with_the_token(people, noted):
    session = MemorySession()
    with temporary_tools(wipe_contact):
        asked = through(people["member"], "wipeContact", {"name": "Nora"}, session=session)
        noted.refresh_from_db()
        assert noted.notes == "keep me"
        token = token_in(asked)

        done = through(
            people["member"], "wipeContact", {"name": "Nora", "confirmationToken": token}, session=session
        )

    assert asked["isError"] is True
    assert text_of(asked).startswith("Confirmation required: wipeContact is marked DESTRUCTIVE")
    assert structured(done)["message"] == "wiped 1"
    noted.refresh_from_db()
    assert noted.notes == ""


def test_the_confirmation_answer_is_the_one_a_direct_call_gives(people, noted):
    with temporary_tools(wipe_contact):
        direct = call(people["member"], "wipeContact", {"name": "Nora"})
        indirect = through(people["member"], "wipeContact", {"name": "Nora"})

    # The same text but for the one-time token.
    shown, expected = text_of(indirect), text_of(direct)
    assert shown.replace(token_in(indirect), "…") == expected.replace(token_in(direct), "…")


def test_a_token_is_bound_to_the_tool_and_its_arguments_whichever_way_it_is_called(people, noted):
    session = MemorySession()
    with temporary_tools(wipe_contact):
        token = token_in(through(people["member"], "wipeContact", {"name": "Nora"}, session=session))
        elsewhere = through(
            people["member"], "wipeContact", {"name": "Other", "confirmationToken": token}, session=session
        )
        token = token_in(through(people["member"], "wipeContact", {"name": "Nora"}, session=session))
        direct = call(
            people["member"], "wipeContact", {"name": "Nora", "confirmationToken": token}, session=session
        )

    assert "That confirmation token is not valid for this call" in text_of(elsewhere)
    assert structured(direct)["message"] == "wiped 1"


def test_with_elicitation_the_user_is_asked_about_the_tool_it_runs(people, noted):
    asked = []

    def accept(message, schema):  # type: ignore[no-untyped-def]
        asked.append(message)
        return confirmed(message, schema)

    with temporary_tools(wipe_contact):
        done = through(
            people["member"],
            "wipeContact",
            {"name": "Nora"},
            capabilities={"elicitation": {}},
            elicit=accept,
        )

    assert structured(done)["message"] == "wiped 1"
    assert len(asked) == 1 and "(wipeContact)" in asked[0] and "callTool" not in asked[0]


def test_the_mandatory_first_call_applies_as_to_a_direct_call(people):
    session = MemorySession()
    with temporary_tools(open_desk):
        direct = call(people["viewer"], "listContacts", session=MemorySession())
        indirect = through(people["viewer"], "listContacts", session=session)
        assert indirect == direct
        assert text_of(indirect).startswith("openContactsDesk must be called first")

        structured(through(people["viewer"], "openContactsDesk", session=session))
        structured(call(people["viewer"], "listContacts", session=session))


# --- callTool's own answers ---------------------------------------------------------------------


def test_it_cannot_call_itself(people):
    result = through(people["member"], "callTool", {"name": "getContact", "arguments": {"contactId": 1}})

    assert result["isError"] is True
    assert text_of(result) == (
        "callTool cannot run callTool: give the name of the tool to run, and its arguments in "
        "`arguments`. Nothing was done."
    )


def test_its_own_arguments_are_checked_like_any_tools(people):
    missing = call(people["member"], "callTool", {"arguments": {}})
    not_an_object = call(people["member"], "callTool", {"name": "getContact", "arguments": [1]})
    top_level_token = call(people["member"], "callTool", {"name": "x", "confirmationToken": "confirm_x"})

    assert "Invalid arguments for callTool: `name` is required" in text_of(missing)
    assert "`arguments`: Input should be a valid dictionary" in text_of(not_an_object)
    assert "`confirmationToken` is not an argument it takes" in text_of(top_level_token)


def test_progress_and_cancellation_reach_the_tool_it_runs(people):
    seen = []
    with temporary_tools(count_on_two):
        structured(through(people["member"], "countOnTwo", progress=lambda *report: seen.append(report)))
    late = through(
        people["member"], "createContact", {"contact": {"firstName": "Late"}}, is_cancelled=lambda: True
    )

    assert seen == [(1, 2, "one"), (2, 2, "two")]
    assert text_of(late) == "createContact was cancelled before it started; nothing was done."
    assert not Contact.objects.filter(first_name="Late").exists()


# --- the log ------------------------------------------------------------------------------------


def test_the_log_has_one_row_per_call_under_the_name_of_the_tool_it_ran(people, noted):
    member = people["member"]
    before = last_row_id()
    with temporary_tools(wipe_contact):
        through(member, "getContact", {"contactId": noted.pk})
        through(member, "getContact", {"contactId": "x"})
        through(member, "wipeContact", {"name": "Nora"})
        through(member, "readCallLog")  # an admin's tool, or none at all: not found either way
        through(member, "callTool", {"name": "getContact"})
        call(member, "callTool", {"arguments": {}})

    assert rows_since(before, member) == [
        ("getContact", "ok", ""),
        ("getContact", "invalid_arguments", ""),
        ("wipeContact", "confirmation_required", "CONFIRMATION_REQUIRED"),
        ("readCallLog", "not_found", ""),
        ("callTool", "error", "VALIDATION_ERROR"),
        ("callTool", "invalid_arguments", ""),
    ]


# --- narrowing ----------------------------------------------------------------------------------


def test_it_stays_in_every_narrowed_list_and_reaches_what_the_list_leaves_out(people):
    principal = principal_for(people["member"])

    by_area = [entry["name"] for entry in list_tools(principal=principal, toolsets={"calendars"})]
    read_only = [entry["name"] for entry in list_tools(principal=principal, read_only=True)]

    assert "callTool" in by_area and "callTool" in read_only
    assert "searchContacts" not in by_area and "createContact" not in read_only
    assert structured(through(people["member"], "searchContacts", {"query": "nobody"}))["total"] == 0
