"""Catalogue tools for the transport's tests, registered only by test settings
(`ATRIUM_EXTRA_TOOL_MODULES`): the fixtures the official conformance suite calls, under the names
it expects, and a few that exercise what the transport provides (cancellation, the stored
session state, confirmation by elicitation, an admin-only tool)."""

import base64
import time
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from apps.catalogue import inputs
from apps.catalogue.dispatch import ToolContext
from apps.catalogue.inputs import InputRequired, MissingClientCapability
from apps.catalogue.permissions import CataloguePerm
from apps.catalogue.registry import Marker, ToolSpec, tool
from apps.catalogue.shapes import RawResult
from apps.catalogue.signals import tool_list_changed

PNG = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de"
        "0000000c4944415408d763f8cfc000000301010018dd8db00000000049454e44ae426082"
    )
).decode()
WAV = base64.b64encode(
    b"RIFF$\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00@\x1f\x00\x00"
    b"\x80>\x00\x00\x02\x00\x10\x00data\x00\x00\x00\x00"
).decode()
READ = CataloguePerm.DISCOVER


def _text(text: str, *, error: bool = False) -> RawResult:
    return RawResult(content=[{"type": "text", "text": text}], is_error=error)


# --- the conformance suite's fixtures (scenarios tools-call-*) ---------------------------------


@tool("test_simple_text", permission=READ, title="Simple text", read_only=True)
def test_simple_text(ctx: ToolContext) -> RawResult:
    """Returns one text block (conformance fixture)."""
    return _text("This is a simple text response for testing.")


@tool("test_image_content", permission=READ, title="Image content", read_only=True)
def test_image_content(ctx: ToolContext) -> RawResult:
    """Returns a one-pixel PNG image block (conformance fixture)."""
    return RawResult(content=[{"type": "image", "data": PNG, "mimeType": "image/png"}])


@tool("test_audio_content", permission=READ, title="Audio content", read_only=True)
def test_audio_content(ctx: ToolContext) -> RawResult:
    """Returns a silent WAV audio block (conformance fixture)."""
    return RawResult(content=[{"type": "audio", "data": WAV, "mimeType": "audio/wav"}])


@tool("test_embedded_resource", permission=READ, title="Embedded resource", read_only=True)
def test_embedded_resource(ctx: ToolContext) -> RawResult:
    """Returns an embedded text resource (conformance fixture)."""
    resource = {
        "uri": "test://embedded-resource",
        "mimeType": "text/plain",
        "text": "This is an embedded resource content.",
    }
    return RawResult(content=[{"type": "resource", "resource": resource}])


@tool("test_multiple_content_types", permission=READ, title="Mixed content", read_only=True)
def test_multiple_content_types(ctx: ToolContext) -> RawResult:
    """Returns text, an image and a resource together (conformance fixture)."""
    resource = {
        "uri": "test://mixed-content-resource",
        "mimeType": "application/json",
        "text": '{"test":"data","value":123}',
    }
    return RawResult(
        content=[
            {"type": "text", "text": "Multiple content types test:"},
            {"type": "image", "data": PNG, "mimeType": "image/png"},
            {"type": "resource", "resource": resource},
        ]
    )


@tool("test_error_handling", permission=READ, title="Error handling", read_only=True)
def test_error_handling(ctx: ToolContext) -> RawResult:
    """Always answers a tool error (conformance fixture)."""
    return _text("This tool intentionally returns an error for testing", error=True)


@tool("test_tool_with_progress", permission=READ, title="Progress", read_only=True)
def test_tool_with_progress(ctx: ToolContext) -> RawResult:
    """Reports progress 0, 50 and 100 of 100, 50 ms apart (conformance fixture)."""
    for value in (0, 50, 100):
        ctx.report_progress(value, 100)
        if value < 100:
            time.sleep(0.05)
    return _text("Progress complete")


