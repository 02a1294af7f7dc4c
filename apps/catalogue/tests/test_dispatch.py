"""list_tools / call_tool / server_instructions through a real ToolContext, in a real workspace."""

import json
import logging
from typing import Annotated

import pytest
from django.db import connection
from jsonschema import validate
from pydantic import Field

from apps.accounts.models import Role
from apps.accounts.services import user_change_role
from apps.catalogue import registry
from apps.catalogue.dispatch import (
    ToolNotFound,
    _app_error_message,
    call_tool,
    list_tools,
    server_instructions,
)
from apps.catalogue.models import ToolCall
from apps.catalogue.registry import tool
from apps.catalogue.shapes import Done
from apps.catalogue.signals import tool_list_changed
from apps.catalogue.testing import (
    call,
    context_for,
    person_with,
    principal_for,
    structured,
    temporary_tools,
    text_of,
)
from apps.contacts.models import Contact
from apps.contacts.permissions import ContactsPerm
from apps.core.errors import FieldRequired, FieldsInvalid, ValidationFailed, invalid

# The catalogue's own tools, first in every list, by name.
CATALOGUE_TOOLS = [
    "callTool",
    "describeTool",
    "getToolTaskStatus",
    "searchTools",
    "searchWorkspace",
    "startToolTask",
]


def names(principal, **narrowing):
    return [entry["name"] for entry in list_tools(principal=principal, **narrowing)]


# --- listing ------------------------------------------------------------------------------------


def test_a_viewer_lists_only_tools_their_role_allows(people):
    listed = names(principal_for(people["viewer"]))

    assert "getContact" in listed
    assert "searchTools" in listed
    assert "createContact" not in listed
    assert "updateContact" not in listed
    # callTool is in every list: it runs only what the viewer may use (test_call_tool.py); so is
    # startToolTask, which starts only long tools the viewer may use (apps/mcp/tests/test_tasks.py).
    # Any person may act on what is their own: file a grievance, tick their onboarding item,
    # comment on their own support ticket, request their own leave and, as a line manager, decide
    # on their reports' and grant them time in lieu, revoke their own API key (the services check
    # whose it is).
    own = {"callTool", "startToolTask", "fileGrievance", "toggleOnboardingItem", "addMyTicketComment"}
    own |= {"submitLeaveRequest", "approveLeaveRequest", "denyLeaveRequest", "adjustLeaveBalance"}
    own |= {"revokeApiKey"}
    # ...and export what they may read: the export's file and its record are their own.
    own |= {"exportDataCsv", "requestDataExport"}
    # ...and prove it is them before a HIGH RISK tool: the step-up codes are their own.
    own |= {"sendOtpCode", "checkOtpCode"}
    # ...and ask the service's operators for help, and a model about a file they may read, at their
    # own API key's cost (the ticket and the charge are theirs).
    own |= {"createSupportTicket", "analyzeImage", "transcribeAudio"}
    # ...and get the share links of a published post; posting it to a social account needs
    # blog.publish, which the tool checks (apps/blog/tests/test_blog_share.py).
    own |= {"shareBlogPost"}
    # ...and read a social post's status (changing one needs marketing.launch, which the tool
    # checks), and put a number on the do-not-call list or check it (anyone may honour an opt-out;
    # taking one off needs dialer.manage and a confirmation).
    own |= {"manageSocialPost", "manageDoNotCall"}
    assert all(registry.get(name).read_only for name in listed if name not in own)


def test_a_member_lists_the_write_tools_too(people):
    listed = names(principal_for(people["member"]))

    assert {"createContact", "updateContact", "getContact"} <= set(listed)


def test_the_list_is_ordered_with_the_catalogue_tools_first(people):
    listed = names(principal_for(people["owner"]))

    assert listed[:6] == CATALOGUE_TOOLS
    contacts = [name for name in listed if registry.get(name).area == "contacts"]
    assert contacts == sorted(contacts)


def test_entries_are_complete_mcp_tool_definitions(people):
    for entry in list_tools(principal=principal_for(people["owner"])):
        assert set(entry) >= {"name", "title", "description", "inputSchema", "annotations"}
        # callTool answers in the shape of the tool it ran: it has none of its own.
        assert ("outputSchema" in entry) is (entry["name"] != "callTool")
        assert entry["inputSchema"]["type"] == "object"
        assert entry["title"] == registry.get(entry["name"]).title
        assert {"destructiveHint", "openWorldHint"} <= set(entry["annotations"])


