"""Declaring tools: schemas, descriptions, annotations, and the start-up check."""

import json
from datetime import datetime
from typing import Annotated, Literal

import pytest
from django.core.management import call_command
from jsonschema import Draft202012Validator
from pydantic import Field, ValidationError

from apps.catalogue import registry
from apps.catalogue.checks import check_catalogue, problems_of
from apps.catalogue.registry import Marker, RegistryError, build_spec, tool
from apps.catalogue.shapes import Done, In, Out
from apps.catalogue.testing import temporary_tools
from apps.contacts.permissions import ContactsPerm


class Echo(Out):
    said: str


def echo(
    ctx,
    *,
    words: Annotated[str, Field(max_length=10, description="What to say back")],
    loud: Annotated[bool, Field(description="Shout it")] = False,
) -> Echo:
    """Say the words back, exactly as they came, so the caller can check the round trip."""
    return Echo(said=words.upper() if loud else words)


def test_the_input_schema_comes_from_the_keyword_only_parameters_in_camel_case():
    spec = build_spec(echo, name="echoWords", permission=ContactsPerm.VIEW, title="Echo", read_only=True)
    schema = spec.definition["inputSchema"]

    assert schema["type"] == "object"
    assert schema["additionalProperties"] is False
    assert schema["required"] == ["words"]
    assert schema["properties"]["words"] == {
        "type": "string",
        "maxLength": 10,
        "description": "What to say back",
    }
    assert schema["properties"]["loud"] == {"type": "boolean", "description": "Shout it"}
    Draft202012Validator.check_schema(schema)


def test_the_output_schema_comes_from_the_return_model():
    spec = build_spec(echo, name="echoWords", permission=ContactsPerm.VIEW, title="Echo", read_only=True)

    assert spec.definition["outputSchema"]["properties"] == {"said": {"type": "string"}}
    assert spec.output_model is Echo


def test_the_docstring_is_the_description_behind_its_markers():
    spec = build_spec(
        echo,
        name="echoWords",
        permission=ContactsPerm.EDIT,
        title="Echo",
        markers=Marker.GATED | Marker.DESTRUCTIVE,
    )

    assert spec.description == (
        "GATED: DESTRUCTIVE: Say the words back, exactly as they came, "
        "so the caller can check the round trip."
    )


# --- compact schemas -------------------------------------------------------------------------------


class Person(Out):
    """A person, as the source explains it: this docstring is not for agents."""

    id: int
    email: str


class Meeting(Out):
    """A meeting."""

    id: int
    organiser: Person | None
    guests: list[Person]
    room: Annotated[str, Field(description="Where")] | None
    note: str | None = Field(description="The note")


class Window(In):
    """A window of time, as the source explains it."""

    start: datetime
    end: datetime | None = Field(None, description="Until when (default: open)")


def plan(
    ctx,
    *,
    meeting_id: Annotated[int, Field(ge=1, le=2**63 - 1, description="From searchMeetings")],
    window: Annotated[Window | None, Field(description="When to plan it")] = None,
    mode: Annotated[Literal["soon", "late"] | None, Field(description="How to pick a time")] = None,
    city: Annotated[str | None, Field(max_length=50, description="Its city")] = None,
) -> Meeting:
    """Plan a meeting in a window of time, and answer it as it stands after."""


def planned():
    return build_spec(plan, name="planMeeting", permission=ContactsPerm.EDIT, title="Plan")


def test_a_nullable_argument_takes_null_into_its_type_and_its_enum():
    properties = planned().definition["inputSchema"]["properties"]

    assert properties["mode"] == {
        "type": ["string", "null"],
        "enum": ["soon", "late", None],
        "description": "How to pick a time",
    }
    assert "anyOf" not in json.dumps(planned().definition["inputSchema"])


def test_a_shape_used_once_is_written_in_place_without_its_title_or_docstring():
    schema = planned().definition["inputSchema"]

    assert "$defs" not in schema
    window = schema["properties"]["window"]
    assert window["type"] == ["object", "null"]
    assert window["description"] == "When to plan it"
    assert window["properties"]["end"] == {
        "type": ["string", "null"],
        "format": "date-time",
        "description": "Until when (default: open)",
    }
    assert "title" not in json.dumps(schema)


