"""The start-up check of the whole catalogue (django-oauth-toolkit's checks.py shows the way)."""

import hashlib
import json
import os
import re
import tempfile
from collections.abc import Iterable
from pathlib import Path
from statistics import fmean
from typing import Any

from django.conf import settings
from django.core import checks

from apps.catalogue import derived, registry
from apps.catalogue.registry import CAMEL_CASE, CONFIRMATION_MARKERS, MARKER_LABELS, Marker, ToolSpec
from apps.core import permissions

# --- the budget of a definition ---------------------------------------------------------------------
# Tokens are counted as the bytes of the compact JSON (`json.dumps(value, separators=(",", ":"))`)
# divided by 4: near what a model's tokenizer makes of it, and the same on every machine.
# What a model reads of a tool: its name, title, description, input schema and annotations.
MODEL_TOKENS_MAX = 600  # any one tool
MODEL_TOKENS_MEAN_MAX = 200  # the mean over the registry
OUTPUT_TOKENS_MEAN_MAX = 300  # the mean output schema over the registry
# Characters of the description's first sentence (after the markers): it is what search results,
# clients that show only names and a line, and tool pickers read.
FIRST_SENTENCE_MAX = 100

MODEL_READS = ("name", "title", "description", "inputSchema", "annotations")
# The end of a sentence: a full stop, question or exclamation mark before a space or the end
# (not the one of "e.g." or "i.e.").
_SENTENCE_END = re.compile(r"(?<!e\.g)(?<!i\.e)[.!?](?=\s|$)")


def tokens(value: Any) -> float:
    return len(json.dumps(value, separators=(",", ":"))) / 4


def model_tokens(spec: ToolSpec) -> float:
    """What a model reads of the tool's definition, in tokens."""
    return tokens({key: spec.definition[key] for key in MODEL_READS if key in spec.definition})


def output_tokens(spec: ToolSpec) -> float:
    return tokens(spec.definition.get("outputSchema", {}))


def description_body(spec: ToolSpec) -> str:
    """The description without its leading markers."""
    body = spec.description
    for label in spec.markers.labels:
        body = body.removeprefix(f"{label}:").lstrip()
    return body


def first_sentence(text: str) -> str:
    line = text.strip().split("\n", 1)[0]
    end = _SENTENCE_END.search(line)
    return line[: end.end()] if end else line


def budget_problems(spec: ToolSpec) -> list[str]:
    """How one tool's definition is over its budget (test-settings fixtures have none)."""
    if spec.fixture:
        return []
    problems = []
    size = model_tokens(spec)
    if size > MODEL_TOKENS_MAX:
        problems.append(
            f"a model reads {size:.0f} tokens of its definition (name, title, description, input schema, "
            f"annotations; at most {MODEL_TOKENS_MAX}): shorten its descriptions"
        )
    sentence = first_sentence(description_body(spec))
    if len(sentence) > FIRST_SENTENCE_MAX:
        problems.append(
            f"the first sentence of its description is {len(sentence)} characters (at most "
            f"{FIRST_SENTENCE_MAX}): say what the tool is for, and name its near twin"
        )
    return problems


def registry_budget_problems(specs: Iterable[ToolSpec]) -> list[str]:
    """How the catalogue as a whole is over its budget: the mean of what a model reads and of the
    output schemas, over every tool but the test-settings fixtures."""
    counted = [spec for spec in specs if not spec.fixture]
    if not counted:
        return []
    problems = []
    mean = fmean(model_tokens(spec) for spec in counted)
    if mean > MODEL_TOKENS_MEAN_MAX:
        problems.append(
            f"a model reads {mean:.1f} tokens of a tool's definition on average (at most "
            f"{MODEL_TOKENS_MEAN_MAX}): shorten the heaviest descriptions"
        )
    mean = fmean(output_tokens(spec) for spec in counted)
    if mean > OUTPUT_TOKENS_MEAN_MAX:
        problems.append(
            f"the output schemas are {mean:.1f} tokens on average (at most {OUTPUT_TOKENS_MEAN_MAX}): "
            "leave out descriptions that the field's name and type already give"
        )
    return problems