def test_a_role_without_the_permission_does_not_list_the_tool(acme):
    person = person_with({"contacts.view"}, email="reader@acme.example")

    listed = names(principal_for(person))

    assert "getContact" in listed
    assert "createContact" not in listed
    assert "searchTools" not in listed  # catalogue.discover was not granted either


def test_an_area_that_is_not_installed_hides_its_tools(acme, people):
    acme.installed_areas = [area for area in acme.installed_areas if area != "contacts"]
    acme.save()

    listed = names(principal_for(people["owner"]))

    assert not [name for name in listed if registry.get(name).area == "contacts"]
    assert "searchTools" in listed  # a core area is always there


def test_the_read_scope_lists_only_read_only_tools(people):
    listed = names(principal_for(people["owner"], scopes={"mcp:read", "offline_access"}))

    assert "getContact" in listed
    assert "createContact" not in listed


def test_a_token_without_an_mcp_scope_lists_nothing(people):
    assert names(principal_for(people["owner"], scopes={"offline_access"})) == []


def test_toolsets_narrow_the_list_to_some_areas_but_keep_the_catalogue_tools(people):
    principal = principal_for(people["owner"])

    listed = names(principal, toolsets={"catalogue"})

    assert listed == CATALOGUE_TOOLS
    assert "getContact" in names(principal, toolsets={"contacts"})


def test_read_only_narrowing_keeps_read_only_tools(people):
    listed = names(principal_for(people["owner"]), read_only=True)

    assert "getContact" in listed
    assert "createContact" not in listed


# --- the cache follows changes ------------------------------------------------------------------


def test_editing_a_custom_role_changes_the_list_at_once(acme):
    person = person_with({"contacts.view"}, email="editor@acme.example")
    principal = principal_for(person)
    assert "createContact" not in names(principal)

    role = person.role
    role.permissions = ["contacts.view", "contacts.create"]
    role.save()
    person.refresh_from_db()

    assert "createContact" in names(principal_for(person))


def test_giving_a_person_another_role_changes_their_list_and_says_so(people):
    heard = []

    def listener(sender, **kwargs):
        heard.append(kwargs)

    tool_list_changed.connect(listener)
    try:
        viewer = people["viewer"]
        assert "createContact" not in names(principal_for(viewer))
        user_change_role(actor=people["owner"], user=viewer, role=Role.objects.get(key="member"))
        viewer.refresh_from_db()

        assert "createContact" in names(principal_for(viewer))
        assert heard == [{"signal": tool_list_changed, "schema_name": "acme", "user_ids": [viewer.pk]}]
    finally:
        tool_list_changed.disconnect(listener)


def test_changing_the_installed_areas_says_so_for_the_whole_workspace(acme):
    heard = []

    def listener(sender, **kwargs):
        heard.append((kwargs["schema_name"], kwargs["user_ids"]))

    tool_list_changed.connect(listener)
    try:
        acme.installed_areas = []
        acme.save(update_fields=["installed_areas"])
    finally:
        tool_list_changed.disconnect(listener)

    assert heard == [("acme", None)]


# --- calling ------------------------------------------------------------------------------------


def test_a_call_answers_structured_content_and_the_same_json_as_text(people):
    result = call(
        people["member"], "createContact", {"contact": {"firstName": "Ada", "lastName": "Lovelace"}}
    )

    answer = structured(result)
    assert json.loads(result["content"][0]["text"]) == answer
    assert result["content"][0]["type"] == "text"
    validate(answer, registry.get("createContact").definition["outputSchema"])
    assert answer["contact"]["displayName"] == "Ada Lovelace"


def test_an_unknown_tool_and_a_forbidden_tool_answer_the_same(people):
    with pytest.raises(ToolNotFound) as unknown:
        call(people["viewer"], "noSuchTool")
    with pytest.raises(ToolNotFound) as forbidden:
        call(people["viewer"], "createContact", {"contact": {"firstName": "X"}})

    assert str(unknown.value) == "Unknown tool: noSuchTool"
    assert str(forbidden.value) == "Unknown tool: createContact"
    assert not Contact.objects.filter(first_name="X").exists()


