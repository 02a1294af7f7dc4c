"""The tool registry: one entry per tool, filled by the `@tool` decorator at import time.

Each area app declares its tools in its `tools` module (autodiscovered by `CatalogueConfig.ready`):

    @tool("getContact", permission=ContactsPerm.VIEW, title="Get a contact", read_only=True)
    def get_contact(ctx: ToolContext, *,
                    contact_id: Annotated[int, Field(ge=1, description="The contact's id")]) -> ContactOut:
        \"\"\"Fetch one contact with every field ...\"\"\"

- the name is the catalogue's camelCase name; the Python function stays snake_case;
- the docstring is the description; the decorator puts the leading marker in front of it;
- the input schema comes from the keyword-only annotated parameters (arguments in camelCase, extra
  arguments refused), the output schema from the return model; both are built here, once, when a
  tool's definition is first read, and its input model when it is first called;
- the permission is a member of the area's `PermissionEnum`; the tool belongs to that area;
- markers map to MCP annotations, and `apps.catalogue.dispatch` enforces them;
- `runs_tools=True` declares a tool that runs other tools by name (the catalogue's callTool): it
  carries no markers of its own (those of the tool it runs apply), its annotations are the worst
  case, and the dispatcher runs it as `dispatch.call_tool` says;
- `long_running=True` declares a tool that takes long (an export, an import, an extraction): the
  MCP door lets a 2025-11-25 client run it as a task (`execution.taskSupport`, apps.mcp.jobs);
  every other call of it runs as before.
- `commits_itself=True` declares an idempotent tool that commits its work in transactions of its
  own (an import in batches): the dispatcher runs it outside the one it gives every other write;
- `custom_fields=FieldsOf("contacts", "create", answer="contact")` gives a kind's create and
  update tools a `customFields` argument and its get tool the values in its answer
  (apps.catalogue.customfields);
- `areas=("contacts",)` ties a tool of one area to others it acts on (Platform's
  bulkImportContacts): like the area's own tools, it is listed, found and run only where they are
  installed.

The declaration is checked at import (a tool that cannot work never reaches a client); what costs
(the input model, a pydantic class; the schemas and the `tools/list` entry) is built on first use
and kept, so that a process starts without building what it may never read, and listing and
calling never build it twice.
"""

from __future__ import annotations

import inspect
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from enum import Flag
from functools import cached_property
from typing import Any, Required, TypedDict, Unpack, get_type_hints

from pydantic import BaseModel, ConfigDict, create_model
from pydantic.alias_generators import to_camel
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import core_schema

from apps.catalogue import customfields, derived
from apps.catalogue.customfields import FieldsOf
from apps.catalogue.shapes import TextChecked
from apps.core.permissions import PermissionEnum


class Marker(Flag):
    """The leading markers of SPEC 4.7, in the order they are written in front of a description."""

    NONE = 0
    MANDATORY_FIRST_CALL = 1
    GATED = 2
    HIGH_RISK = 4
    DESTRUCTIVE = 8

    @property
    def labels(self) -> list[str]:
        return [MARKER_LABELS[member] for member in MARKER_ORDER if member in self]


MARKER_ORDER = (Marker.MANDATORY_FIRST_CALL, Marker.GATED, Marker.HIGH_RISK, Marker.DESTRUCTIVE)
MARKER_LABELS = {
    Marker.MANDATORY_FIRST_CALL: "MANDATORY FIRST CALL",
    Marker.GATED: "GATED",
    Marker.HIGH_RISK: "HIGH RISK",
    Marker.DESTRUCTIVE: "DESTRUCTIVE",
}
# Markers whose tools act only after the user confirms (dispatch.py, docs/catalogue.md).
CONFIRMATION_MARKERS = Marker.GATED | Marker.HIGH_RISK | Marker.DESTRUCTIVE
# The argument through which an agent passes back the user's confirmation (no elicitation).
CONFIRMATION_ARGUMENT = "confirmationToken"

CAMEL_CASE = re.compile(r"^[a-z][a-zA-Z0-9]{1,63}$")
# What MCP clients accept as a tool name; only test-settings fixtures may use more than camelCase.
TOOL_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]{0,63}$")


