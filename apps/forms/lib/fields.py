"""A form's groups and fields, their JSON Schema, and the check of a submission's answers.

A field, as the draft and every version keep it (camelCase, as the tools give it):

    {"key": "email", "type": "email", "label": "Your e-mail", "group": "contact", "required": true,
     "help": "", "showIf": {...}}          # apps.forms.lib.conditions
    choice:   "options": ["Small", "Large"], "multiple": false
    number:   "min": 0, "max": 10           text, textarea: "minLength", "maxLength"
    checkbox: "consentText": "I agree ..."  (kept with the version: the exact words agreed to)
    file:     "accept": ["image/png", "application/pdf"], "maxSizeMb": 5
    heading, paragraph: layout, no answer ("text" is what they show)

A key is a stable identifier (letters, digits, underscores; it never changes once made); labels
may change. Answers are checked here in two steps, never trusting the client: the conditions decide
which fields are shown (a hidden field's answer is dropped, a hidden required field is not
required), then the version's JSON Schema (jsonschema, Draft 2020-12, with the e-mail and date
formats checked) refuses what does not fit, each failing field named with its problem.
"""

import math
import re
from datetime import date
from typing import Any

from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.utils.translation import gettext as _
from jsonschema import Draft202012Validator, FormatChecker

from apps.core import clean, json_input
from apps.core.errors import AppError
from apps.forms.lib import conditions

ANSWERED = ("text", "textarea", "number", "date", "email", "phone", "choice", "checkbox", "file", "signature")
LAYOUT = ("heading", "paragraph")
TYPES = ANSWERED + LAYOUT
KINDS = {
    "text": ("text", "textarea", "number", "date", "email", "phone"),
    "choice": ("choice", "checkbox"),
    "media": ("file", "signature"),
    "layout": LAYOUT,
}
KEY = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
PHONE = r"^\+?[0-9][0-9 ()./-]{4,24}$"
MAX_FIELDS = 200
MAX_OPTIONS = 100
MAX_UPLOAD_MB = 20
UPLOAD_TYPES = (
    "image/png",
    "image/jpeg",
    "image/gif",
    "image/webp",
    "application/pdf",
)