def test_a_write_tool_fails_closed_under_the_read_scope(people):
    with pytest.raises(ToolNotFound):
        call(people["owner"], "createContact", {"contact": {"firstName": "X"}}, scopes={"mcp:read"})


def test_invalid_arguments_name_the_field_and_why(people):
    result = call(people["member"], "getContact", {"contactId": "twelve", "colour": "red"})

    assert result["isError"] is True
    message = text_of(result)
    assert "Invalid arguments for getContact" in message
    assert "`contactId`: Input should be a valid integer" in message
    assert "`colour` is not an argument it takes" in message
    assert "`includeArchived`" in message


def test_an_argument_error_stays_short_however_many_arguments_are_wrong(people):
    arguments = {"contactId": 1, **{f"x{number}" * 40: number for number in range(50_000)}}

    message = text_of(call(people["member"], "getContact", arguments))

    assert len(message) < 2_000
    assert message.count("is not an argument it takes") == 5
    assert "and 49995 more" in message


@pytest.mark.parametrize("text", ["Ada\x00", "Ada \ud800"])
def test_text_no_store_can_keep_is_an_argument_error_naming_the_field_and_nothing_is_written(people, text):
    before = Contact.objects.count()

    nested = call(people["owner"], "createContact", {"contact": {"firstName": text}})
    in_business_fields = call(
        people["owner"], "createContact", {"contact": {"firstName": "Ada", "data": {"notes": [text]}}}
    )

    assert nested["isError"] is True and in_business_fields["isError"] is True
    assert "`contact.firstName`:" in text_of(nested)
    assert "`contact.data`: notes[0] contains a " in text_of(in_business_fields)
    assert "error on the server" not in text_of(nested) + text_of(in_business_fields)
    assert Contact.objects.count() == before


def test_a_missing_argument_is_named(people):
    message = text_of(call(people["member"], "getContact", {}))

    assert "`contactId` is required" in message


def test_a_nested_field_is_named_with_its_path(people):
    message = text_of(call(people["member"], "createContact", {"contact": {"firstName": 5, "nickname": "x"}}))

    assert "`contact.firstName`: Input should be a valid string" in message
    assert "`contact.nickname` is not an argument it takes" in message


def test_arguments_that_are_not_an_object_are_refused(people):
    result = call_tool(context_for(people["member"]), "getContact", ["contactId", 1])

    assert result["isError"] is True
    assert "must be a JSON object" in text_of(result)


class Explosion(Exception):
    pass


class RefusedAfterWriting(ValidationFailed):
    message = "The tool refused after writing."


class Unknown(ValidationFailed):
    message = "Unknown permissions: contacts.fly"


class ControlAccount(ValidationFailed):
    field = "account"
    msg_format = "Account {code} is a control account: the ledger posts to it."


@tool("writeThenRefuse", permission=ContactsPerm.CREATE, title="Write then refuse", register_it=False)
def write_then_refuse(ctx, *, name: Annotated[str, Field(description="The name to write")]) -> Done:
    """Writes a contact, then refuses, to prove nothing of it stays."""
    Contact.objects.create(first_name=name)
    raise RefusedAfterWriting(details={"name": ["refused"]})


@tool("writeThenCrash", permission=ContactsPerm.CREATE, title="Write then crash", register_it=False)
def write_then_crash(ctx, *, name: Annotated[str, Field(description="The name to write")]) -> Done:
    """Writes a contact, then fails unexpectedly, to prove nothing of it stays."""
    Contact.objects.create(first_name=name)
    raise Explosion("secret internals /srv/atrium/db.py line 12")


def test_a_refusal_inside_a_tool_is_a_tool_error_and_nothing_is_written(people):
    with temporary_tools(write_then_refuse):
        result = call(people["member"], "writeThenRefuse", {"name": "Half"})

    assert result["isError"] is True
    assert text_of(result) == "The tool refused after writing. (`name`: refused)"
    assert not Contact.objects.filter(first_name="Half").exists()


