"""The start-up check of the whole catalogue (django-oauth-toolkit's checks.py shows the way)."""

from typing import Any

from django.core import checks

from apps.catalogue import registry
from apps.catalogue.registry import CAMEL_CASE, CONFIRMATION_MARKERS, MARKER_LABELS, Marker, ToolSpec
from apps.core import permissions


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
    if not spec.title.strip():
        problems.append("it has no title")
    body = spec.description
    for label in spec.markers.labels:
        body = body.removeprefix(f"{label}:").lstrip()
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
    if spec.output_model is None and not spec.fixture:
        problems.append("it has no output model")
    for key in ("inputSchema", "outputSchema"):
        schema = spec.definition.get(key)
        if schema is None:
            continue
        if schema.get("type") != "object":
            problems.append(f"its {key} is not of type object")
        try:
            Draft202012Validator.check_schema(schema)
        except SchemaError as error:
            problems.append(f"its {key} is not valid JSON Schema: {error.message}")
    properties = spec.definition["inputSchema"].get("properties", {})
    for argument, schema in properties.items():
        if not schema.get("description") and "$ref" not in schema:
            problems.append(
                f"its argument {argument!r} has no description (one that restates its name is left out)"
            )
    return problems


@checks.register()
def check_catalogue(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    messages: list[checks.CheckMessage] = []
    first_calls: dict[str, str] = {}
    for spec in registry.all_tools():
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
    return messages
