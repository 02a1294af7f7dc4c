"""The built-in agent: what answers when no model backend is configured (the default of `make run`).

It needs no model and costs nothing. It handles a single-step request it can map with confidence
to one tool, and nothing else. A message that carries background after a line `---` (a task's
agent step) is read up to that line:

1. the action: the `context.action` hint, or the message's leading verb (find, search, look up,
   list, show, get, create, add, update, change, merge, ...), matched to the verb that starts the
   catalogue's tool names (`searchContacts`, `getContact`, `createContact`);
2. the thing: the words of the tool's name after its verb must all be in the message or in
   `context.entity_type` ("contact", "contact history"); a thing the message names beats one only
   the context gives, then the most specific tool wins, and a tie is not confidence;
3. the arguments, from the tool's input schema: `metadata` entries named like an argument; an id
   argument from `context.entity_id` (when the tool is about the context's entity_type) or the one
   number in the message; `query` from quoted text,
   or what follows "named", "called", "for", "matching"...; fields of a nested object (a new
   contact, the changes to make) from "field: value" pairs, e-mail addresses and phone numbers in
   the message, and a name after the thing ("create a contact Ada Lovelace"); a limit from "first
   10" or "top 10". Every required argument must be found;
4. the area's MANDATORY FIRST CALL is made first when there is one; the tool is run through the
   dispatcher (GATED, HIGH RISK and DESTRUCTIVE tools are refused: nobody can confirm); the result
   is written out in plain English.

Anything else fails with MODEL_BACKEND_REQUIRED and a reply that says how to configure a model.
"""

import json
import re
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _

from apps.catalogue import policy, registry
from apps.catalogue.dispatch import usable_tools
from apps.catalogue.registry import CONFIRMATION_ARGUMENT, ToolSpec
from apps.core.credentials import Principal
from apps.gateway import errors, services
from apps.gateway.agent.context import Run, ToolOutcome
from apps.gateway.agent.outcome import Finish
from apps.gateway.agent.retrieval import stem, words

# Leading verbs of a message, as the catalogue's tool-name verbs.
VERBS = {
    "find": "search",
    "search": "search",
    "look": "search",
    "lookup": "search",
    "list": "list",
    "show": "get",
    "get": "get",
    "fetch": "get",
    "open": "get",
    "view": "get",
    "display": "get",
    "read": "get",
    "examine": "examine",
    "create": "create",
    "add": "create",
    "new": "create",
    "register": "create",
    "update": "update",
    "change": "update",
    "edit": "update",
    "modify": "update",
    "set": "update",
    "merge": "merge",
    "restore": "restore",
    "share": "share",
    "delete": "delete",
    "remove": "delete",
    "archive": "delete",
}
# `context.action` hints (SPEC 4.4 names create, update, search, summarize, compose).
ACTIONS = {**VERBS, "summarize": "examine", "summarise": "examine"}
# A tool-name verb the catalogue uses for the same thing.
NAME_VERBS = {"lookup": "search"}
BACKEND_HELP = _(
    "The message gateway has no AI model configured, and its built-in agent handles only simple "
    "single-step requests that map to one tool, such as “find contacts named Ada”, “show contact "
    "42”, or “create a contact Ada Lovelace, email: ada@example.com”. For anything else the "
    "workspace's operator must configure a model backend: set ATRIUM_GATEWAY_MODEL_BACKEND "
    "(openai for an OpenAI-compatible chat-completions API, or anthropic for the Anthropic Messages "
    "API), ATRIUM_GATEWAY_MODEL_URL, ATRIUM_GATEWAY_MODEL_NAME, ATRIUM_GATEWAY_MODEL_API_KEY and "
    "the model's prices in ATRIUM_GATEWAY_MODEL_PRICES (docs/gateway.md)."
)
QUERY_LEADS = (
    "named",
    "called",
    "matching",
    "containing",
    "about",
    "for",
    "with name",
    "whose name is",
    "like",
)
EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}")
PHONE = re.compile(r"(?<![\w+])\+\d[\d ()-]{6,}\d")
NUMBER = re.compile(r"(?<![\w.])#?(\d{1,18})(?![\w.])")
QUOTES = "\"'\u201c\u201d\u2018\u2019"
QUOTED = re.compile(f"[{QUOTES}]([^{QUOTES}]{{1,200}})[{QUOTES}]")
LIMIT = re.compile(r"\b(?:first|top|last|latest)\s+(\d{1,3})\b", re.IGNORECASE)