@pytest.mark.parametrize(
    ("error", "said"),
    [
        # The field its message states is named there, once, as the caller wrote it.
        (invalid("schedule.time_zone", "not a time zone"), "`schedule.timeZone`: not a time zone."),
        (FieldRequired(field="dueAt"), "`dueAt`: is required and cannot be empty."),
        (
            FieldsInvalid.of({"start": ["is a Sunday."], "end_date": ["is before start."]}),
            "`start`: is a Sunday. `endDate`: is before start.",
        ),
        # A field its message does not state is added after it.
        (
            RefusedAfterWriting(details={"name": ["refused"]}),
            "The tool refused after writing. (`name`: refused)",
        ),
        # A message that is its field's problem in other words names the field after it; a word
        # of the message that is also the field's name is left as it is.
        (
            ControlAccount(code="1100"),
            "Account 1100 is a control account: the ledger posts to it. (`account`)",
        ),
        # A field's name inside a sentence is not where the message names it.
        (
            Unknown(details={"permissions": ["contacts.fly"]}),
            "Unknown permissions: contacts.fly (`permissions`: contacts.fly)",
        ),
    ],
)
def test_an_error_names_each_field_once_as_the_caller_wrote_it(error, said):
    assert _app_error_message(error) == said


def test_a_crash_inside_a_tool_is_a_tool_error_without_a_stack_trace(people, caplog):
    with temporary_tools(write_then_crash), caplog.at_level(logging.ERROR):
        result = call(people["member"], "writeThenCrash", {"name": "Crash"})

    message = text_of(result)
    assert result["isError"] is True
    assert "writeThenCrash failed because of an error on the server; nothing was changed" in message
    assert "secret internals" not in message and "Traceback" not in message
    assert not Contact.objects.filter(first_name="Crash").exists()
    reference = message.rsplit("error reference ", 1)[1].rstrip(").")
    assert any(reference in record.getMessage() for record in caplog.records)


SENTINEL = "sentinel-dispatch@example.org"


@tool("raiseInDatabase", permission=ContactsPerm.CREATE, title="Raise in the database", register_it=False)
def raise_in_database(ctx, *, sqlstate: Annotated[str, Field(description="The error's SQLSTATE")]) -> Done:
    """Writes a contact, then PostgreSQL raises an error whose DETAIL quotes an address, as a unique
    violation's does."""
    Contact.objects.create(first_name="Raised")
    with connection.cursor() as cursor:
        cursor.execute(
            "DO $$ BEGIN RAISE EXCEPTION 'refused' USING ERRCODE = %s, DETAIL = %s,"
            " CONSTRAINT = 'contacts_example_once'; END $$",
            [sqlstate, f"Key (email)=({SENTINEL}) already exists."],
        )
    return Done(message="not reached")


def logged(caplog) -> str:  # type: ignore[no-untyped-def]
    """The captured records as the web processes write them (apps.core.observability)."""
    from apps.core.observability import ConsoleFormatter, JsonFormatter

    return "\n".join(
        formatter.format(record)
        for record in caplog.records
        for formatter in (ConsoleFormatter(), JsonFormatter())
    )


@pytest.mark.parametrize(("sqlstate", "kind"), [("23505", "IntegrityError"), ("40P01", "OperationalError")])
def test_a_write_that_loses_to_a_concurrent_one_is_a_conflict_logged_by_its_constraint(
    people, caplog, sqlstate, kind
):
    with temporary_tools(raise_in_database), caplog.at_level(logging.WARNING):
        result = call(people["member"], "raiseInDatabase", {"sqlstate": sqlstate})

    assert result["isError"] is True
    assert text_of(result).startswith("raiseInDatabase conflicts with data saved at the same moment")
    assert not Contact.objects.filter(first_name="Raised").exists()
    text = logged(caplog)
    described = f"{kind} (SQLSTATE {sqlstate}, constraint contacts_example_once)"
    assert f"raiseInDatabase answered CONFLICT: {described}" in text
    assert SENTINEL not in text and "Traceback" not in text


