"""A listener's flow: its steps, checked when saved, and their mappings and conditions evaluated
when a run reaches them.

A step is one of:

- a tool call: `{"id": "task", "tool": "createTask", "arguments": {...}, "when": "..."}`, the
  catalogue's tool by name with its arguments as its input schema names them (camelCase). A value
  may be a template: `"{{ record.number }}"` alone is the value (any type: a number stays a
  number), `"Invoice {{ record.number }} paid"` is text with the value written in;
- a condition: `{"id": "big", "if": "record.total > 1000"}`: the run stops here (succeeded)
  when it is false;
- a delay: `{"id": "wait", "delay": 3600}` seconds (at most a week) before the next step;
- an e-mail to the listener's owner, and nobody else: `{"id": "mail", "emailOwner": {"subject":
  ..., "text": ...}}` (templates allowed).

Templates and conditions are expressions of simpleeval (no `eval`: names, item and attribute
reads, comparisons, arithmetic, `and`/`or`/`not`, and the functions of `FUNCTIONS`) over the
names `trigger` (the payload), `record` (the payload's record, for a record event), `steps` (each
earlier step's result by id), `listener` (`id`, `name`) and `now` (ISO time). A flow is checked
against each tool's input model when it is saved: an unknown tool, an unknown or missing argument,
a value of the wrong type, or an expression that does not parse is refused naming the step and the
field. What a template gives is checked when the run calls the tool (the dispatcher validates it).
"""

import ast
import re
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext_lazy as _
from pydantic import BaseModel, ValidationError
from simpleeval import (  # type: ignore[import-untyped]
    AttributeDoesNotExist,
    EvalWithCompoundTypes,
    InvalidExpression,
    NameNotDefined,
)

MAX_STEPS = 30
MAX_DELAY_SECONDS = 7 * 24 * 3600
STEP_ID = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,39}$")
TEMPLATE = re.compile(r"\{\{(.*?)\}\}", re.DOTALL)
WHOLE = re.compile(r"^\s*\{\{(.*?)\}\}\s*$", re.DOTALL)
FUNCTIONS = {
    "len": len,
    "str": str,
    "int": int,
    "float": float,
    "round": round,
    "abs": abs,
    "min": min,
    "max": max,
    "lower": lambda value: str(value).lower(),
}
STEP_KINDS = ("tool", "if", "delay", "emailOwner")


@dataclass(frozen=True)
class StepProblem(Exception):
    """A step refused: its position (1-based), what it calls, the field, and why."""

    step: int
    tool: str
    field: str
    problem: Any


class ExpressionFailed(Exception):
    """An expression that does not evaluate over this run's values (a name or key missing)."""


def kind_of(step: dict[str, Any]) -> str:
    return next((kind for kind in STEP_KINDS if kind in step), "")


NAMES = ("trigger", "record", "steps", "listener", "now")


def _shown(expression: str, braces: bool) -> str:
    text = " ".join(expression.split())
    text = text if len(text) <= 60 else f"{text[:57]}..."
    if not text:
        return "`{{ }}`" if braces else "``"
    return f"`{{{{ {text} }}}}`" if braces else f"`{text}`"


def parse(expression: str, *, braces: bool = False) -> Any:
    """The parsed expression, or ExpressionFailed saying in plain words why it is refused: it does
    not parse, is empty, is a statement, or reads a name a flow does not have (`NAMES`).
    `braces`: the expression stood in a template (`{{ ... }}`), and is shown so."""
    shown = _shown(expression, braces)
    if not expression.strip():
        raise ExpressionFailed(
            _("{shown} is empty: write a value in it, e.g. {{{{ record.id }}}}").format(shown=shown)
        )
    try:
        parsed = EvalWithCompoundTypes(functions=FUNCTIONS).parse(expression.strip())
    except (SyntaxError, InvalidExpression, ValueError) as error:
        raise ExpressionFailed(
            _("{shown} is not an expression (look at its brackets, quotes and operators)").format(shown=shown)
        ) from error
    # simpleeval parses a statement too (`import os`, `a = 1`); only an expression is evaluated.
    if not isinstance(parsed, ast.Expr):
        raise ExpressionFailed(_("{shown} is a statement, not an expression").format(shown=shown))
    bound = {
        node.id for node in ast.walk(parsed) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)
    }
    for node in ast.walk(parsed):
        if isinstance(node, ast.Name) and node.id not in (
            *NAMES,
            *FUNCTIONS,
            *bound,
            "True",
            "False",
            "None",
        ):
            raise ExpressionFailed(
                _("{shown} reads {name}, which a flow does not have (its names: {names})").format(
                    shown=shown, name=node.id, names=", ".join(NAMES)
                )
            )
    return parsed