@tool("test_elicitation", permission=READ, title="Elicitation", read_only=True)
def test_elicitation(
    ctx: ToolContext, *, message: Annotated[str, Field(description="The message to show the user")]
) -> RawResult:
    """Asks the user for a username and an e-mail address (conformance fixture)."""
    if ctx.elicit is None:
        return _text("This client does not support elicitation.", error=True)
    answer = ctx.elicit(
        message,
        {
            "type": "object",
            "properties": {
                "username": {"type": "string", "description": "User's response"},
                "email": {"type": "string", "description": "User's email address"},
            },
            "required": ["username", "email"],
        },
    )
    return _text(f"User response: action={answer.get('action')}, content={answer.get('content')}")


# --- the suite's fixtures for 2025-11-25 --------------------------------------------------------


@tool("test_elicitation_sep1034_defaults", permission=READ, title="Elicitation defaults", read_only=True)
def test_elicitation_sep1034_defaults(ctx: ToolContext) -> RawResult:
    """Asks a form with a default for every primitive type (conformance fixture, SEP-1034)."""
    if ctx.elicit is None:
        return _text("This client does not support elicitation.", error=True)
    answer = ctx.elicit(
        "Please review and update the form fields with defaults",
        {
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "User name", "default": "John Doe"},
                "age": {"type": "integer", "description": "User age", "default": 30},
                "score": {"type": "number", "description": "User score", "default": 95.5},
                "status": {
                    "type": "string",
                    "description": "User status",
                    "enum": ["active", "inactive", "pending"],
                    "default": "active",
                },
                "verified": {"type": "boolean", "description": "Verification status", "default": True},
            },
            "required": [],
        },
    )
    return _text(f"Elicitation completed: action={answer.get('action')}, content={answer.get('content')}")


@tool("test_elicitation_sep1330_enums", permission=READ, title="Elicitation enums", read_only=True)
def test_elicitation_sep1330_enums(ctx: ToolContext) -> RawResult:
    """Asks a form with the five kinds of enum (conformance fixture, SEP-1330)."""
    if ctx.elicit is None:
        return _text("This client does not support elicitation.", error=True)
    options = ["option1", "option2", "option3"]
    answer = ctx.elicit(
        "Please select options from the enum fields",
        {
            "type": "object",
            "properties": {
                "untitledSingle": {"type": "string", "description": "Select one option", "enum": options},
                "titledSingle": {
                    "type": "string",
                    "description": "Select one option with titles",
                    "oneOf": [
                        {"const": "value1", "title": "First Option"},
                        {"const": "value2", "title": "Second Option"},
                        {"const": "value3", "title": "Third Option"},
                    ],
                },
                "legacyEnum": {
                    "type": "string",
                    "description": "Select one option (legacy)",
                    "enum": ["opt1", "opt2", "opt3"],
                    "enumNames": ["Option One", "Option Two", "Option Three"],
                },
                "untitledMulti": {
                    "type": "array",
                    "description": "Select multiple options",
                    "minItems": 1,
                    "maxItems": 3,
                    "items": {"type": "string", "enum": options},
                },
                "titledMulti": {
                    "type": "array",
                    "description": "Select multiple options with titles",
                    "minItems": 1,
                    "maxItems": 3,
                    "items": {
                        "anyOf": [
                            {"const": "value1", "title": "First Choice"},
                            {"const": "value2", "title": "Second Choice"},
                            {"const": "value3", "title": "Third Choice"},
                        ]
                    },
                },
            },
            "required": [],
        },
    )
    return _text(f"Elicitation completed: action={answer.get('action')}, content={answer.get('content')}")


# Lower case: the suite looks for the definition named "address".
class address(BaseModel):
    model_config = ConfigDict(extra="forbid")

    street: str | None = None
    city: str | None = None


