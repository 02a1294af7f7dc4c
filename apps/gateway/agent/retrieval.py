"""Which tools the model is offered for a message: the best matches of the catalogue for its words
and the caller's `context` hints, not the whole catalogue (hundreds of tools would cost more input
than the request itself, and models choose worse among many). `searchTools` and `describeTool`
are always offered, so the model can find any other tool it may use; tools it finds that way are
offered from the next call on.
"""

import re
from typing import Any

from apps.catalogue.dispatch import usable_tools
from apps.catalogue.registry import CONFIRMATION_ARGUMENT, ToolSpec
from apps.core.credentials import Principal
from apps.gateway.agent.backends import TOOL_NAME, ToolDef

DISCOVERY = ("searchTools", "describeTool")
# The catalogue area's tools that do work of their own on the workspace, ranked like any area's
# (its others run tools or serve the MCP door: the agent calls tools itself and waits for them).
WORKSPACE_WIDE = ("searchWorkspace",)
_WORD = re.compile(r"[a-z0-9]+")
# Everyday verbs for the catalogue's verbs (tool names start with these).
VERBS = {
    "find": "search",
    "look": "search",
    "lookup": "search",
    "who": "search",
    "show": "get",
    "fetch": "get",
    "view": "get",
    "open": "get",
    "display": "get",
    "read": "get",
    "add": "create",
    "new": "create",
    "make": "create",
    "register": "create",
    "change": "update",
    "edit": "update",
    "modify": "update",
    "set": "update",
    "rename": "update",
    "remove": "delete",
    "erase": "delete",
    "summarize": "get",
    "summarise": "get",
}
STOP = {
    "a", "an", "the", "of", "to", "in", "on", "for", "and", "or", "with", "me", "my", "our", "please",
    "all", "is", "are", "be", "it", "this", "that", "from", "by", "at", "as", "can", "you", "i", "we",
    "do", "what", "which", "their", "his", "her", "its", "into", "about", "some", "any",
}  # fmt: skip


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


def terms_of(text: str) -> list[str]:
    found = []
    for word in words(text):
        if word in STOP:
            continue
        word = VERBS.get(word, word)
        found.append(stem(word))
    return found


def _score(spec: ToolSpec, terms: list[str], hinted: set[str]) -> float:
    name_words = {stem(word) for word in words(spec.name)}
    title_words = {stem(word) for word in words(spec.title)} | {stem(word) for word in words(spec.area)}
    text = spec.description.lower()
    score = 0.0
    for term in terms:
        weight = 2.0 if term in hinted else 1.0
        if term in name_words:
            score += 6 * weight
        elif any(word.startswith(term) for word in name_words if len(term) >= 3):
            score += 3 * weight
        if term in title_words:
            score += 3 * weight
        if len(term) >= 3 and term in text:
            score += 1 * weight
    return score


def rank(principal: Principal, *, message: str, context: dict[str, str], limit: int) -> list[str]:
    """Names of the tools to offer, best first (discovery tools first)."""
    specs = [spec for spec in usable_tools(principal) if TOOL_NAME.match(spec.name)]
    hints = " ".join(context.get(name, "") for name in ("entity_type", "action"))
    hinted = set(terms_of(hints))
    terms = terms_of(message) + list(hinted)
    scored = [
        (_score(spec, terms, hinted), spec.name)
        for spec in specs
        if spec.name not in DISCOVERY and (spec.area != "catalogue" or spec.name in WORKSPACE_WIDE)
    ]
    best = [name for score, name in sorted(scored, key=lambda item: (-item[0], item[1])) if score > 0][:limit]
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