def _missing(error: Exception, expression: str, names: dict[str, Any], evaluator: Any) -> str:
    """What a failed evaluation misses, in plain words: the field, key or name, and where."""
    shown = _shown(expression, False)
    if isinstance(error, NameNotDefined):
        return str(_("{shown}: there is no {name} in this run").format(shown=shown, name=error.name))
    if isinstance(error, AttributeDoesNotExist | KeyError):
        field = (
            error.attr if isinstance(error, AttributeDoesNotExist) else (error.args[0] if error.args else "")
        )
        owner = ""
        for node in ast.walk(ast.parse(expression.strip())):
            if (isinstance(node, ast.Attribute) and node.attr == field) or (
                isinstance(node, ast.Subscript)
                and isinstance(node.slice, ast.Constant)
                and node.slice.value == field
            ):
                owner = ast.unparse(node.value)
        if owner:
            try:
                value = evaluator.eval(owner)
            except Exception:
                value = None
            has = (
                _("; it has {fields}").format(fields=", ".join(map(str, list(value)[:15])) or _("nothing"))
                if isinstance(value, dict)
                else ""
            )
            return str(
                _("{shown}: {owner} has no field {field}{has}").format(
                    shown=shown, owner=owner, field=field, has=has
                )
            )
        return str(_("{shown}: there is no {field} in this run").format(shown=shown, field=field))
    if isinstance(error, ZeroDivisionError):
        return str(_("{shown} divides by zero").format(shown=shown))
    if isinstance(error, TypeError | ValueError):
        return str(
            _(
                "{shown} mixes values that do not go together (a number and a text, or a missing value)"
            ).format(shown=shown)
        )
    return str(_("{shown} could not be evaluated: {problem}").format(shown=shown, problem=error))


def evaluate(expression: str, names: dict[str, Any]) -> Any:
    evaluator = EvalWithCompoundTypes(names=names, functions=FUNCTIONS)
    try:
        return evaluator.eval(expression.strip())
    except (InvalidExpression, KeyError, AttributeError, TypeError, ValueError, ZeroDivisionError) as error:
        raise ExpressionFailed(_missing(error, expression, names, evaluator)) from error
    except SyntaxError as error:
        raise ExpressionFailed(
            str(_("{shown} is not an expression").format(shown=_shown(expression, False)))
        ) from error


def render(value: Any, names: dict[str, Any], path: str = "") -> Any:
    """`value` with its templates evaluated: a whole template gives its value, templates in text
    are written into it; lists and objects are rendered throughout. A template that fails is
    ExpressionFailed naming the path of its value (`path`, then `title`, `items.0`)."""
    if isinstance(value, str):
        try:
            whole = WHOLE.match(value)
            if whole:
                return evaluate(whole.group(1), names)
            return TEMPLATE.sub(lambda found: _text(evaluate(found.group(1), names)), value)
        except ExpressionFailed as error:
            raise ExpressionFailed(f"{path}: {error}" if path else str(error)) from error
    if isinstance(value, list):
        return [render(item, names, _at(path, index)) for index, item in enumerate(value)]
    if isinstance(value, dict):
        return {key: render(item, names, _at(path, key)) for key, item in value.items()}
    return value


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def templates_in(value: Any, path: str = "") -> list[tuple[str, str]]:
    """Each template in `value` with the path of the value it stands in (`title`, `items.0`)."""
    if isinstance(value, str):
        return [(path, found.group(1)) for found in TEMPLATE.finditer(value)]
    if isinstance(value, list):
        return [found for index, item in enumerate(value) for found in templates_in(item, _at(path, index))]
    if isinstance(value, dict):
        return [found for key, item in value.items() for found in templates_in(item, _at(path, key))]
    return []


def _at(path: str, part: Any) -> str:
    return f"{path}.{part}" if path else str(part)


def unclosed_in(value: Any, path: str = "") -> tuple[str, str] | None:
    """The first `{{` in `value` that no `}}` closes: the path of its value and the template's start."""
    if isinstance(value, str):
        rest = TEMPLATE.sub("", value)
        start = rest.find("{{")
        if start < 0:
            return None
        opened = " ".join(rest[start:].split())
        return path, opened if len(opened) <= 40 else f"{opened[:37]}..."
    items = enumerate(value) if isinstance(value, list) else value.items() if isinstance(value, dict) else []
    for key, item in items:
        found = unclosed_in(item, _at(path, key))
        if found is not None:
            return found
    return None