@tool("json_schema_2020_12_tool", permission=READ, title="JSON Schema 2020-12", read_only=True)
def json_schema_2020_12_tool(
    ctx: ToolContext,
    *,
    name: Annotated[str | None, Field(description="Who lives at the address")] = None,
    address: Annotated[address | None, Field(description="An address")] = None,
    contact_method: Annotated[
        Literal["phone", "email"] | None, Field(description="How to reach them")
    ] = None,
    phone: Annotated[str | None, Field(description="A phone number")] = None,
    email: Annotated[str | None, Field(description="An e-mail address")] = None,
) -> RawResult:
    """Takes arguments described with $defs, $anchor, additionalProperties, allOf/anyOf and
    if/then/else (conformance fixture, SEP-1613, SEP-2106)."""
    # What the schema's allOf and if/then/else say, which the input model does not check.
    if phone is None and email is None:
        return _text("Give a phone number or an e-mail address.", error=True)
    if (contact_method == "phone" and phone is None) or (contact_method != "phone" and email is None):
        return _text(
            "Give the phone number when contactMethod is phone, else the e-mail address.", error=True
        )
    return _text(
        f"name={name!r}, address={address.model_dump() if address else None!r}, via {contact_method}"
    )


def _with_declared_dialect(spec: ToolSpec) -> None:
    # The suite checks that `$schema`, `$defs` and `additionalProperties` reach the client as the
    # tool declared them. Catalogue tools never name their dialect (2020-12 is the default from
    # 2025-11-25 on) and inline a definition used once; this fixture declares both, as a tool
    # written by hand would, over the same arguments.
    schema = spec.definition["inputSchema"]
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema.setdefault("$defs", {})["address"] = {**schema["properties"]["address"], "$anchor": "addressDef"}
    schema["properties"]["address"] = {"$ref": "#/$defs/address"}
    # And the rest of the vocabulary SEP-2106 lets tools use, which clients must pass on as is.
    schema["allOf"] = [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}]
    schema["if"] = {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]}
    schema["then"] = {"required": ["phone"]}
    schema["else"] = {"required": ["email"]}


_with_declared_dialect(json_schema_2020_12_tool.tool_spec)  # type: ignore[attr-defined]


@tool("test_reconnection", permission=READ, title="Reconnection", read_only=True)
def test_reconnection(ctx: ToolContext) -> RawResult:
    """Ends its event stream before answering; the client resumes with Last-Event-ID (conformance
    fixture, SEP-1699)."""
    if ctx.close_stream is not None:
        ctx.close_stream()
        time.sleep(0.3)
    return _text("Reconnection test completed")


# --- the transport's own fixtures ---------------------------------------------------------------


@tool("whoAmI", permission=READ, title="Who am I", read_only=True)
def who_am_i(ctx: ToolContext) -> RawResult:
    """Says who is calling, in which workspace (transport test fixture)."""
    from django.db import connection

    data = {"email": ctx.actor.email, "workspace": connection.schema_name}
    return RawResult(content=[{"type": "text", "text": str(data)}], structured=data)


@tool("countSlowly", permission=READ, title="Count slowly", read_only=True)
def count_slowly(
    ctx: ToolContext,
    *,
    steps: Annotated[int, Field(ge=0, le=20, description="How far to count")] = 3,
    pause: Annotated[float, Field(ge=0, le=1, description="Seconds between steps")] = 0.05,
) -> RawResult:
    """Counts, reporting progress at each step (transport test fixture)."""
    for step in range(steps + 1):
        ctx.report_progress(step, steps, f"step {step}")
        time.sleep(pause)
    return _text(f"counted to {steps}")