def test_null_or_empty_defaults_64_bit_bounds_ids_minimum_and_descriptions_that_restate_a_name_are_left_out():
    properties = planned().definition["inputSchema"]["properties"]

    assert properties["meetingId"] == {"type": "integer", "description": "From searchMeetings"}
    assert properties["city"] == {"type": ["string", "null"], "maxLength": 50}
    assert "default" not in properties["window"]
    # The bound is still enforced: only the schema leaves it out.
    spec = planned()
    for beyond in (2**63, 0):
        with pytest.raises(ValidationError):
            spec.input_model.model_validate({"meetingId": beyond})


def test_the_input_schema_accepts_what_the_input_model_accepts():
    """But for the bounds the schema leaves out (an id's minimum, 64-bit bounds), which the model
    still refuses."""
    spec = planned()
    validator = Draft202012Validator(spec.definition["inputSchema"])
    accepted = [
        {"meetingId": 1},
        {"meetingId": 1, "window": None, "mode": None, "city": None},
        {"meetingId": 1, "window": {"start": "2026-03-10T09:00:00Z"}, "mode": "late", "city": "Ghent"},
        {"meetingId": 1, "window": {"start": "2026-03-10T09:00:00Z", "end": None}},
    ]
    refused = [
        {},
        {"meetingId": 1, "colour": "red"},
        {"meetingId": 1, "mode": "never"},
        {"meetingId": 1, "window": {}},
        {"meetingId": 1, "window": {"start": "2026-03-10T09:00:00Z", "extra": 1}},
        {"meetingId": 1, "city": "x" * 51},
    ]
    for arguments in accepted:
        assert validator.is_valid(arguments), arguments
        spec.input_model.model_validate(arguments)
    for arguments in refused:
        assert not validator.is_valid(arguments), arguments
        with pytest.raises(ValidationError):
            spec.input_model.model_validate(arguments)


def test_a_shared_shape_is_defined_once_and_an_output_schema_requires_every_field():
    schema = planned().definition["outputSchema"]

    assert list(schema["$defs"]) == ["Person"]
    assert schema["$defs"]["Person"] == {
        "type": "object",
        "properties": {"id": {"type": "integer"}, "email": {"type": "string"}},
        "required": ["id", "email"],
    }
    assert schema["properties"]["guests"] == {"type": "array", "items": {"$ref": "#/$defs/Person"}}
    assert schema["properties"]["room"] == {"type": ["string", "null"], "description": "Where"}
    # A field that may be null is still always there, so it is required too.
    assert schema["required"] == list(schema["properties"])
    assert "room" in schema["required"]
    assert "description" not in schema


def test_an_answer_without_one_of_its_fields_does_not_match_the_output_schema():
    answer = Meeting(
        id=1, organiser=None, guests=[Person(id=2, email="a@example.org")], room=None, note=None
    ).model_dump(mode="json", by_alias=True)
    del answer["room"]

    assert not Draft202012Validator(planned().definition["outputSchema"]).is_valid(answer)


def test_an_answer_with_nulls_still_matches_the_output_schema():
    answer = Meeting(
        id=1, organiser=None, guests=[Person(id=2, email="a@example.org")], room=None, note=None
    ).model_dump(mode="json", by_alias=True)

    Draft202012Validator(planned().definition["outputSchema"]).validate(answer)


@pytest.mark.parametrize(
    ("options", "annotations"),
    [
        (
            {"read_only": True},
            {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False},
        ),
        # readOnlyHint and idempotentHint default to false in MCP: left out when false.
        ({}, {"destructiveHint": False, "openWorldHint": False}),
        ({"markers": Marker.DESTRUCTIVE}, {"destructiveHint": True, "openWorldHint": False}),
        (
            {"markers": Marker.HIGH_RISK, "open_world": True, "idempotent": True},
            {"destructiveHint": True, "idempotentHint": True, "openWorldHint": True},
        ),
        ({"markers": Marker.GATED}, {"destructiveHint": False, "openWorldHint": False}),
    ],
)
def test_markers_and_options_map_to_mcp_annotations(options, annotations):
    spec = build_spec(echo, name="echoWords", permission=ContactsPerm.EDIT, title="Echo the words", **options)

    assert spec.annotations == annotations
    assert spec.definition["title"] == "Echo the words"