class FieldProblem(ValueError):
    """A field definition refused: `field` names the argument, the text is the problem, phrased."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(problem)
        self.field, self.problem = field, problem


def key_of(label: str, taken: set[str]) -> str:
    """A free key made from a label: lower case, underscores, numbered when taken."""
    base = re.sub(r"[^a-z0-9]+", "_", label.lower()).strip("_")[:36] or "field"
    if not base[0].isalpha():
        base = f"f_{base}"[:36]
    key, number = base, 1
    while key in taken:
        number += 1
        key = f"{base}_{number}"
    return key


def _text(raw: Any, where: str, limit: int, *, required: bool = False) -> str:
    value = "" if raw is None else raw
    if not isinstance(value, str):
        raise FieldProblem(where, _("must be text"))
    value = " ".join(value.split()) if limit <= 500 else value.strip()
    if required and not value:
        raise FieldProblem(where, _("is required"))
    if len(value) > limit:
        raise FieldProblem(where, _("is longer than {limit} characters").format(limit=limit))
    return value


def _number(raw: Any, where: str) -> float | int | None:
    if raw is None:
        return None
    if isinstance(raw, bool) or not isinstance(raw, (int, float)):
        raise FieldProblem(where, _("must be a number"))
    return raw


def clean_field(
    raw: Any, *, where: str, taken: set[str], groups: set[str], keep_key: str = ""
) -> dict[str, Any]:
    """A field definition checked and tidied (its key made from its label when not given)."""
    if not isinstance(raw, dict):
        raise FieldProblem(where, _("must be an object with a type and a label"))
    kind = raw.get("type")
    if kind not in TYPES:
        raise FieldProblem(f"{where}.type", _("must be one of {types}").format(types=", ".join(TYPES)))
    label = _text(raw.get("label"), f"{where}.label", 300, required=kind not in LAYOUT)
    field: dict[str, Any] = {"key": keep_key, "type": kind, "label": label}
    if not keep_key:
        given = raw.get("key")
        if given:
            if not isinstance(given, str) or not KEY.match(given):
                raise FieldProblem(
                    f"{where}.key",
                    _("must be lower-case letters, digits and underscores, starting with a letter"),
                )
            if given in taken:
                raise FieldProblem(
                    f"{where}.key", _("{key!r} is already a field of this form").format(key=given)
                )
            field["key"] = given
        else:
            field["key"] = key_of(label or kind, taken)
    group = raw.get("group") or ""
    if group and group not in groups:
        raise FieldProblem(f"{where}.group", _("{group!r} is not a group of this form").format(group=group))
    field["group"] = group
    if kind in LAYOUT:
        field["text"] = _text(raw.get("text"), f"{where}.text", 2000)
        return field
    field["required"] = bool(raw.get("required", False))
    field["help"] = _text(raw.get("help"), f"{where}.help", 500)
    if kind in ("text", "textarea"):
        most = 500 if kind == "text" else 5000
        field["maxLength"] = int(_number(raw.get("maxLength"), f"{where}.maxLength") or most)
        field["minLength"] = int(_number(raw.get("minLength"), f"{where}.minLength") or 0)
        if not 0 <= field["minLength"] <= field["maxLength"] <= most:
            raise FieldProblem(
                f"{where}.maxLength",
                _("lengths must be within 0 to {most}, the least first").format(most=most),
            )
    if kind == "number":
        low, high = _number(raw.get("min"), f"{where}.min"), _number(raw.get("max"), f"{where}.max")
        if low is not None and high is not None and low > high:
            raise FieldProblem(f"{where}.min", _("must not be more than max"))
        field["min"], field["max"] = low, high
    if kind == "choice":
        options = raw.get("options")
        if not isinstance(options, list) or not 0 < len(options) <= MAX_OPTIONS:
            raise FieldProblem(
                f"{where}.options", _("a choice needs a list of 1 to {most} options").format(most=MAX_OPTIONS)
            )
        cleaned = [_text(option, f"{where}.options", 200, required=True) for option in options]
        if len(set(cleaned)) != len(cleaned):
            raise FieldProblem(f"{where}.options", _("has the same option twice"))
        field["options"], field["multiple"] = cleaned, bool(raw.get("multiple", False))
    if kind == "checkbox":
        field["consentText"] = _text(raw.get("consentText"), f"{where}.consentText", 2000)
    if kind == "file":
        accept = raw.get("accept") or list(UPLOAD_TYPES)
        if not isinstance(accept, list) or any(kind not in UPLOAD_TYPES for kind in accept):
            raise FieldProblem(
                f"{where}.accept", _("takes types among {types}").format(types=", ".join(UPLOAD_TYPES))
            )
        size = _number(raw.get("maxSizeMb"), f"{where}.maxSizeMb") or 5
        if not 0 < size <= MAX_UPLOAD_MB:
            raise FieldProblem(
                f"{where}.maxSizeMb", _("must be above 0 and at most {most}").format(most=MAX_UPLOAD_MB)
            )
        field["accept"], field["maxSizeMb"] = list(dict.fromkeys(accept)), size
    if raw.get("showIf") is not None:
        field["showIf"] = raw["showIf"]
    return field


def check_conditions(fields: list[dict[str, Any]]) -> None:
    """Every condition reads fields of the form that come before it, and not itself."""
    before: set[str] = set()
    for index, field in enumerate(fields):
        condition = field.get("showIf")
        if condition is not None:
            try:
                conditions.check(condition, before)
            except conditions.ConditionError as error:
                raise FieldProblem(
                    f"fields[{index}].showIf",
                    _("{problem} (a condition reads answered fields placed before {key})").format(
                        problem=error, key=field["key"]
                    ),
                ) from None
        if field["type"] in ANSWERED:
            before.add(field["key"])


def answered(definition: dict[str, Any]) -> list[dict[str, Any]]:
    return [field for field in definition.get("fields", []) if field["type"] in ANSWERED]


def _property(field: dict[str, Any]) -> dict[str, Any]:
    kind = field["type"]
    if kind in ("text", "textarea"):
        schema: dict[str, Any] = {"type": "string", "maxLength": field["maxLength"]}
        if field.get("minLength"):
            schema["minLength"] = field["minLength"]
        return schema
    if kind == "number":
        schema = {"type": "number"}
        if field.get("min") is not None:
            schema["minimum"] = field["min"]
        if field.get("max") is not None:
            schema["maximum"] = field["max"]
        return schema
    if kind == "date":
        return {"type": "string", "format": "date"}
    if kind == "email":
        return {"type": "string", "format": "email", "maxLength": 254}
    if kind == "phone":
        return {"type": "string", "pattern": PHONE}
    if kind == "choice":
        if field.get("multiple"):
            return {"type": "array", "items": {"enum": field["options"]}, "uniqueItems": True, "minItems": 1}
        return {"enum": field["options"]}
    if kind == "checkbox":
        return {"const": True} if field.get("required") else {"type": "boolean"}
    if kind == "file":
        return {
            "type": "object",
            "properties": {
                "fileId": {"type": "integer", "minimum": 1},
                "name": {"type": "string"},
                "mimeType": {"enum": field["accept"]},
                "size": {"type": "integer", "maximum": int(field["maxSizeMb"] * 1024 * 1024)},
            },
            "required": ["fileId", "mimeType", "size"],
        }
    return {"type": "string", "minLength": 2, "maxLength": 200}  # a signature: the signer's typed name


def json_schema(definition: dict[str, Any], *, title: str = "") -> dict[str, Any]:
    """The JSON Schema (Draft 2020-12) of a version's answers. Required fields without a condition
    are `required`; conditions stay in the definition (checked by `validate`)."""
    fields = answered(definition)
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {field["key"]: {**_property(field), "title": field["label"]} for field in fields},
        "required": [field["key"] for field in fields if field.get("required") and "showIf" not in field],
        "additionalProperties": False,
    }
    if title:
        schema["title"] = title
    return schema


_formats = FormatChecker(formats=())


@_formats.checks("email", raises=ValidationError)
def _email(value: object) -> bool:
    if isinstance(value, str):
        validate_email(value)
    return True


@_formats.checks("date", raises=ValueError)
def _date(value: object) -> bool:
    if isinstance(value, str):
        date.fromisoformat(value)
        if len(value) != 10:
            raise ValueError(value)
    return True


def shown(definition: dict[str, Any], answers: dict[str, Any]) -> set[str]:
    """The keys of the fields shown for these answers (a field whose condition fails is hidden)."""
    visible: dict[str, Any] = {}
    keys = set()
    for field in answered(definition):
        condition = field.get("showIf")
        if condition is None or conditions.holds(condition, visible):
            keys.add(field["key"])
            visible[field["key"]] = answers.get(field["key"])
    return keys


def validate(
    definition: dict[str, Any], schema: dict[str, Any], answers: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """The answers kept (hidden and empty ones dropped), and each failing field's problems."""
    problems: dict[str, list[str]] = {}
    fields = {field["key"]: field for field in answered(definition)}
    unknown = sorted(set(answers) - set(fields))
    for key in unknown:
        problems[key] = [_("is not a field of this form")]
    visible = shown(definition, answers)
    kept = {
        key: value
        for key, value in answers.items()
        if key in visible and not conditions.blank(value) and value is not False
    }
    for key in visible:
        field = fields[key]
        if field.get("required") and key not in kept:
            problems.setdefault(key, []).append(
                _("must be ticked") if field["type"] == "checkbox" else _("is required")
            )
    for key, value in kept.items():
        problem = _unkept(key, fields.get(key, {}), value)
        if problem is not None:
            problems.setdefault(key, []).append(problem)
    validator = Draft202012Validator({**schema, "required": []}, format_checker=_formats)
    for error in sorted(validator.iter_errors(kept), key=lambda error: list(error.absolute_path)):
        path = list(error.absolute_path)
        if not path:
            continue
        key = str(path[0])
        problems.setdefault(key, []).append(_problem(error, fields.get(key, {})))
    return kept, problems