@tool("waitForCancel", permission=READ, title="Wait for cancel", read_only=True)
def wait_for_cancel(
    ctx: ToolContext, *, seconds: Annotated[float, Field(gt=0, le=30, description="How long to wait")] = 10
) -> RawResult:
    """Waits until the call is cancelled, and notes it in the session (transport test fixture)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if ctx.is_cancelled():
            ctx.session.set("cancelled", ctx.request_id)
            return _text("stopped")
        time.sleep(0.02)
    return _text("not cancelled", error=True)


@tool("rememberValue", permission=READ, title="Remember a value")
def remember_value(
    ctx: ToolContext, *, value: Annotated[Any, Field(description="Anything")] = None
) -> RawResult:
    """Stores a value in the session and answers the one stored before (transport test fixture)."""
    before = ctx.session.get("remembered")
    ctx.session.set("remembered", value)
    return _text(f"was {before!r}")


@tool("eraseEverything", permission=READ, title="Erase everything", markers=Marker.DESTRUCTIVE)
def erase_everything(ctx: ToolContext) -> RawResult:
    """Pretends to erase everything, once the user confirms (transport test fixture)."""
    return _text("erased (not really)")


@tool("readCallLog", permission=CataloguePerm.AUDIT, title="Admins only", read_only=True)
def read_call_log(ctx: ToolContext) -> RawResult:
    """A tool only admins may use (transport test fixture)."""
    return _text("admins only")


# --- the suite's fixtures for 2026-07-28 (input required, SEP-2322; stateless, SEP-2575) --------
#
# They ask the client through `InputRequired` (apps.catalogue.inputs): the call ends with the
# questions and the client calls again with the answers. Only a door that asks by answering
# (2026-07-28) can pass them; others get a tool error.

NAME_QUESTION = {
    "type": "object",
    "properties": {"name": {"type": "string"}},
    "required": ["name"],
}


def _needs_answers(ctx: ToolContext) -> RawResult | None:
    if ctx.asks_by_answer:
        return None
    return _text("This tool asks by answering: call it with MCP 2026-07-28.", error=True)


def _sampling(text: str, max_tokens: int) -> dict[str, Any]:
    return {
        "method": "sampling/createMessage",
        "params": {
            "messages": [{"role": "user", "content": {"type": "text", "text": text}}],
            "maxTokens": max_tokens,
        },
    }


ROOTS = {"method": "roots/list", "params": {}}


def _accepted(answer: dict[str, Any] | None, field: str) -> Any:
    """The field of an accepted elicitation answer, or None."""
    if not answer or answer.get("action") != "accept" or not isinstance(answer.get("content"), dict):
        return None
    return answer["content"].get(field)


@tool(
    "test_input_required_result_elicitation", permission=READ, title="Input required: a name", read_only=True
)
def test_input_required_result_elicitation(ctx: ToolContext) -> RawResult:
    """Asks the user's name, then greets them (conformance fixture)."""
    refused = _needs_answers(ctx)
    if refused is not None:
        return refused
    name = _accepted((ctx.input_responses or {}).get("user_name"), "name")
    if not isinstance(name, str):
        raise InputRequired({"user_name": inputs.elicitation("What is your name?", NAME_QUESTION)})
    return _text(f"Hello, {name}!")


@tool(
    "test_input_required_result_sampling", permission=READ, title="Input required: sampling", read_only=True
)
def test_input_required_result_sampling(ctx: ToolContext) -> RawResult:
    """Asks the client's model a question, then repeats its answer (conformance fixture)."""
    refused = _needs_answers(ctx)
    if refused is not None:
        return refused
    answer = (ctx.input_responses or {}).get("capital_question")
    content = answer.get("content") if answer else None
    if not isinstance(content, dict) or not isinstance(content.get("text"), str):
        raise InputRequired({"capital_question": _sampling("What is the capital of France?", 100)})
    return _text(f"The model answered: {content['text']}")


@tool("test_input_required_result_list_roots", permission=READ, title="Input required: roots", read_only=True)
def test_input_required_result_list_roots(ctx: ToolContext) -> RawResult:
    """Asks the client for its roots, then lists them (conformance fixture)."""
    refused = _needs_answers(ctx)
    if refused is not None:
        return refused
    answer = (ctx.input_responses or {}).get("client_roots")
    roots = answer.get("roots") if answer else None
    if not isinstance(roots, list):
        raise InputRequired({"client_roots": ROOTS})
    return _text("Roots: " + ", ".join(str(root.get("uri")) for root in roots if isinstance(root, dict)))


