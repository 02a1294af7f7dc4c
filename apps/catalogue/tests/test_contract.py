"""One contract over the whole registry: every tool has valid schemas and a real permission, its
annotations match its markers, a role without its permission neither lists nor calls it, a normal
call answers what its output schema promises, and nothing of one workspace shows in another."""

from contextlib import nullcontext

import pytest
from django.db import connection
from jsonschema import Draft202012Validator, validate
from pydantic import ValidationError

from apps.accounts.models import User
from apps.catalogue import registry
from apps.catalogue.checks import problems_of
from apps.catalogue.dispatch import MemorySession, ToolNotFound, list_tools
from apps.catalogue.policy import first_call_tool
from apps.catalogue.registry import CONFIRMATION_MARKERS, Marker
from apps.catalogue.testing import call, person_without, principal_for, samples, structured, text_of
from apps.core import permissions

TOOLS = registry.all_tools()
SAMPLES = samples()


def by_name(spec):
    return spec.name


def accept(message, schema):
    return {"action": "accept", "content": {"confirm": True}}


def run(user, spec, arguments, session):
    """A call as an agent whose user confirms, after the area's first call if it has one."""
    first = first_call_tool(spec.area)
    if first is not None and first.name != spec.name:
        structured(call(user, first.name, {}, session=session))
    return call(user, spec.name, arguments, session=session, capabilities={"elicitation": {}}, elicit=accept)


@pytest.mark.parametrize("spec", TOOLS, ids=by_name)
def test_the_declaration_passes_every_check(spec):
    assert problems_of(spec) == []
    Draft202012Validator.check_schema(spec.definition["inputSchema"])
    if "outputSchema" in spec.definition:
        Draft202012Validator.check_schema(spec.definition["outputSchema"])


def text_places(schema, root, path=(), build=lambda value: value, wanted=None):
    """(path, build) for each place at which the input schema takes free text (or what `wanted`
    picks): the path of argument names and list indexes, and what makes arguments holding a given
    value there (lists as long as they must be)."""
    while "$ref" in schema:
        schema = root["$defs"][schema["$ref"].rsplit("/", 1)[1]]
    for option in schema.get("anyOf", []) + schema.get("oneOf", []):
        yield from text_places(option, root, path, build, wanted)
    kinds = schema.get("type", [])
    kinds = [kinds] if isinstance(kinds, str) else kinds
    if (
        wanted(schema)
        if wanted
        else "string" in kinds and not {"enum", "const", "format", "pattern"} & set(schema)
    ):
        yield path, build
    if "object" in kinds:
        for name, inner in schema.get("properties", {}).items():
            if path or name != "confirmationToken":  # taken off before the arguments are read
                yield from text_places(
                    inner, root, (*path, name), lambda v, b=build, n=name: b({n: v}), wanted
                )
        extra = schema.get("additionalProperties")
        if extra is True or isinstance(extra, dict):
            inner = extra if isinstance(extra, dict) else {"type": "string"}
            yield from text_places(inner, root, (*path, "k"), lambda v, b=build: b({"k": v}), wanted)
    if "array" in kinds and isinstance(schema.get("items"), dict):
        count = max(1, schema.get("minItems", 0))
        yield from text_places(
            schema["items"],
            root,
            (*path, 0),
            lambda v, b=build, c=count, w=wanted: b(
                [v if w or not isinstance(v, str) else f"{v}{i}" for i in range(c)]
            ),
            wanted,
        )


def arguments_at(wanted=None):  # type: ignore[no-untyped-def]
    """(spec, path, build) for every tool and each place of its input schema `text_places` finds."""
    return [
        (spec, path, build)
        for spec in TOOLS
        for path, build in sorted(
            {
                path: build
                for path, build in text_places(
                    spec.definition["inputSchema"], spec.definition["inputSchema"], wanted=wanted
                )
            }.items(),
            key=lambda item: str(item[0]),
        )
    ]


def errors_at(caught, path, types=None):  # type: ignore[no-untyped-def]
    """The validation errors of `caught` at `path` (or a place containing it), of `types` if given."""
    return [
        error
        for error in caught.value.errors()
        if (types is None or error["type"] in types)
        and tuple(error["loc"]) == tuple(path[: len(error["loc"])])
    ]


TEXT_ARGUMENTS = arguments_at()