class NotConfident(Exception):
    """The request is not one the built-in agent can map to one tool with confidence."""


@dataclass(frozen=True)
class Plan:
    spec: ToolSpec
    arguments: dict[str, Any]


def _camel_words(name: str) -> list[str]:
    return [stem(word) for word in words(name)]


def _tool_verb(spec: ToolSpec) -> str:
    first = words(spec.name)[0]
    return NAME_VERBS.get(first, first)


def _message_verb(message: str, context: dict[str, str]) -> str:
    if context.get("action"):
        action = context["action"].split()[0]
        if action in ACTIONS:
            return ACTIONS[action]
        raise NotConfident(f"the action hint “{context['action']}” is not one it knows")
    leading = words(message)[:3]
    for index, word in enumerate(leading):
        if word == "look" and index + 1 < len(leading) and leading[index + 1] == "up":
            return "search"
        if word in VERBS:
            return VERBS[word]
        if word not in {"please", "can", "could", "you", "kindly", "would"}:
            break
    raise NotConfident("the message does not start with an action it knows (find, show, create, update…)")


def request_of(message: str) -> str:
    """The request of a message that carries background after a line `---` (a task's step:
    apps.gateway.handover): the built-in agent acts on the request only."""
    lines = message.splitlines()
    for index, line in enumerate(lines):
        if line.strip() == "---":
            return "\n".join(lines[:index]).strip()
    return message


def _entity_words(context: dict[str, str]) -> set[str]:
    return {stem(word) for word in words(context.get("entity_type", ""))}


def choose_tool(principal: Principal, message: str, context: dict[str, str]) -> ToolSpec:
    """The tool for the message's action and thing. A thing the message names beats one only the
    context's entity_type gives ("create a contact ..." about a task is createContact)."""
    verb = _message_verb(message, context)
    named = {stem(word) for word in words(message)}
    present = named | _entity_words(context)
    best: list[tuple[tuple[bool, int], ToolSpec]] = []
    for spec in usable_tools(principal):
        if spec.area == "catalogue" or _tool_verb(spec) != verb:
            continue
        thing = _camel_words(spec.name)[1:]
        if thing and all(word in present for word in thing):
            best.append(((all(word in named for word in thing), len(thing)), spec))
    if not best:
        raise NotConfident("no tool it may use matches that action and thing")
    best.sort(key=lambda item: (not item[0][0], -item[0][1]))
    if len(best) > 1 and best[0][0] == best[1][0]:
        names = ", ".join(spec.name for _n, spec in best[:4])
        raise NotConfident(f"several tools fit ({names})")
    return best[0][1]


# --- arguments --------------------------------------------------------------------------------