def _templated_paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Where a whole template stands in for a value: its type is known only when the run renders it."""
    if isinstance(value, str) and WHOLE.match(value):
        return [path]
    if isinstance(value, list):
        return [found for index, item in enumerate(value) for found in _templated_paths(item, (*path, index))]
    if isinstance(value, dict):
        return [found for key, item in value.items() for found in _templated_paths(item, (*path, key))]
    return []


def check_arguments(input_model: type[BaseModel], arguments: dict[str, Any]) -> tuple[str, str] | None:
    """The first argument refused by the tool's input model (its field path and the reason), or
    None: an unknown argument first (a misspelt name is also the missing one). A value given by a
    whole template is checked to be an argument of the tool, not its type."""
    templated = _templated_paths(arguments)
    try:
        input_model.model_validate(arguments)
    except ValidationError as error:
        problems = sorted(error.errors(), key=lambda problem: problem["type"] != "extra_forbidden")
        for problem in problems:
            location = tuple(problem["loc"])
            if problem["type"] != "extra_forbidden" and any(
                location[: len(path)] == path for path in templated
            ):
                continue
            field = ".".join(str(part) for part in location) or "arguments"
            return field, str(problem["msg"])
    return None


def check(steps: Any, tool_of: Any) -> list[dict[str, Any]]:
    """The steps as they are kept, or StepProblem for the first refused. `tool_of(name)` answers the
    tool's spec (None: no such tool)."""
    if not isinstance(steps, list):
        raise StepProblem(0, "", "steps", _("must be a list of steps"))
    if len(steps) > MAX_STEPS:
        raise StepProblem(0, "", "steps", _("at most 30 steps"))
    kept: list[dict[str, Any]] = []
    seen: set[str] = set()
    for index, step in enumerate(steps, start=1):
        kept.append(_checked(index, step, seen, tool_of))
    return kept


def _checked(index: int, step: Any, seen: set[str], tool_of: Any) -> dict[str, Any]:
    if not isinstance(step, dict):
        raise StepProblem(index, "", "step", _("must be an object"))
    kind = kind_of(step)
    name = str(step.get("tool", "")) if kind == "tool" else kind
    step_id = step.get("id") or f"step{index}"
    if not isinstance(step_id, str) or not STEP_ID.match(step_id):
        raise StepProblem(index, name, "id", _("a letter, then letters, digits or _ (at most 40)"))
    if step_id in seen:
        raise StepProblem(index, name, "id", _("is used by an earlier step"))
    seen.add(step_id)
    allowed = {"id", kind, "when"} | ({"arguments"} if kind == "tool" else set())
    unknown = sorted(set(step) - allowed)
    if not kind:
        raise StepProblem(index, "", "step", _("name one of tool, if, delay, emailOwner"))
    if unknown:
        raise StepProblem(index, name, unknown[0], _("is not a field of this step"))
    out: dict[str, Any] = {"id": step_id}
    when = step.get("when")
    if when is not None:
        out["when"] = _expression(index, name, "when", when)
    if kind == "tool":
        out.update(_tool_step(index, step, tool_of))
    elif kind == "if":
        out["if"] = _expression(index, name, "if", step["if"])
    elif kind == "delay":
        seconds = step["delay"]
        if not isinstance(seconds, int) or isinstance(seconds, bool) or not 1 <= seconds <= MAX_DELAY_SECONDS:
            raise StepProblem(index, name, "delay", _("seconds, from 1 to 604800 (a week)"))
        out["delay"] = seconds
    else:
        mail = step["emailOwner"]
        if not isinstance(mail, dict) or set(mail) - {"subject", "text"}:
            raise StepProblem(index, name, "emailOwner", _("an object with subject and text"))
        for field, limit in (("subject", 200), ("text", 10_000)):
            value = mail.get(field)
            if not isinstance(value, str) or not value.strip() or len(value) > limit:
                raise StepProblem(index, name, f"emailOwner.{field}", _("text, not empty, within its length"))
            _templates(index, name, f"emailOwner.{field}", value)
        out["emailOwner"] = {"subject": mail["subject"], "text": mail["text"]}
    return out


def _tool_step(index: int, step: dict[str, Any], tool_of: Any) -> dict[str, Any]:
    name = step["tool"]
    spec = tool_of(name) if isinstance(name, str) else None
    if spec is None:
        raise StepProblem(
            index, str(name), "tool", _("no such tool in the catalogue (searchTools finds them)")
        )
    arguments = step.get("arguments", {})
    if not isinstance(arguments, dict):
        raise StepProblem(index, name, "arguments", _("must be an object"))
    _templates(index, name, "arguments", arguments)
    refused = check_arguments(spec.input_model, arguments)
    if refused is not None:
        raise StepProblem(index, name, f"arguments.{refused[0]}", refused[1])
    return {"tool": name, "arguments": arguments}


def _templates(index: int, name: str, field: str, value: Any) -> None:
    """Every template of `value` parses; the first that does not is refused at its own path."""
    unclosed = unclosed_in(value)
    if unclosed is not None:
        raise StepProblem(
            index,
            name,
            _at(field, unclosed[0]) if isinstance(value, dict | list) else field,
            _("the template `{opened}` is not closed: end it with }}}}").format(opened=unclosed[1]),
        )
    for path, expression in templates_in(value):
        try:
            parse(expression, braces=True)
        except ExpressionFailed as error:
            raise StepProblem(index, name, _at(field, path) if path else field, str(error)) from error


def _expression(index: int, name: str, field: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > 1000:
        raise StepProblem(index, name, field, _("an expression, at most 1000 characters"))
    try:
        parse(value)
    except ExpressionFailed as error:
        raise StepProblem(index, name, field, str(error)) from error
    return value