@pytest.mark.parametrize(
    ("spec", "path", "build"),
    TEXT_ARGUMENTS,
    ids=[f"{spec.name}-{'.'.join(map(str, path))}" for spec, path, _build in TEXT_ARGUMENTS],
)
@pytest.mark.parametrize("text", ["a\x00b", "a\ud800b"], ids=["nul", "surrogate"])
def test_no_text_argument_takes_nul_or_a_lone_surrogate(spec, path, build, text):
    """Whatever door the arguments come through (MCP refuses such JSON before; the gateway's agent
    and callTool do not), the field is named and the tool never runs."""
    with pytest.raises(ValidationError) as caught:
        spec.input_model.model_validate(build(text))

    assert errors_at(caught, path, ("unstorable_text", "string_unicode")), caught.value.errors()


def _dated(schema) -> bool:
    return schema.get("format") in ("date", "date-time")


DATE_ARGUMENTS = arguments_at(_dated)


@pytest.mark.parametrize(
    ("spec", "path", "build"),
    DATE_ARGUMENTS,
    ids=[f"{spec.name}-{'.'.join(map(str, path))}" for spec, path, _build in DATE_ARGUMENTS],
)
def test_no_date_argument_takes_a_year_that_cannot_be_read_back(spec, path, build):
    """Year 1 with an offset east of UTC, or 9999 west of it, is no time Python holds once moved to
    UTC; kept, it would fail every read of its record. Refused where it is given (shapes.YEARS)."""
    for far in ("0001-01-01T00:00:00+05:00", "9999-12-31"):
        with pytest.raises(ValidationError) as caught:
            spec.input_model.model_validate(build(far))
        assert errors_at(caught, path), caught.value.errors()


def test_most_tools_take_text_somewhere():
    assert len({spec.name for spec, _path, _build in TEXT_ARGUMENTS}) > len(TOOLS) // 2


@pytest.mark.parametrize("spec", TOOLS, ids=by_name)
def test_the_permission_is_registered_in_its_area(spec):
    assert permissions.get_permission(spec.permission.value) is spec.permission
    assert permissions.get_area(spec.area) is not None
    assert spec.permission.value.startswith(f"{spec.area}.")


@pytest.mark.parametrize("spec", TOOLS, ids=by_name)
def test_the_annotations_match_the_markers(spec):
    annotations = spec.annotations
    assert spec.definition["title"] == spec.title
    assert annotations.get("readOnlyHint", False) is spec.read_only
    assert annotations.get("idempotentHint", False) is spec.idempotent
    assert annotations["openWorldHint"] is spec.open_world
    # A tool that runs others (callTool) may do anything: the worst case, without markers.
    destructive = spec.runs_tools or (
        not spec.read_only and bool(spec.markers & (Marker.DESTRUCTIVE | Marker.HIGH_RISK))
    )
    assert annotations["destructiveHint"] is destructive
    if spec.runs_tools:
        assert spec.markers == Marker.NONE
        assert (spec.idempotent, spec.open_world) == (False, True)
    prefix = " ".join(f"{label}:" for label in spec.markers.labels)
    assert spec.description.startswith(prefix)
    confirmable = bool(spec.markers & CONFIRMATION_MARKERS)
    assert ("confirmationToken" in spec.definition["inputSchema"].get("properties", {})) is confirmable
    if confirmable:
        assert not spec.read_only


@pytest.mark.parametrize("spec", TOOLS, ids=by_name)
def test_a_role_without_the_permission_neither_lists_nor_calls_it(spec, acme):
    person = person_without(spec.permission, email=f"without-{spec.name.lower()}@acme.example")

    assert spec.name not in [entry["name"] for entry in list_tools(principal=principal_for(person))]
    with pytest.raises(ToolNotFound):
        call(person, spec.name, {})


@pytest.mark.parametrize("spec", [spec for spec in TOOLS if not spec.fixture], ids=by_name)
def test_a_normal_call_answers_its_schema_and_nothing_shows_in_another_workspace(spec, acme, globex):
    assert spec.name in SAMPLES, f"add @sample({spec.name!r}) in its app's tests/samples.py"
    owner = User.objects.get(email="owner@acme.example")
    example = SAMPLES[spec.name](owner)
    around = example.around() if example.around else nullcontext()
    with around:
        result = run(owner, spec, example.arguments, MemorySession())
        answer = structured(result)
        # callTool answers with the result of the tool it ran, in that tool's shape.
        answering = registry.get(example.arguments["name"]) if spec.runs_tools else spec
        validate(answer, answering.definition["outputSchema"])

        connection.set_tenant(globex)
        try:
            stranger = User.objects.get(email="owner@globex.example")
            elsewhere = text_of(run(stranger, spec, example.arguments, MemorySession()))
        finally:
            connection.set_tenant(acme)
    for private in example.private:
        assert private not in elsewhere, f"{spec.name} showed Acme's {private!r} in Globex"