@tool(
    "test_input_required_result_request_state", permission=READ, title="Input required: state", read_only=True
)
def test_input_required_result_request_state(ctx: ToolContext) -> RawResult:
    """Asks for a confirmation with a request state, and says state-ok when it comes back
    unaltered (conformance fixture)."""
    refused = _needs_answers(ctx)
    if refused is not None:
        return refused
    state = ctx.received_state()
    answer = (ctx.input_responses or {}).get("confirm")
    if state is None or state.get("step") != "confirm" or answer is None:
        question = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
        raise InputRequired({"confirm": inputs.elicitation("Please confirm", question)}, {"step": "confirm"})
    return _text(f"state-ok: confirmed={_accepted(answer, 'ok')}")


@tool(
    "test_input_required_result_multiple_inputs",
    permission=READ,
    title="Input required: three",
    read_only=True,
)
def test_input_required_result_multiple_inputs(ctx: ToolContext) -> RawResult:
    """Asks for a name, a model's greeting and the roots at once (conformance fixture)."""
    refused = _needs_answers(ctx)
    if refused is not None:
        return refused
    answers = ctx.input_responses or {}
    state = ctx.received_state()
    if state is None or not all(key in answers for key in ("user_name", "greeting", "client_roots")):
        raise InputRequired(
            {
                "user_name": inputs.elicitation("What is your name?", NAME_QUESTION),
                "greeting": _sampling("Generate a greeting", 50),
                "client_roots": ROOTS,
            },
            {"asked": 3},
        )
    return _text(f"Got all three: {_accepted(answers['user_name'], 'name')}")


@tool(
    "test_input_required_result_multi_round", permission=READ, title="Input required: rounds", read_only=True
)
def test_input_required_result_multi_round(ctx: ToolContext) -> RawResult:
    """Asks a name, then a colour, each in its own round (conformance fixture)."""
    refused = _needs_answers(ctx)
    if refused is not None:
        return refused
    answers = ctx.input_responses or {}
    state = ctx.received_state() or {}
    if state.get("round") == 2 and isinstance(_accepted(answers.get("step2"), "color"), str):
        return _text(f"{state.get('name')} likes {_accepted(answers['step2'], 'color')}")
    name = _accepted(answers.get("step1"), "name")
    if state.get("round") == 1 and isinstance(name, str):
        colour = {"type": "object", "properties": {"color": {"type": "string"}}, "required": ["color"]}
        raise InputRequired(
            {"step2": inputs.elicitation("Step 2: What is your favorite color?", colour)},
            {"round": 2, "name": name},
        )
    raise InputRequired(
        {"step1": inputs.elicitation("Step 1: What is your name?", NAME_QUESTION)}, {"round": 1}
    )


@tool(
    "test_input_required_result_tampered_state",
    permission=READ,
    title="Input required: sealed",
    read_only=True,
)
def test_input_required_result_tampered_state(ctx: ToolContext) -> RawResult:
    """Asks for a confirmation with a sealed state; an altered state is refused (conformance
    fixture)."""
    refused = _needs_answers(ctx)
    if refused is not None:
        return refused
    state = ctx.received_state()  # an altered one raises: the door answers invalid params
    if state is None or "confirm" not in (ctx.input_responses or {}):
        question = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
        raise InputRequired({"confirm": inputs.elicitation("Please confirm", question)}, {"sealed": True})
    return _text("state verified")