class ArgumentsModel(TextChecked):
    """Base of every generated input model: camelCase on the wire, nothing unknown accepted, no
    text a store cannot keep (`shapes.TextChecked`)."""

    model_config = ConfigDict(extra="forbid", alias_generator=to_camel, validate_by_name=False)


class _SchemaWithoutTitles(GenerateJsonSchema):
    """Pydantic titles every property after its Python name ("Contact Id") and every model after its
    class, and gives a model's docstring as its description: noise for an agent, and bytes on every
    `tools/list`. Docstrings are written for the source; the field that holds a shape says what it
    is for."""

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False

    def model_schema(self, schema: core_schema.ModelSchema) -> JsonSchemaValue:
        json_schema = super().model_schema(schema)
        docstring = schema["cls"].__doc__
        if docstring and json_schema.get("description") == inspect.cleandoc(docstring):
            del json_schema["description"]
        return json_schema


def json_schema(model: type[BaseModel], *, mode: str = "validation") -> dict[str, Any]:
    """The input (`validation`) or output (`serialization`) schema of a model, compacted: agents
    read every definition on each `tools/list`."""
    schema = model.model_json_schema(by_alias=True, mode=mode, schema_generator=_SchemaWithoutTitles)  # type: ignore[arg-type]
    return compact_schema(schema, output=mode == "serialization")


# The bounds of a 64-bit id column: pydantic still enforces them, but written on every id argument
# they only cost bytes (about 11 tokens each); no agent comes near them.
_INT64_BOUNDS = {"maximum": 2**63 - 1, "minimum": -(2**63)}
# Keywords that apply to one type of instance only, so that a null passes them: a schema made of
# these and a single `type` can take "null" into its `type` instead of an `anyOf`.
_TYPE_ONLY_KEYWORDS = frozenset(
    {
        "type", "format", "pattern", "minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum",
        "exclusiveMaximum", "multipleOf", "items", "prefixItems", "minItems", "maxItems", "uniqueItems",
        "properties", "additionalProperties", "patternProperties", "required", "minProperties",
        "maxProperties", "enum", "description",
    }
)  # fmt: skip
_NULL = {"type": "null"}
# Words a description may add to a field's name and still say nothing more ("The contact's id").
_FILLER = frozenset({"a", "an", "the", "its", "their", "your", "of"})


def compact_schema(schema: dict[str, Any], *, output: bool = False) -> dict[str, Any]:
    """The same schema in fewer bytes. What it accepts does not change (but for the 64-bit bounds):

    - a definition used once is written where it is used; shared ones stay in `$defs`, once;
    - `anyOf: [X, {"type": "null"}]` becomes X with "null" in its `type` (and its `enum`) when X
      is a plain schema of one type; the field's description wins over its type's, as pydantic
      does for a field that is not nullable;
    - no titles, no default that is null or empty (`""`, `[]`, `{}`, `false`: what leaving the
      argument out means anyway), no 64-bit bounds, no description that only restates the
      property's name;
    - output schemas require every property of each object: every field of a result is always
      there (null where its type allows null), and clients that type results read `required`;
    - an input id (a property named `…Id`, or the items of `…Ids`) leaves out its `minimum: 1`:
      ids come from other tools' answers, and one below 1 is refused by the tool's own argument
      check (the input model keeps the bound) with the same error as any other unknown id would
      get. A quarter of the catalogue's bounds, 4 tokens a tool on average.
    """
    _inline_single_use(schema)
    return _tidy(schema, output=output)


def _inline_single_use(root: dict[str, Any]) -> None:
    definitions = root.get("$defs")
    if not definitions:
        return
    changed = True
    while changed:
        changed = False
        uses: dict[str, list[dict[str, Any]]] = {name: [] for name in definitions}
        for node in _nodes(root):
            reference = node.get("$ref", "")
            if isinstance(reference, str) and reference.startswith("#/$defs/"):
                uses.setdefault(reference.removeprefix("#/$defs/"), []).append(node)
        for name, places in uses.items():
            if name not in definitions or len(places) > 1:
                continue
            body = definitions.pop(name)
            if places and any(node is places[0] for node in _nodes(body)):
                definitions[name] = body  # it refers to itself: it must keep its name
                continue
            if places:
                place = places[0]
                del place["$ref"]
                # The place's own keywords (a field's description) win over the definition's.
                place.update({**body, **place})
            changed = True
            break
    if not definitions:
        del root["$defs"]