def _texts(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [text for part in value for text in _texts(part)]
    if isinstance(value, dict):
        return [text for part in [*value, *value.values()] for text in _texts(part)]
    return []


def _unkept(key: str, field: dict[str, Any], value: Any) -> str | None:
    """What no store keeps or no later read takes, which the JSON Schema lets by: a NUL or a lone
    surrogate in a text, a number that is not finite (NaN passes every bound), a date far out of
    the kit's years."""
    for text in _texts(value):
        problem = json_input.text_problem(text)
        if problem is not None:
            return problem
    if isinstance(value, float) and not math.isfinite(value):
        return _("must be a finite number")
    if field.get("type") == "date" and isinstance(value, str):
        try:
            clean.in_years(date.fromisoformat(value), field=key)
        except ValueError:
            return None  # the format's own check names it
        except AppError as error:
            return str((error.details or {}).get(key, [error.message])[0])
    return None


def _problem(error: Any, field: dict[str, Any]) -> str:
    kind, rule = error.validator, error.validator_value
    if kind == "format":
        return _("is not a valid {format}").format(
            format=_("e-mail address") if rule == "email" else _("date (YYYY-MM-DD)")
        )
    if kind == "maxLength":
        return _("is longer than {limit} characters").format(limit=rule)
    if kind == "minLength":
        return _("is shorter than {limit} characters").format(limit=rule)
    if kind == "minimum":
        return _("must be at least {limit}").format(limit=rule)
    if kind == "maximum":
        if list(error.absolute_path)[1:] == ["size"]:
            return _("the file is larger than {limit} MB").format(limit=field.get("maxSizeMb"))
        return _("must be at most {limit}").format(limit=rule)
    if kind == "enum":
        if list(error.absolute_path)[1:] == ["mimeType"]:
            return _("the file's type is not one of {types}").format(types=", ".join(rule))
        return _("must be one of: {options}").format(options=", ".join(map(str, rule)))
    if kind == "pattern":
        return _("is not a phone number (digits, spaces, + ( ) - . /)")
    if kind == "const":
        return _("must be ticked")
    if kind == "type":
        names = {
            "string": _("text"),
            "number": _("a number"),
            "integer": _("a whole number"),
            "boolean": _("true or false"),
            "array": _("a list"),
            "object": _("an uploaded file"),
        }
        return _("must be {type}").format(type=names.get(str(rule), str(rule)))
    if kind == "uniqueItems":
        return _("names an option twice")
    return str(error.message)