def test_a_deadlock_is_run_once_more_and_lost_twice_is_a_conflict(people, caplog):
    with temporary_tools(raise_in_database), caplog.at_level(logging.INFO):
        result = call(people["member"], "raiseInDatabase", {"sqlstate": "40P01"})

    assert text_of(result).startswith("raiseInDatabase conflicts with data saved at the same moment")
    runs = [record for record in caplog.records if "running it once more" in record.getMessage()]
    assert len(runs) == 1
    assert "raiseInDatabase lost a race (OperationalError (SQLSTATE 40P01" in runs[0].getMessage()
    assert not Contact.objects.filter(first_name="Raised").exists()


LOST_ONCE: list[str] = []


@tool("deadlockOnce", permission=ContactsPerm.CREATE, title="Deadlock once", register_it=False)
def deadlock_once(ctx, *, name: Annotated[str, Field(description="A first name")]) -> Done:
    """Writes a contact; the first run is then chosen as a deadlock's victim, as PostgreSQL does."""
    Contact.objects.create(first_name=name)
    LOST_ONCE.append(name)
    if len(LOST_ONCE) == 1:
        with connection.cursor() as cursor:
            cursor.execute("DO $$ BEGIN RAISE EXCEPTION 'deadlock detected' USING ERRCODE = '40P01'; END $$")
    return Done(message=f"run {len(LOST_ONCE)}")


def test_a_write_that_lost_a_deadlock_once_succeeds_the_second_time_with_one_effect(people):
    LOST_ONCE.clear()
    with temporary_tools(deadlock_once):
        result = call(people["member"], "deadlockOnce", {"name": "Twice-Run"})

    assert result.get("isError") is not True, text_of(result)
    assert structured(result)["message"] == "run 2"
    assert Contact.objects.filter(first_name="Twice-Run").count() == 1


@pytest.mark.parametrize(("sqlstate", "kind"), [("23502", "IntegrityError"), ("23503", "IntegrityError")])
def test_a_not_null_or_foreign_key_violation_is_a_failure_of_the_server_not_a_race(
    people, caplog, sqlstate, kind
):
    with temporary_tools(raise_in_database), caplog.at_level(logging.INFO):
        result = call(people["member"], "raiseInDatabase", {"sqlstate": sqlstate})

    message = text_of(result)
    assert "raiseInDatabase failed because of an error on the server" in message
    assert "running it once more" not in logged(caplog)
    assert f"database error {kind} (SQLSTATE {sqlstate}, constraint contacts_example_once)" in logged(caplog)
    assert ToolCall.objects.filter(tool="raiseInDatabase").latest("at").error_code == "DATABASE"


def test_any_other_database_error_is_logged_with_its_traceback_but_not_its_text(people, caplog):
    with temporary_tools(raise_in_database), caplog.at_level(logging.WARNING):
        result = call(people["member"], "raiseInDatabase", {"sqlstate": "22023"})

    message = text_of(result)
    assert "raiseInDatabase failed because of an error on the server" in message and SENTINEL not in message
    reference = message.rsplit("error reference ", 1)[1].rstrip(").")
    text = logged(caplog)
    assert (
        f"database error DataError (SQLSTATE 22023, constraint contacts_example_once) (reference {reference})"
        in text
    )
    assert "Traceback" in text and "in raise_in_database" in text  # where it happened
    assert "psycopg.errors.InvalidParameterValue (SQLSTATE 22023" in text
    assert SENTINEL not in text and "refused" not in text


@tool("transactionDepthWrite", permission=ContactsPerm.CREATE, title="Depth (write)", register_it=False)
def transaction_depth_write(ctx) -> Done:  # type: ignore[no-untyped-def]
    """Answers how many transactions it runs in."""
    return Done(message=str(len(connection.atomic_blocks)))


@tool(
    "transactionDepthRead",
    permission=ContactsPerm.VIEW,
    title="Depth (read)",
    read_only=True,
    register_it=False,
)
def transaction_depth_read(ctx) -> Done:  # type: ignore[no-untyped-def]
    """Answers how many transactions it runs in."""
    return Done(message=str(len(connection.atomic_blocks)))


def test_a_write_tool_runs_in_a_transaction_of_its_own_and_a_read_only_one_needs_none(people):
    around = len(connection.atomic_blocks)  # the test's own
    with temporary_tools(transaction_depth_write, transaction_depth_read):
        write = structured(call(people["member"], "transactionDepthWrite", {}))
        read = structured(call(people["member"], "transactionDepthRead", {}))

    assert int(write["message"]) == around + 1
    assert int(read["message"]) == around


