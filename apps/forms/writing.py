"""Fields a model proposes for a form (generateTextFields, generateChoiceFields,
generateMediaFields, generateLayoutFields), through the service's model backends
(apps.core.modelcalls, which the message gateway fills; each call metered against the caller's API
key like the gateway's own). The model answers a JSON object `{"fields": [...]}` of the kinds the
tool asks for; every field is then checked like one a person gives (apps.forms.lib.fields)."""

import json
from dataclasses import dataclass
from typing import Any

from apps.core import modelcalls
from apps.forms import errors
from apps.forms.lib.fields import KINDS

SHAPES = {
    "text": 'text (one line), textarea (several lines), number ("min", "max"), date, email, phone',
    "choice": 'choice ("options": a list of texts, "multiple": true for several answers), checkbox '
    '("consentText": the exact words agreed to, for a consent)',
    "media": 'file ("accept": MIME types among image/png, image/jpeg, image/gif, image/webp, '
    'application/pdf; "maxSizeMb"), signature (the signer types their full name)',
    "layout": 'heading (a section title: "label" its title, "text" optional), paragraph (instructions: '
    '"text")',
}


@dataclass(frozen=True)
class Proposed:
    fields: list[dict[str, Any]]
    model: str
    cost_micro_usd: int


def _failure(error: modelcalls.ModelCallError, tool: str) -> Exception:
    if isinstance(error, modelcalls.NotConfigured):
        return errors.FormModelNotConfigured(tool=tool, problem=error.problem)
    if isinstance(error, modelcalls.NoApiKey):
        return errors.FormModelNeedsApiKey(tool=tool)
    assert isinstance(error, modelcalls.CallFailed)
    return errors.FormModelCallFailed(tool=tool, problem=error.problem)


def propose(
    *, api_key_id: int | None, tool: str, kind: str, brief: str, count: int, form: dict[str, Any]
) -> Proposed:
    system = (
        "You design web forms. For the form the user describes (JSON: its title, description, the "
        f"labels of the fields it has, and what to add), propose at most {count} new fields of these "
        f'types only: {SHAPES[kind]}. Each field is an object with "type", "label", optional '
        '"required" (true or false) and "help". Do not repeat fields the form has. Answer with one '
        'JSON object {"fields": [...]} and nothing else.'
    )
    try:
        answer = modelcalls.provider().write(
            api_key_id=api_key_id,
            system=system,
            text=json.dumps({**form, "add": brief}, ensure_ascii=False),
            max_tokens=4000,
            purpose=tool,
        )
    except modelcalls.ModelCallError as error:
        raise _failure(error, tool) from None
    if answer.cut:
        raise errors.FormModelCallFailed(tool=tool, problem="its answer was cut at the most tokens allowed")
    fields = _fields(answer.text)
    if fields is None:
        raise errors.FormModelCallFailed(tool=tool, problem="its answer was not the JSON object asked for")
    wanted = [field for field in fields if isinstance(field, dict) and field.get("type") in KINDS[kind]][
        :count
    ]
    if not wanted:
        raise errors.FormModelCallFailed(tool=tool, problem="it proposed no field of the kind asked for")
    allowed = {
        "type",
        "label",
        "required",
        "help",
        "options",
        "multiple",
        "min",
        "max",
        "consentText",
        "accept",
        "maxSizeMb",
        "text",
        "minLength",
        "maxLength",
    }
    cleaned = [{name: value for name, value in field.items() if name in allowed} for field in wanted]
    return Proposed(cleaned, answer.model, answer.cost_micro_usd)


def _fields(text: str) -> list[Any] | None:
    body = text.strip()
    start, end = body.find("{"), body.rfind("}")
    try:
        answer = json.loads(body[start : end + 1]) if start >= 0 and end > start else None
    except ValueError:
        return None
    fields = answer.get("fields") if isinstance(answer, dict) else None
    return fields if isinstance(fields, list) else None