def _nodes(schema: Any) -> Any:
    """Every dict in a schema, depth first (values of `enum`, `default` and the like included:
    they never hold a `$ref`)."""
    if isinstance(schema, dict):
        yield schema
        for value in schema.values():
            yield from _nodes(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from _nodes(value)


def _tidy(schema: Any, *, output: bool) -> Any:
    if not isinstance(schema, dict):
        return schema  # `true` / `false` schemas
    for key in ("properties", "$defs", "patternProperties"):
        if isinstance(schema.get(key), dict):
            schema[key] = {name: _tidy(value, output=output) for name, value in schema[key].items()}
    for key in ("anyOf", "allOf", "oneOf", "prefixItems"):
        if isinstance(schema.get(key), list):
            schema[key] = [_tidy(value, output=output) for value in schema[key]]
    for key in ("items", "additionalProperties", "not", "contains", "if", "then", "else"):
        if isinstance(schema.get(key), dict):
            schema[key] = _tidy(schema[key], output=output)
    schema.pop("title", None)
    if "default" in schema and _says_nothing(schema["default"]):
        del schema["default"]
    for bound, value in _INT64_BOUNDS.items():
        if schema.get(bound) == value:
            del schema[bound]
    if output and isinstance(schema.get("properties"), dict):
        # Every field of a result is always there: clients that type results (code generation,
        # programmatic tool calling) must not see them as optional.
        schema["required"] = list(schema["properties"])
    for name, value in (schema.get("properties") or {}).items():
        if not output and isinstance(value, dict):
            _unbound_id(name, value)
        if (
            isinstance(value, dict)
            and isinstance(value.get("description"), str)
            and _words(value["description"]) == _words(name)
        ):
            del value["description"]
    _fold_null(schema)
    return schema


def _unbound_id(name: str, schema: dict[str, Any]) -> None:
    """Leaves out the `minimum: 1` of an id property (or of the items of a list of ids)."""
    target = schema.get("items") if name.endswith("Ids") else schema if name.endswith("Id") else None
    if not isinstance(target, dict) or target.get("minimum") != 1:
        return
    kinds = target.get("type")
    if kinds == "integer" or (isinstance(kinds, list) and set(kinds) <= {"integer", "null"}):
        del target["minimum"]


def _says_nothing(default: Any) -> bool:
    return default is None or default is False or (isinstance(default, str | list | dict) and not default)


def _fold_null(schema: dict[str, Any]) -> None:
    options = schema.get("anyOf")
    if not (isinstance(options, list) and len(options) == 2 and _NULL in options):
        return
    other = dict(options[1 - options.index(_NULL)])
    if "description" in schema:
        other.pop("description", None)
    if not (isinstance(other.get("type"), str) and set(other) <= _TYPE_ONLY_KEYWORDS):
        return
    if set(other) & (set(schema) - {"anyOf"}):
        return
    del schema["anyOf"]
    other["type"] = [other["type"], "null"]
    if "enum" in other:
        other["enum"] = [*other["enum"], None]
    schema.update(other)


def _words(text: str) -> str:
    """What a name or a description says, without case, spaces, filler words or possessives:
    `contactId` and "The contact's id" both say "contactid"."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text).lower().replace("'s", "")
    return "".join(word for word in re.findall(r"[a-z0-9-]+", spaced) if word not in _FILLER).replace("-", "")


@dataclass(frozen=True, eq=False)
class ToolSpec:
    name: str
    function: Callable[..., Any]
    permission: PermissionEnum
    area: str
    title: str
    description: str
    markers: Marker
    read_only: bool
    idempotent: bool
    open_world: bool
    output_model: type[BaseModel] | None
    # Python names of the keyword-only parameters, in order.
    parameters: tuple[str, ...]
    # MCP's annotations (the `tools/list` entry's).
    annotations: dict[str, Any]
    module: str
    # Registered from settings.ATRIUM_EXTRA_TOOL_MODULES (test settings only): may bend naming rules.
    fixture: bool = False
    # Runs other tools by name (callTool): see `tool(runs_tools=...)` and dispatch.call_tool.
    runs_tools: bool = False
    # Takes long (an export, an import, an extraction): a door that can run calls in the
    # background offers it so (MCP 2025-11-25 tasks: apps.mcp.jobs).
    long_running: bool = False
    # Written to be served on the event loop (apps.core.onloop; CONVENTIONS.md, "Tools").
    on_loop: bool = False
    # Asked before a confirmation, with the call's arguments: whether this call needs one (a
    # marked tool's harmless use, such as an internal note of respondToTicket, does not); an
    # AppError it raises is the call's answer, so nobody confirms what would be refused.
    confirm_if: Callable[..., bool] | None = None
    # Commits its work in transactions of its own (an import's batches), so the dispatcher runs it
    # outside one: what it committed stays when a later part fails, and the same call again
    # finishes it (it must be idempotent).
    commits_itself: bool = False
    # The other areas it acts on, besides its permission's (bulkImportContacts: Platform's tool
    # about contacts): it is offered, found and run only where each of them is installed too.
    areas: tuple[str, ...] = ()

    @property
    def installed_in(self) -> tuple[str, ...]:
        """Every area that must be installed for the tool to be offered: its own and `areas`."""
        return (self.area, *self.areas)

    # Asked several times by every call: an enum flag's `&` each time cost more than the rest of
    # the check. Kept once read (a spec's markers never change; `replace` makes a new spec).
    @cached_property
    def needs_confirmation(self) -> bool:
        return bool(self.markers & CONFIRMATION_MARKERS)

    @cached_property
    def is_first_call(self) -> bool:
        return Marker.MANDATORY_FIRST_CALL in self.markers

    @property
    def where(self) -> str:
        return f"{self.function.__module__}.{self.function.__qualname__}"

    @cached_property
    def input_model(self) -> type[BaseModel]:
        """The model the arguments are validated with, made at the tool's first call (or its
        first definition, where its schema is not kept)."""
        return _input_model(self.function, self.name, self.where)

    @cached_property
    def definition(self) -> dict[str, Any]:
        """The `tools/list` entry, built on first read; callers must not change it. The schemas
        follow from the code: a process whose code was seen before reads them
        (apps.catalogue.derived)."""
        kept_as = derived.key(self.function.__module__, self.function.__qualname__, self.name)
        kept = derived.get(kept_as) if kept_as is not None else None
        if kept is not None:
            input_schema, output_schema = kept
        else:
            input_schema = json_schema(self.input_model)
            if self.needs_confirmation:
                input_schema.setdefault("properties", {})[CONFIRMATION_ARGUMENT] = {
                    "type": "string",
                    "description": "Only to retry a call the user confirmed: its answer's token",
                }
            output_schema = (
                json_schema(self.output_model, mode="serialization")
                if self.output_model is not None
                else None
            )
            if kept_as is not None:
                derived.put(kept_as, (input_schema, output_schema))
        definition: dict[str, Any] = {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "inputSchema": input_schema,
        }
        if output_schema is not None:
            definition["outputSchema"] = output_schema
        definition["annotations"] = self.annotations
        return definition


class RegistryError(TypeError):
    """A tool declaration that cannot work (raised at import, so it never reaches a client)."""


_tools: dict[str, ToolSpec] = {}
_lock = threading.Lock()
# Bumped on every change, so caches built from the registry know they are stale.
_version = 0
# Set while settings.ATRIUM_EXTRA_TOOL_MODULES are imported (apps.catalogue.apps).
_loading_fixtures = False


def version() -> int:
    return _version


def get(name: str) -> ToolSpec | None:
    return _tools.get(name)


def all_tools() -> list[ToolSpec]:
    return sorted(_tools.values(), key=sort_key)


def sort_key(spec: ToolSpec) -> tuple[int, str, str]:
    # The catalogue's own tools (search, describe) first: they are how an agent finds the rest.
    return (0 if spec.area == "catalogue" else 1, spec.area, spec.name)


def register(spec: ToolSpec) -> None:
    global _version
    with _lock:
        existing = _tools.get(spec.name)
        if existing is not None and existing.function is not spec.function:
            same_place = (existing.module, existing.function.__qualname__) == (
                spec.module,
                spec.function.__qualname__,
            )
            if not same_place:
                raise RegistryError(
                    f"tool {spec.name!r} is declared twice: in {existing.module} and in {spec.module}"
                )
        _tools[spec.name] = spec
        _version += 1


def unregister(name: str) -> None:
    """For tests that declare tools of their own for a while (`apps.catalogue.testing`)."""
    global _version
    with _lock:
        if _tools.pop(name, None) is not None:
            _version += 1


class Declaration(TypedDict, total=False):
    """What a tool declares besides its name and function (`build_spec`'s keywords)."""

    permission: Required[PermissionEnum]
    title: Required[str]
    markers: Marker
    read_only: bool
    idempotent: bool | None
    open_world: bool
    runs_tools: bool
    long_running: bool
    on_loop: bool
    confirm_if: Callable[..., bool] | None
    commits_itself: bool
    areas: tuple[str, ...]
    custom_fields: FieldsOf | None


def tool(
    name: str, *, register_it: bool = True, **declared: Unpack[Declaration]
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Declares a catalogue tool (see the module docstring). Returns the function unchanged, with
    its ToolSpec on `function.tool_spec`."""

    def decorator(function: Callable[..., Any]) -> Callable[..., Any]:
        spec = build_spec(function, name=name, **declared)
        function.tool_spec = spec  # type: ignore[attr-defined]
        if register_it:
            register(spec)
        return function

    return decorator


def build_spec(
    function: Callable[..., Any],
    *,
    name: str,
    permission: PermissionEnum,
    title: str,
    markers: Marker = Marker.NONE,
    read_only: bool = False,
    idempotent: bool | None = None,
    open_world: bool = False,
    runs_tools: bool = False,
    long_running: bool = False,
    on_loop: bool = False,
    confirm_if: Callable[..., bool] | None = None,
    commits_itself: bool = False,
    areas: tuple[str, ...] = (),
    custom_fields: FieldsOf | None = None,
) -> ToolSpec:
    where = f"{function.__module__}.{function.__qualname__}"
    if custom_fields is not None:
        # The kind's custom fields: its `customFields` argument, or its values in the answer.
        function = customfields.wrapped(function, custom_fields)
    if commits_itself and (read_only or not idempotent or runs_tools):
        raise RegistryError(
            f"{where}: a tool that commits in transactions of its own (commits_itself) writes, and "
            "is idempotent: a call cut short is finished by the same call again"
        )
    if confirm_if is not None and not markers & CONFIRMATION_MARKERS:
        raise RegistryError(f"{where}: confirm_if is for a tool whose markers ask for a confirmation")
    if on_loop and (not read_only or open_world or runs_tools or markers & CONFIRMATION_MARKERS):
        raise RegistryError(
            f"{where}: only a read of the workspace alone is served on the event loop (on_loop): "
            "read-only, not open-world, with nothing to confirm"
        )
    if not TOOL_NAME.match(name):
        raise RegistryError(f"{where}: {name!r} is not a valid tool name")
    if not isinstance(permission, PermissionEnum):
        raise RegistryError(f"{where}: the permission must be a member of a PermissionEnum")
    if runs_tools and (markers or read_only):
        raise RegistryError(
            f"{where}: a tool that runs other tools has no markers and is not read-only: "
            "the markers of the tool it runs apply"
        )
    docstring = _unwrap(inspect.getdoc(function) or "")
    parameters = _parameters(function, where)
    output_model = _output_model(function, where)
    description = " ".join(f"{label}:" for label in markers.labels)
    description = f"{description} {docstring}".strip() if description else docstring
    idempotent = read_only if idempotent is None else idempotent
    # The title is the tool's own `title`, which clients show before `annotations.title`. A hint
    # left out means MCP's default: readOnlyHint and idempotentHint default to false, the cautious
    # value, so they are written only when true; destructiveHint and openWorldHint default to true,
    # so they are always written.
    annotations: dict[str, Any] = {"readOnlyHint": True} if read_only else {}
    # Meaningful only for tools that change something; DESTRUCTIVE and HIGH RISK say so.
    annotations["destructiveHint"] = (not read_only) and bool(
        markers & (Marker.DESTRUCTIVE | Marker.HIGH_RISK)
    )
    if idempotent:
        annotations["idempotentHint"] = True
    annotations["openWorldHint"] = open_world
    if runs_tools:
        # It may run any tool, so a client must assume the worst of every call.
        annotations.update(destructiveHint=True, openWorldHint=True)
        annotations.pop("idempotentHint", None)
        idempotent, open_world = False, True
    return ToolSpec(
        name=name,
        function=function,
        permission=permission,
        area=permission.area,
        title=title,
        description=description,
        markers=markers,
        read_only=read_only,
        idempotent=idempotent,
        open_world=open_world,
        output_model=output_model,
        parameters=parameters,
        annotations=annotations,
        module=function.__module__,
        fixture=_loading_fixtures,
        runs_tools=runs_tools,
        long_running=long_running,
        on_loop=on_loop,
        confirm_if=confirm_if,
        commits_itself=commits_itself,
        areas=tuple(areas),
    )


def _unwrap(text: str) -> str:
    """Docstrings are wrapped for the source; descriptions are read by agents: one line per paragraph."""
    paragraphs = re.split(r"\n\s*\n", text.strip())
    return "\n\n".join(" ".join(line.strip() for line in paragraph.splitlines()) for paragraph in paragraphs)


def _parameters(function: Callable[..., Any], where: str) -> tuple[str, ...]:
    """The Python names of a tool's arguments, once its signature is checked: the context first,
    then only keyword-only parameters, each with a type, none named as the confirmation is."""
    _fields(function, where)
    return tuple(parameter.name for parameter in list(inspect.signature(function).parameters.values())[1:])


def _fields(function: Callable[..., Any], where: str) -> dict[str, Any]:
    signature = inspect.signature(function)
    try:
        hints = get_type_hints(function, include_extras=True)
    except Exception as error:
        raise RegistryError(f"{where}: its type hints cannot be resolved ({error})") from error
    parameters = list(signature.parameters.values())
    if not parameters or parameters[0].kind not in (
        inspect.Parameter.POSITIONAL_ONLY,
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
    ):
        raise RegistryError(f"{where}: the first parameter must be the ToolContext (`ctx`)")
    fields: dict[str, Any] = {}
    for parameter in parameters[1:]:
        if parameter.kind is not inspect.Parameter.KEYWORD_ONLY:
            raise RegistryError(f"{where}: parameter {parameter.name!r} must be keyword-only (after `*`)")
        if parameter.name not in hints:
            raise RegistryError(f"{where}: parameter {parameter.name!r} has no type")
        if to_camel(parameter.name) == CONFIRMATION_ARGUMENT:
            raise RegistryError(f"{where}: {CONFIRMATION_ARGUMENT!r} is reserved for confirmations")
        default = ... if parameter.default is inspect.Parameter.empty else parameter.default
        fields[parameter.name] = (hints[parameter.name], default)
    return fields


def _input_model(function: Callable[..., Any], name: str, where: str) -> type[BaseModel]:
    return create_model(
        f"{name[:1].upper()}{name[1:]}Arguments",
        __base__=ArgumentsModel,
        __module__=function.__module__,
        **_fields(function, where),
    )


def _output_model(function: Callable[..., Any], where: str) -> type[BaseModel] | None:
    from apps.catalogue.shapes import RawResult

    try:
        returned = get_type_hints(function).get("return")
    except Exception as error:
        raise RegistryError(f"{where}: its return type cannot be resolved ({error})") from error
    if returned is RawResult:
        return None
    if not (inspect.isclass(returned) and issubclass(returned, BaseModel)):
        raise RegistryError(f"{where}: the return type must be a pydantic model (the output schema)")
    return returned