def test_a_cancelled_call_does_not_run(people):
    result = call(
        people["member"], "createContact", {"contact": {"firstName": "Late"}}, is_cancelled=lambda: True
    )

    assert result["isError"] is True
    assert not Contact.objects.filter(first_name="Late").exists()


# --- audit --------------------------------------------------------------------------------------


def test_every_call_is_recorded_without_its_arguments(people):
    member = people["member"]
    # Other modules' live tests may have committed calls of the demo people: only ours count.
    before = ToolCall.objects.order_by("-id").values_list("id", flat=True).first() or 0
    call(member, "createContact", {"contact": {"firstName": "Grace", "email": "grace@navy.example"}})
    call(member, "getContact", {"contactId": "x"})
    with pytest.raises(ToolNotFound):
        call(member, "transferEverything")

    rows = list(ToolCall.objects.filter(user=member, id__gt=before).order_by("id"))
    assert [(row.tool, row.outcome) for row in rows] == [
        ("createContact", "ok"),
        ("getContact", "invalid_arguments"),
        ("transferEverything", "not_found"),
    ]
    first = rows[0]
    assert (first.scheme, first.credential, first.client) == ("access_token", "pat:test", "test client")
    assert first.duration_ms > 0
    stored = json.dumps([list(row.__dict__.values()) for row in rows], default=str)
    assert "grace" not in stored.lower()


def test_a_tool_error_is_recorded_with_its_code(people):
    call(people["member"], "getContact", {"contactId": 999999})

    row = ToolCall.objects.filter(user=people["member"], tool="getContact").latest("id")
    assert (row.outcome, row.error_code) == ("error", "NOT_FOUND")


# --- instructions -------------------------------------------------------------------------------


def test_server_instructions_tell_how_the_catalogue_works(acme, people):
    text = server_instructions(principal_for(people["viewer"]))

    assert "Acme Workspace" in text
    assert "Contacts (contacts:" in text
    assert "searchTools" in text and "describeTool" in text and "callTool" in text
    assert "confirmationToken" in text
    assert "MANDATORY FIRST CALL" in text
    assert "profile=" in text
    # At most 1k tokens (bytes / 4), with every area the owner may use.
    assert len(server_instructions(principal_for(people["owner"])).encode()) <= 4_000


@tool("readTooMuch", permission=ContactsPerm.VIEW, title="Read too much", read_only=True, register_it=False)
def read_too_much(ctx, *, size: Annotated[int, Field(description="Characters to answer")]) -> Done:  # type: ignore[no-untyped-def]
    """Answers `size` characters, to try the bound on an answer."""
    return Done(message="x" * size)


@tool("writeThenSayTooMuch", permission=ContactsPerm.CREATE, title="Write, say too much", register_it=False)
def write_then_say_too_much(ctx, *, name: Annotated[str, Field(description="The name to write")]) -> Done:  # type: ignore[no-untyped-def]
    """Writes a contact, then answers far too much, to prove the write stays and the agent is told."""
    Contact.objects.create(first_name=name)
    return Done(message="x" * 200_000)


def test_an_answer_over_25k_tokens_is_refused_with_what_to_do(people):
    with temporary_tools(read_too_much):
        fits = call(people["member"], "readTooMuch", {"size": 90_000})
        too_long = call(people["member"], "readTooMuch", {"size": 100_100})

    assert structured(fits)["message"] == "x" * 90_000
    assert too_long["isError"] is True and "structuredContent" not in too_long
    message = text_of(too_long)
    assert "too long to send" in message and "at most 25,000" in message and "Nothing was changed" in message
    assert len(message) < 400


def test_a_write_whose_answer_is_too_long_says_it_was_done(people):
    with temporary_tools(write_then_say_too_much):
        result = call(people["member"], "writeThenSayTooMuch", {"name": "Verbose"})

    assert result["isError"] is True
    assert "was done" in text_of(result) and "Do not call it again" in text_of(result)
    assert Contact.objects.filter(first_name="Verbose").exists()
    row = ToolCall.objects.filter(tool="writeThenSayTooMuch").latest("id")
    assert (row.outcome, row.error_code) == ("ok", "RESULT_TOO_LONG")