def _resolve(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    """A property's schema with a local $ref (or a nullable anyOf) unwrapped."""
    if "$ref" in schema and schema["$ref"].startswith("#/$defs/"):
        return _resolve(root.get("$defs", {}).get(schema["$ref"].split("/")[-1], {}), root)
    if "anyOf" in schema:
        options = [option for option in schema["anyOf"] if option.get("type") != "null"]
        if len(options) == 1:
            return _resolve(options[0], root)
    return schema


def _types(schema: dict[str, Any]) -> set[str]:
    kind = schema.get("type")
    if isinstance(kind, list):
        return set(kind)
    if kind:
        return {kind}
    return {option.get("type") for option in schema.get("anyOf", []) if option.get("type")}


def _metadata_value(metadata: dict[str, Any], name: str) -> tuple[bool, Any]:
    snake = re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()
    for candidate in (name, snake):
        if candidate in metadata:
            return True, metadata[candidate]
    return False, None


def _key_pattern(names: list[str]) -> re.Pattern[str] | None:
    if not names:
        return None
    spoken = sorted({" ".join(words(name)) for name in names} | {"e-mail"}, key=len, reverse=True)
    alternatives = "|".join(re.escape(item).replace(r"\ ", r"[\s_-]*") for item in spoken)
    return re.compile(rf"(?:^|[\s,;(])({alternatives})\s*(?::|=|\bis\b)\s*", re.IGNORECASE)


def _pairs(message: str, names: list[str]) -> dict[str, str]:
    """`field: value` pairs of the message whose field names one of `names` (in words)."""
    pattern = _key_pattern(names)
    if pattern is None:
        return {}
    by_words = {" ".join(words(name)): name for name in names}
    if "email" in names:
        by_words.setdefault("e mail", "email")
    found: dict[str, str] = {}
    matches = list(pattern.finditer(message))
    for index, match in enumerate(matches):
        end = matches[index + 1].start() if index + 1 < len(matches) else len(message)
        value = message[match.end() : end].strip().rstrip(",;.").strip()
        value = re.sub(r"\s+and$", "", value).strip()
        name = by_words.get(" ".join(words(match.group(1))))
        if name and value:
            found[name] = value
    return found


def _typed(value: Any, schema: dict[str, Any]) -> Any:
    kinds = _types(schema)
    if not isinstance(value, str):
        return value
    if "integer" in kinds and value.strip().lstrip("#").isdigit():
        return int(value.strip().lstrip("#"))
    if "boolean" in kinds and value.strip().lower() in {"yes", "true", "no", "false"}:
        return value.strip().lower() in {"yes", "true"}
    if "array" in kinds:
        return [item.strip() for item in re.split(r"[,/]|\band\b", value) if item.strip()]
    if "enum" in schema and value.strip().lower() in [str(item) for item in schema["enum"]]:
        return value.strip().lower()
    return value.strip()


def _query(message: str, spec: ToolSpec) -> str:
    quoted = QUOTED.search(message)
    if quoted:
        return quoted.group(1).strip()
    lowered = message.lower()
    for lead in QUERY_LEADS:
        found = re.search(rf"\b{re.escape(lead)}\s+(.+)$", lowered)
        if found:
            start = found.start(1)
            return message[start:].strip().rstrip("?.!").strip()
    skip = set(VERBS) | {"up", "please", "me", "the", "a", "an", "all", "my", "our", "of", "in", "any"}
    thing = set(_camel_words(spec.name))
    kept = [
        word
        for word in message.split()
        if word.lower() not in skip and stem(word.lower().strip(",.?!")) not in thing
    ]
    return " ".join(kept).strip().rstrip("?.!").strip()


def _numbers(message: str) -> list[int]:
    without = EMAIL.sub(" ", PHONE.sub(" ", message))
    return [int(found) for found in NUMBER.findall(without)]


def _name_after_thing(message: str, spec: ToolSpec, pairs_start: int) -> str:
    """“create a contact Ada Lovelace, …” → “Ada Lovelace”: capitalised words after the thing."""
    head = message[:pairs_start]
    thing = _camel_words(spec.name)[1:]
    tokens = head.replace(",", " , ").split()
    after = 0
    for index, token in enumerate(tokens):
        if stem(token.lower().strip(".:;")) in thing:
            after = index + 1
    name = []
    for word in tokens[after:]:
        clean = word.strip(".:;")
        if word == "," or not clean or EMAIL.fullmatch(clean) or not clean[0].isupper():
            break
        name.append(clean)
    return " ".join(name)


def _fill_object(
    message: str, spec: ToolSpec, schema: dict[str, Any], root: dict[str, Any]
) -> dict[str, Any]:
    properties = schema.get("properties") or {}
    values: dict[str, Any] = {}
    for name, value in _pairs(message, list(properties)).items():
        values[name] = _typed(value, _resolve(properties[name], root))
    if "email" in properties and "email" not in values:
        found = EMAIL.findall(message)
        if len(found) == 1:
            values["email"] = found[0]
    if "phone" in properties and "phone" not in values:
        found = PHONE.findall(message)
        if len(found) == 1:
            values["phone"] = " ".join(found[0].split())
    first_pair = _key_pattern(list(properties))
    start = len(message)
    if first_pair is not None:
        match = first_pair.search(message)
        if match:
            start = match.start()
    for special in (EMAIL.search(message), PHONE.search(message)):
        if special:
            start = min(start, special.start())
    name = _name_after_thing(message, spec, start)
    if name and not any(
        key in values for key in ("firstName", "lastName", "organisationName", "name", "title")
    ):
        organisation = {"organisation", "organization", "company"} & {
            word.lower() for word in message.split()
        }
        if organisation and "organisationName" in properties:
            values["organisationName"] = name
            if "kind" in properties:
                values.setdefault("kind", "organisation")
        elif "firstName" in properties and "lastName" in properties:
            parts = name.split()
            values["firstName"] = parts[0]
            if len(parts) > 1:
                values["lastName"] = " ".join(parts[1:])
        elif "name" in properties:
            values["name"] = name
        elif "title" in properties:
            values["title"] = name
    return values


def fill_arguments(
    spec: ToolSpec, message: str, context: dict[str, str], metadata: dict[str, Any]
) -> dict[str, Any]:
    root = spec.definition["inputSchema"]
    properties = {
        name: value for name, value in (root.get("properties") or {}).items() if name != CONFIRMATION_ARGUMENT
    }
    required = [name for name in root.get("required") or [] if name != CONFIRMATION_ARGUMENT]
    arguments: dict[str, Any] = {}
    id_names = [
        name
        for name in properties
        if name.endswith("Id") and "integer" in _types(_resolve(properties[name], root))
    ]
    required_ids = [name for name in id_names if name in required]
    for name, raw_schema in properties.items():
        schema = _resolve(raw_schema, root)
        given, value = _metadata_value(metadata, name)
        if given:
            arguments[name] = value
            continue
        if name in required_ids:
            if len(required_ids) != 1:
                continue
            # The context's record is the tool's when the tool is about that kind of record.
            about = _entity_words(context)
            entity_id = context.get("entity_id", "") if about <= set(_camel_words(spec.name)) else ""
            if entity_id.isdigit():
                arguments[name] = int(entity_id)
            else:
                numbers = _numbers(message)
                if len(numbers) == 1:
                    arguments[name] = numbers[0]
            continue
        if name == "query" and "string" in _types(schema):
            query = _query(message, spec)
            if query:
                arguments[name] = query
            continue
        if name == "limit" and "integer" in _types(schema):
            found = LIMIT.search(message)
            if found:
                arguments[name] = int(found.group(1))
            continue
        if "object" in _types(schema) and schema.get("properties"):
            values = _fill_object(message, spec, schema, root)
            if values:
                arguments[name] = values
    missing = [name for name in required if name not in arguments]
    if missing:
        raise NotConfident(f"it could not tell {', '.join(f'`{name}`' for name in missing)} from the message")
    return arguments


def plan(principal: Principal, message: str, context: dict[str, str], metadata: dict[str, Any]) -> Plan:
    spec = choose_tool(principal, message, context)
    return Plan(spec=spec, arguments=fill_arguments(spec, message, context, metadata))


# --- the reply --------------------------------------------------------------------------------


def _label(item: dict[str, Any]) -> str:
    for key in ("displayName", "name", "title", "fullName", "subject", "organisationName"):
        if isinstance(item.get(key), str) and item[key].strip():
            return item[key].strip()
    names = " ".join(str(item[key]) for key in ("firstName", "lastName") if item.get(key))
    if names:
        return names
    if item.get("email"):
        return str(item["email"])
    return f"#{item['id']}" if "id" in item else _("(unnamed)")


def _spoken(key: str) -> str:
    text = " ".join(words(key))
    return text[:1].upper() + text[1:]


def _scalar(value: Any) -> str | None:
    if value is None or value == "" or value == [] or value == {}:
        return None
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if isinstance(value, list) and all(not isinstance(item, dict | list) for item in value):
        return ", ".join(map(str, value))
    if isinstance(value, dict):
        if "name" in value or "displayName" in value or "email" in value:
            return _label(value)
        return None
    if isinstance(value, list):
        return None
    return str(value)


def _line(item: dict[str, Any]) -> str:
    extras = [str(item[key]) for key in ("email", "phone", "company", "status") if item.get(key)]
    identifier = f" (id {item['id']})" if "id" in item else ""
    return f"- {_label(item)}{identifier}" + (f": {', '.join(extras)}" if extras else "")


def _details(item: dict[str, Any], limit: int = 14) -> list[str]:
    lines = []
    for key, value in item.items():
        if key in {"id", "displayName", "name", "title"}:
            continue
        shown = _scalar(value)
        if shown is not None:
            lines.append(f"- {_spoken(key)}: {shown}")
        if len(lines) >= limit:
            break
    return lines


def describe(spec: ToolSpec, outcome: ToolOutcome) -> str:
    if outcome.is_error:
        return _("I tried “%(title)s” (%(tool)s), and it did not work: %(why)s") % {
            "title": spec.title,
            "tool": spec.name,
            "why": outcome.text,
        }
    try:
        data = json.loads(outcome.text)
    except ValueError:
        return outcome.text
    if not isinstance(data, dict):
        return outcome.text
    thing = " ".join(words(spec.name)[1:]) or _("item")
    if isinstance(data.get("items"), list) and "total" in data:
        items = [item for item in data["items"] if isinstance(item, dict)]
        if not data["total"]:
            return _("I ran “%(title)s” and found nothing.") % {"title": spec.title}
        head = _("I ran “%(title)s”: %(total)s found") % {"title": spec.title, "total": data["total"]}
        if len(items) < data["total"]:
            head += _(", the first %(count)d shown") % {"count": len(items)}
        return head + ":\n" + "\n".join(_line(item) for item in items)
    nested = [key for key, value in data.items() if isinstance(value, dict) and "id" in value]
    if "id" not in data and len(nested) == 1:
        record = data[nested[0]]
        head = _("Done: “%(title)s” for %(label)s (id %(id)s).") % {
            "title": spec.title,
            "label": _label(record),
            "id": record["id"],
        }
        lines = [head]
        if isinstance(data.get("changed"), list):
            changed = ", ".join(_spoken(name).lower() for name in data["changed"]) or _("nothing")
            lines.append(_("Changed: %(fields)s.") % {"fields": changed})
        for key, value in data.items():
            if isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
                lines.append(f"{_spoken(key)}:")
                lines.extend(_line(item) for item in value[:10])
        lines.extend(_details(record, limit=8))
        return "\n".join(lines)
    label = _label(data) if ("id" in data or "name" in data) else thing
    lines = [
        _("Here is %(label)s%(id)s:") % {"label": label, "id": f" (id {data['id']})" if "id" in data else ""}
    ]
    lines.extend(_details(data))
    return "\n".join(lines)


# --- the run ----------------------------------------------------------------------------------

STEP_ID = "builtin"


class BuiltinAgent:
    label = "built-in"

    def run(self, run: Run) -> Finish:
        conversation = run.conversation
        try:
            chosen = plan(run.principal, request_of(run.message), conversation.context, conversation.metadata)
        except NotConfident as reason:
            reply = _("I could not handle this request without an AI model: %(reason)s. %(help)s") % {
                "reason": reason,
                "help": BACKEND_HELP,
            }
            return Finish.failed(errors.MODEL_BACKEND_REQUIRED, reply, reply=reply)
        spec = chosen.spec
        done = {message.get("tool_call_id"): message for message in services.steps_of(conversation.pk)}
        first = policy.first_call_tool(spec.area)
        if (
            first is not None
            and first.name != spec.name
            and spec.area not in (run.session.get(policy.FIRST_CALL_KEY) or [])
            and f"{STEP_ID}-first" not in done
        ):
            opening = run.call(
                first.name,
                {},
                record={"role": "tool", "tool_call_id": f"{STEP_ID}-first", "name": first.name},
            )
            if opening.is_error:
                return Finish.resolved(describe(first, opening))
        recorded = done.get(STEP_ID)
        if recorded is not None:
            outcome = ToolOutcome(spec.name, recorded.get("content", ""), bool(recorded.get("is_error")))
        else:
            outcome = run.call(
                spec.name,
                chosen.arguments,
                record={"role": "tool", "tool_call_id": STEP_ID, "name": spec.name},
            )
        return Finish.resolved(describe(registry.get(spec.name) or spec, outcome))
