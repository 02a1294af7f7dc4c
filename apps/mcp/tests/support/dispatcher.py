"""A small dispatcher with the catalogue's interface, for testing the transport alone.

Its tools exercise what the transport provides: progress, elicitation, cancellation, the stored
session state, permission-dependent lists (people.view, roles.manage), and the content kinds of
the official conformance suite's fixture tools (named as it expects).
"""

import base64
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from apps.accounts.access import can, current_workspace
from apps.core.credentials import Principal

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


class ToolNotFound(Exception):
    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"Unknown tool: {name}")


@dataclass
class ToolContext:
    principal: Principal
    session: Any
    client_capabilities: dict[str, Any] = field(default_factory=dict)
    progress: Callable[[float, float | None, str | None], None] | None = None
    elicit: Callable[[str, dict[str, Any]], dict[str, Any]] | None = None
    is_cancelled: Callable[[], bool] = lambda: False
    request_id: str | int | None = None

    actor = property(lambda self: self.principal.user)


def _text(text: str, *, error: bool = False) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": error}


def who_am_i(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    workspace = current_workspace()
    data = {"email": ctx.actor.email, "workspace": workspace.schema_name if workspace else None}
    return {"content": [{"type": "text", "text": str(data)}], "structuredContent": data, "isError": False}


def count_slowly(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    steps = int(args.get("steps", 3))
    for step in range(steps + 1):
        if ctx.progress is not None:
            ctx.progress(step, steps, f"step {step}")
        time.sleep(float(args.get("pause", 0.05)))
    return _text(f"counted to {steps}")


def confirm(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    if ctx.elicit is None:
        return _text("This client cannot confirm; nothing was done.", error=True)
    try:
        answer = ctx.elicit(
            "Really do it?",
            {"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]},
        )
    except Exception as error:
        return _text(f"not confirmed ({type(error).__name__})", error=True)
    return _text(f"answer: {answer.get('action')} {answer.get('content')}")


def wait_for_cancel(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    deadline = time.monotonic() + float(args.get("seconds", 10))
    while time.monotonic() < deadline:
        if ctx.is_cancelled():
            ctx.session.set("cancelled", ctx.request_id)
            return _text("stopped")
        time.sleep(0.02)
    return _text("not cancelled", error=True)


def remember(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    before = ctx.session.get("remembered")
    ctx.session.set("remembered", args.get("value"))
    return _text(f"was {before!r}")


def manage_roles(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    return _text("roles managed")


# The official conformance suite's fixtures (tools-call-* scenarios).
def test_simple_text(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    return _text("This is a simple text response for testing.")


def test_image_content(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    return {"content": [{"type": "image", "data": PNG, "mimeType": "image/png"}], "isError": False}


def test_audio_content(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    return {"content": [{"type": "audio", "data": WAV, "mimeType": "audio/wav"}], "isError": False}


def test_embedded_resource(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    resource = {
        "uri": "test://embedded-resource",
        "mimeType": "text/plain",
        "text": "This is an embedded resource content.",
    }
    return {"content": [{"type": "resource", "resource": resource}], "isError": False}


def test_multiple_content_types(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    resource = {
        "uri": "test://mixed-content-resource",
        "mimeType": "application/json",
        "text": '{"test":"data","value":123}',
    }
    return {
        "content": [
            {"type": "text", "text": "Multiple content types test:"},
            {"type": "image", "data": PNG, "mimeType": "image/png"},
            {"type": "resource", "resource": resource},
        ],
        "isError": False,
    }


def test_error_handling(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    return _text("This tool intentionally returns an error for testing", error=True)


def test_tool_with_progress(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    for value in (0, 50, 100):
        if ctx.progress is not None:
            ctx.progress(value, 100, None)
        if value < 100:
            time.sleep(0.05)
    return _text("Progress complete")


def test_elicitation(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    if ctx.elicit is None:
        return _text("This client does not support elicitation.", error=True)
    answer = ctx.elicit(
        str(args.get("message", "")),
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


NO_ARGS = {"type": "object", "properties": {}, "additionalProperties": False}
TOOLS: dict[str, tuple[Callable[..., dict[str, Any]], str | None, dict[str, Any], bool]] = {
    "whoAmI": (who_am_i, "people.view", NO_ARGS, True),
    "countSlowly": (
        count_slowly,
        "people.view",
        {"type": "object", "properties": {"steps": {"type": "integer"}, "pause": {"type": "number"}}},
        True,
    ),
    "confirmSomething": (confirm, "people.view", NO_ARGS, False),
    "waitForCancel": (
        wait_for_cancel,
        "people.view",
        {"type": "object", "properties": {"seconds": {"type": "number"}}},
        True,
    ),
    "rememberValue": (remember, "people.view", {"type": "object", "properties": {"value": {}}}, False),
    "manageRoles": (manage_roles, "roles.manage", NO_ARGS, False),
    "test_simple_text": (test_simple_text, None, NO_ARGS, True),
    "test_image_content": (test_image_content, None, NO_ARGS, True),
    "test_audio_content": (test_audio_content, None, NO_ARGS, True),
    "test_embedded_resource": (test_embedded_resource, None, NO_ARGS, True),
    "test_multiple_content_types": (test_multiple_content_types, None, NO_ARGS, True),
    "test_error_handling": (test_error_handling, None, NO_ARGS, True),
    "test_tool_with_progress": (test_tool_with_progress, None, NO_ARGS, True),
    "test_elicitation": (
        test_elicitation,
        None,
        {"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"]},
        True,
    ),
}


def _usable(principal: Principal, name: str, read_only: bool = False) -> bool:
    _function, permission, _schema, is_read_only = TOOLS[name]
    if "mcp" not in principal.scopes and "mcp:write" not in principal.scopes and not is_read_only:
        return False
    if read_only and not is_read_only:
        return False
    return permission is None or can(principal.user, permission)


def list_tools(
    *, principal: Principal, toolsets: set[str] | None = None, read_only: bool = False
) -> list[dict[str, Any]]:
    return [
        {
            "name": name,
            "description": (function.__doc__ or f"The {name} test tool.").strip(),
            "inputSchema": schema,
            "annotations": {"readOnlyHint": is_read_only},
        }
        for name, (function, permission, schema, is_read_only) in TOOLS.items()
        if _usable(principal, name, read_only)
        and (toolsets is None or (permission or "people").split(".")[0] in toolsets)
    ]


def call_tool(ctx: ToolContext, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    if name not in TOOLS or not _usable(ctx.principal, name):
        raise ToolNotFound(name)
    return TOOLS[name][0](ctx, arguments)


def server_instructions(principal: Principal) -> str:
    return f"Test tools for {principal.user.email}."