def problems_of(spec: ToolSpec) -> list[str]:
    """What is wrong with one tool's declaration (empty when nothing is)."""
    # Imported here: the web and worker processes should not pay for it at every start.
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    problems = []
    if not spec.fixture and not CAMEL_CASE.match(spec.name):
        problems.append("its name is not camelCase")
    if permissions.get_permission(spec.permission.value) is not spec.permission:
        problems.append(f"its permission {spec.permission.value!r} is not registered")
    if permissions.get_area(spec.area) is None:
        problems.append(f"its area {spec.area!r} is not registered")
    for other in spec.areas:
        if permissions.get_area(other) is None or other == spec.area:
            problems.append(f"the area it acts on, {other!r}, is not another registered area")
    if not spec.title.strip():
        problems.append("it has no title")
    body = description_body(spec)
    if len(body) < 20:
        problems.append("its description (the docstring) is missing or too short to help an agent")
    undeclared = [
        label
        for member, label in MARKER_LABELS.items()
        if member not in spec.markers and body.upper().startswith(label)
    ]
    if undeclared:
        problems.append(f"its docstring starts with {undeclared[0]} but markers= does not declare it")
    if spec.read_only and spec.markers & CONFIRMATION_MARKERS:
        problems.append("a read-only tool cannot be GATED, HIGH RISK or DESTRUCTIVE")
    # A tool that runs others answers with their results, whatever their shapes.
    if spec.output_model is None and not (spec.fixture or spec.runs_tools):
        problems.append("it has no output model")
    for key in ("inputSchema", "outputSchema"):
        schema = spec.definition.get(key)
        if schema is None:
            continue
        if schema.get("type") != "object":
            problems.append(f"its {key} is not of type object")
        digest = _digest(schema)
        if digest in _known_valid():
            continue
        try:
            Draft202012Validator.check_schema(schema)
        except SchemaError as error:
            problems.append(f"its {key} is not valid JSON Schema: {error.message}")
        else:
            _known_valid().add(digest)
    properties = spec.definition["inputSchema"].get("properties", {})
    for argument, schema in properties.items():
        if not schema.get("description") and "$ref" not in schema:
            problems.append(
                f"its argument {argument!r} has no description (one that restates its name is left out)"
            )
    return problems + budget_problems(spec)


# --- schemas known to be valid ------------------------------------------------------------------
# Checking a schema against JSON Schema's meta-schema is nearly all the check's time (its
# $dynamicRef resolution): a few seconds for the whole catalogue, on every `manage.py` command.
# A schema that was valid stays valid under the same meta-schema, so the digests of those that
# passed are kept in DATA_DIR, with the jsonschema version they were checked by, and only new or
# changed schemas are checked again.
_known: set[str] | None = None


def _digest(schema: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(schema, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _known_file() -> Path:
    return Path(settings.DATA_DIR) / "cache" / "valid-tool-schemas.json"


def _checker_version() -> str:
    from importlib.metadata import version

    return version("jsonschema")


def _known_valid() -> set[str]:
    global _known
    if _known is None:
        try:
            kept = json.loads(_known_file().read_text())
            _known = set(kept["digests"]) if kept.get("jsonschema") == _checker_version() else set()
        except (OSError, ValueError, KeyError, TypeError):
            _known = set()
    return _known


def _keep_known_valid() -> None:
    """Writes the digests of the schemas known valid (atomically: another process may read it);
    where DATA_DIR cannot be written, the next start checks them all again."""
    if _known is None:
        return
    path = _known_file()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False, suffix=".tmp") as out:
            json.dump({"jsonschema": _checker_version(), "digests": sorted(_known)}, out)
        os.replace(out.name, path)
    except OSError:
        pass


@checks.register()
def check_catalogue(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    messages: list[checks.CheckMessage] = []
    first_calls: dict[str, str] = {}
    specs = registry.all_tools()
    for spec in specs:
        for problem in problems_of(spec):
            messages.append(checks.Error(f"tool {spec.name!r} ({spec.module}): {problem}", id="atrium.E101"))
        if Marker.MANDATORY_FIRST_CALL in spec.markers:
            if spec.area in first_calls:
                messages.append(
                    checks.Error(
                        f"area {spec.area!r} has two MANDATORY FIRST CALL tools: "
                        f"{first_calls[spec.area]} and {spec.name}",
                        id="atrium.E102",
                    )
                )
            first_calls[spec.area] = spec.name
    for problem in registry_budget_problems(specs):
        messages.append(checks.Error(f"the catalogue's tools: {problem}", id="atrium.E103"))
    _keep_known_valid()
    # Every definition is built now: the next process with the same code reads them.
    derived.keep()
    return messages


@checks.register()
def check_search_hints(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """An area's search hints name its own tools (a renamed tool would silently lose them)."""
    from apps.core import areas

    messages: list[checks.CheckMessage] = []
    for area in areas.all_areas():
        for name in area.hints:
            spec = registry.get(name)
            if spec is None or spec.area != area.key:
                messages.append(
                    checks.Error(
                        f"area {area.key!r} gives search hints for {name!r}, which is not one of its tools",
                        id="atrium.E105",
                    )
                )
    return messages


@checks.register()
def check_profiles(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """Every profile within its limits, made of the tools of the areas that name them."""
    from apps.catalogue import profiles

    return [checks.Error(problem, id="atrium.E106") for problem in profiles.problems()]