@tool(
    "test_input_required_result_capabilities",
    permission=READ,
    title="Input required: capabilities",
    read_only=True,
)
def test_input_required_result_capabilities(ctx: ToolContext) -> RawResult:
    """Asks only what the client declared it can answer (conformance fixture)."""
    refused = _needs_answers(ctx)
    if refused is not None:
        return refused
    answers = ctx.input_responses or {}
    wanted: dict[str, dict[str, Any]] = {}
    if ctx.declares("elicitation") and "user_name" not in answers:
        wanted["user_name"] = inputs.elicitation("What is your name?", NAME_QUESTION)
    if ctx.declares("sampling") and "greeting" not in answers:
        wanted["greeting"] = _sampling("Generate a greeting", 50)
    if ctx.declares("roots") and "client_roots" not in answers:
        wanted["client_roots"] = ROOTS
    if wanted:
        raise InputRequired(wanted)
    return _text(f"Answered: {', '.join(sorted(answers)) or 'nothing was asked'}")


@tool("test_missing_capability", permission=READ, title="Needs sampling", read_only=True)
def test_missing_capability(ctx: ToolContext) -> RawResult:
    """Needs the client's model (sampling): refused to a client that does not declare it
    (conformance fixture)."""
    if not ctx.declares("sampling"):
        raise MissingClientCapability("sampling")
    return test_input_required_result_sampling(ctx)


@tool("test_streaming_elicitation", permission=READ, title="Progress, then a question", read_only=True)
def test_streaming_elicitation(ctx: ToolContext) -> RawResult:
    """Reports progress, then asks the user's name by answering, never by a request on the
    stream (conformance fixture)."""
    ctx.report_progress(1, 2, "about to ask")
    return test_input_required_result_elicitation(ctx)


@tool("test_logging_tool", permission=READ, title="No log messages", read_only=True)
def test_logging_tool(ctx: ToolContext) -> RawResult:
    """Answers without sending log messages: this server sends none, whatever the request's log
    level (conformance fixture)."""
    return _text("done, nothing logged")


@tool("test_trigger_tool_change", permission=READ, title="Tell of a tool list change", read_only=True)
def test_trigger_tool_change(ctx: ToolContext) -> RawResult:
    """Tells the caller's listeners that their tool list changed, as a role change does
    (conformance fixture)."""
    from django.db import connection

    tool_list_changed.send(sender=None, schema_name=connection.schema_name, user_ids=[ctx.actor.pk])
    return _text("told")


@tool("slowExport", permission=READ, title="Slow export", read_only=True, long_running=True)
def slow_export(
    ctx: ToolContext, *, seconds: Annotated[float, Field(ge=0, le=30, description="How long it takes")] = 0
) -> RawResult:
    """Works `seconds` seconds, stopping early when cancelled, then answers (a long tool for the
    tasks tests, transport test fixture)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if ctx.is_cancelled():
            return _text("stopped", error=True)
        time.sleep(0.1)
    data = {"exported": seconds}
    return RawResult(content=[{"type": "text", "text": f"exported after {seconds} s"}], structured=data)


@tool("slowPurge", permission=READ, title="Slow purge", markers=Marker.DESTRUCTIVE, long_running=True)
def slow_purge(
    ctx: ToolContext, *, seconds: Annotated[float, Field(ge=0, le=30, description="How long it takes")] = 0
) -> RawResult:
    """Pretends to purge an archive once the user confirms; long, so it may run as a task, which
    then asks for the confirmation (transport test fixture)."""
    time.sleep(seconds)
    return RawResult(content=[{"type": "text", "text": "purged (not really)"}], structured={"purged": True})


@tool("connectTestAccount", permission=READ, title="Connect a test account", read_only=True, open_world=True)
def connect_test_account(
    ctx: ToolContext, *, account: Annotated[str, Field(min_length=1, max_length=40, description="Its name")]
) -> RawResult:
    """Asks the person for the account's API key on a page of ours, then tells its length and
    nothing more (the generic secure input, transport test fixture)."""
    key = ctx.secure_input(
        purpose=f"tests.account:{account}",
        message=f"Enter the API key of the account {account}.",
        label="API key",
    )
    return RawResult(
        content=[{"type": "text", "text": f"connected {account} with a key of {len(key)} characters"}],
        structured={"account": account, "keyLength": len(key)},
    )