def test_confirmable_tools_declare_the_confirmation_token_argument():
    plain = build_spec(echo, name="echoWords", permission=ContactsPerm.EDIT, title="Echo")
    gated = build_spec(
        echo, name="echoWords", permission=ContactsPerm.EDIT, title="Echo", markers=Marker.GATED
    )

    assert "confirmationToken" not in plain.definition["inputSchema"]["properties"]
    assert gated.definition["inputSchema"]["properties"]["confirmationToken"]["type"] == "string"


def test_a_positional_parameter_is_refused_at_import():
    def positional(ctx, words: Annotated[str, Field(description="x")]) -> Echo:
        """Not keyword-only, so the schema could not be trusted."""

    with pytest.raises(RegistryError, match="keyword-only"):
        build_spec(positional, name="bad", permission=ContactsPerm.VIEW, title="Bad")


def test_a_tool_without_an_output_model_is_refused_at_import():
    def no_model(ctx, *, words: Annotated[str, Field(description="x")]) -> dict:
        """Returns a dict, which has no schema."""

    with pytest.raises(RegistryError, match="pydantic model"):
        build_spec(no_model, name="bad", permission=ContactsPerm.VIEW, title="Bad")


def test_two_tools_with_one_name_are_refused():
    @tool("getContact", permission=ContactsPerm.VIEW, title="Another", read_only=True, register_it=False)
    def another(ctx) -> Done:
        """A second tool that claims an existing name."""

    with pytest.raises(RegistryError, match="declared twice"):
        registry.register(another.tool_spec)


def test_the_system_check_passes_for_the_whole_catalogue():
    assert check_catalogue() == []
    call_command("check", "--fail-level", "ERROR")


def test_the_system_check_names_what_is_wrong_with_a_tool():
    @tool(
        "Bad_name",
        permission=ContactsPerm.VIEW,
        title="",
        read_only=True,
        markers=Marker.DESTRUCTIVE,
        register_it=False,
    )
    def bad(ctx, *, thing: int = 1) -> Done:
        """Short."""

    problems = problems_of(bad.tool_spec)

    assert "its name is not camelCase" in problems
    assert "it has no title" in problems
    assert any("description" in problem for problem in problems)
    assert "a read-only tool cannot be GATED, HIGH RISK or DESTRUCTIVE" in problems
    assert "its argument 'thing' has no description (one that restates its name is left out)" in problems
    with temporary_tools(bad):
        assert any("Bad_name" in message.msg for message in check_catalogue())


def test_the_system_check_refuses_a_marker_written_in_the_docstring_but_not_declared():
    @tool("sneakyTool", permission=ContactsPerm.EDIT, title="Sneaky", register_it=False)
    def sneaky(ctx) -> Done:
        """DESTRUCTIVE: removes things, but the dispatcher was never told so."""

    assert any("DESTRUCTIVE" in problem for problem in problems_of(sneaky.tool_spec))


def test_two_mandatory_first_calls_in_one_area_are_refused():
    @tool(
        "firstOne",
        permission=ContactsPerm.VIEW,
        title="First",
        read_only=True,
        markers=Marker.MANDATORY_FIRST_CALL,
        register_it=False,
    )
    def first_one(ctx) -> Done:
        """The first of two tools that both claim to be the first call."""

    @tool(
        "firstTwo",
        permission=ContactsPerm.VIEW,
        title="Second",
        read_only=True,
        markers=Marker.MANDATORY_FIRST_CALL,
        register_it=False,
    )
    def first_two(ctx) -> Done:
        """The second of two tools that both claim to be the first call."""

    with temporary_tools(first_one, first_two):
        assert [message.id for message in check_catalogue()] == ["atrium.E102"]
