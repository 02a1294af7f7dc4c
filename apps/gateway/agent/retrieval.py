"""Which tools the model is offered for a message: the best matches of the catalogue's search for
its words and the caller's `context` hints, not the whole catalogue (hundreds of tools would cost more input
than the request itself, and models choose worse among many). `searchTools` and `describeTool`
are always offered, so the model can find any other tool it may use; tools it finds that way are
offered from the next call on.
"""

import re
from typing import Any

from apps.catalogue import search
from apps.catalogue.dispatch import usable_tools
from apps.catalogue.registry import CONFIRMATION_ARGUMENT, ToolSpec
from apps.core.credentials import Principal
from apps.gateway.agent.backends import TOOL_NAME, ToolDef

DISCOVERY = ("searchTools", "describeTool")
# The catalogue area's tools that do work of their own on the workspace, ranked like any area's
# (its others run tools or serve the MCP door: the agent calls tools itself and waits for them).
WORKSPACE_WIDE = ("searchWorkspace",)
_WORD = re.compile(r"[a-z0-9]+")


def words(text: str) -> list[str]:
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", text)
    return _WORD.findall(spaced.lower())


def stem(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("es") and word[-3] in "sxz":
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def rank(principal: Principal, *, message: str, context: dict[str, str], limit: int) -> list[str]:
    """Names of the tools to offer, best first (discovery tools first): the catalogue's own search
    (what searchTools answers) over the tools the caller may use, for the message and the hints."""
    specs = [spec for spec in usable_tools(principal) if TOOL_NAME.match(spec.name)]
    hints = " ".join(context.get(name, "") for name in ("entity_type", "action"))
    candidates = [
        spec
        for spec in specs
        if spec.name not in DISCOVERY and (spec.area != "catalogue" or spec.name in WORKSPACE_WIDE)
    ]
    best = [spec.name for _score, spec in search.rank(candidates, f"{message} {hints}".strip())][:limit]
    available = {spec.name for spec in specs}
    return [name for name in DISCOVERY if name in available] + best


def tool_def(spec: ToolSpec) -> ToolDef:
    """How a tool is shown to the model: its catalogue definition, without the confirmation
    argument (this agent can never confirm), and saying that it would be refused."""
    schema: dict[str, Any] = dict(spec.definition["inputSchema"])
    if spec.needs_confirmation:
        properties = dict(schema.get("properties") or {})
        properties.pop(CONFIRMATION_ARGUMENT, None)
        schema["properties"] = properties
    description = spec.description
    if spec.needs_confirmation and spec.confirm_if is not None:
        description += (
            " (Some calls need a person's confirmation, which this agent cannot obtain: those are refused"
            " here; tell the user to do them themselves.)"
        )
    elif spec.needs_confirmation:
        description += (
            " (Needs a person's confirmation, which this agent cannot obtain: calls are refused here; tell"
            " the user to do it themselves.)"
        )
    return ToolDef(name=spec.name, description=description[:4000], input_schema=schema)


def names_in(result: dict[str, Any] | None) -> list[str]:
    """Tool names a searchTools or describeTool answer mentions (to offer them next)."""
    if not isinstance(result, dict):
        return []
    structured = result.get("structuredContent") or {}
    found = [match.get("name") for match in structured.get("matches") or [] if isinstance(match, dict)]
    if isinstance(structured.get("name"), str):
        found.append(structured["name"])
    return [name for name in found if isinstance(name, str)]
