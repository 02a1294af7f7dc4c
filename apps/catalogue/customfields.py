"""Custom field values through the kinds' own tools, declared once for every kind:
`@tool(..., custom_fields=FieldsOf("contacts", "create", answer="contact"))`.

- `create` and `update` tools take a `customFields` argument ({key: value}, null clearing one on an
  update). The values are checked against the kind's fields before the tool runs (an unknown or
  archived field, a value of the wrong type, a required field cleared, or left out of a create:
  refused with the field's key, nothing written), then written for the record the answer names, in
  the tool's own transaction, so the record and its values are made together or not at all. An
  update that sends only `customFields` changes only them (`changes` may be empty).
- `get` tools answer the record's values (of the fields not archived) as `customFields`: read with
  the record where its read is one statement (`apps.core.customfields.annotate` and `seen`), else
  in one query of their own. The record is the one the tool answered about: the tool has already
  refused one its reader may not see.
- `answer` is where the record's shape is in the tool's answer: the attribute path ("" for the
  answer itself, "contact" for `CreatedContactOut.contact`); the shape must have an `id`. The
  tool's output model is made again with `customFields` there; the shape's other uses keep their
  schema.

The fields themselves (listCustomFields, manageCustomFields) and the values' checks are the
Platform area's (apps.platform.fields), reached through `apps.core.customfields`.
"""

import functools
import inspect
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from contextvars import ContextVar
from copy import copy
from dataclasses import dataclass
from typing import Annotated, Any, Literal, get_type_hints

from pydantic import BaseModel, Field, WithJsonSchema, create_model

from apps.core import customfields

# Any JSON value: each is checked against its field (apps.platform.fields), so the schema says
# no more than an object (each word of it is read on every tools/list).
CustomFieldValues = Annotated[
    dict[str, Any],
    WithJsonSchema({"type": "object", "description": "{key: value}, null clears; keys: listCustomFields"}),
    Field(max_length=100),
]
ValuesOut = Annotated[dict[str, Any], Field(description="Its custom fields by key")]
ARGUMENT = "custom_fields"

# Set while an update runs with values: an empty `changes` is then not "nothing to change".
values_given: ContextVar[bool] = ContextVar("custom_values_given", default=False)


@dataclass(frozen=True)
class FieldsOf:
    kind: str  # the kind's key in apps.platform.fields.KINDS: contacts, deals, tasks
    role: Literal["create", "update", "get"]
    answer: str = ""

    @property
    def path(self) -> tuple[str, ...]:
        return tuple(self.answer.split(".")) if self.answer else ()


def wrapped(function: Callable[..., Any], fields_of: FieldsOf) -> Callable[..., Any]:
    """The tool's function with the custom fields of its kind (the module's docstring): its
    signature takes `custom_fields` (create, update), its answer gives them."""
    hints = get_type_hints(function, include_extras=True)
    answer_model = hints.get("return")
    if not (inspect.isclass(answer_model) and issubclass(answer_model, BaseModel)):
        raise TypeError(f"{function.__qualname__}: custom fields need an output model")
    answer = with_values(answer_model, fields_of.path)
    takes = fields_of.role != "get"

    @functools.wraps(function)
    def tool(ctx: Any, **kwargs: Any) -> Any:
        given = kwargs.pop(ARGUMENT, None) if takes else None
        provider = customfields.fields()
        creating = fields_of.role == "create"
        # Checked before the tool writes anything; a create checks the required fields even
        # without values.
        cleaned = (
            provider.clean(fields_of.kind, given or {}, creating=creating) if given or creating else None
        )
        token = values_given.set(bool(given))
        try:
            reads: AbstractContextManager[dict[tuple[str, int], dict[str, Any]]] = nullcontext({})
            if not takes:
                reads = customfields.reading()
            with reads as noted:
                result = function(ctx, **kwargs)
        finally:
            values_given.reset(token)
        record_id = _at(result, fields_of.path).id
        if takes:
            before = provider.read(fields_of.kind, record_id) if cleaned and not creating else {}
            if cleaned:
                provider.write(fields_of.kind, record_id, cleaned)
            values = provider.read(fields_of.kind, record_id)
            if values != before and isinstance(getattr(result, "changed", None), list):
                result.changed.append("customFields")
        else:
            read = noted.get((fields_of.kind, record_id))
            values = read if read is not None else provider.read(fields_of.kind, record_id)
        return _extended(result, answer, fields_of.path, values)

    signature = inspect.signature(function)
    parameters = list(signature.parameters.values())
    annotations = {name: hint for name, hint in hints.items() if name != "return"}
    if takes:
        parameters.append(inspect.Parameter(ARGUMENT, inspect.Parameter.KEYWORD_ONLY, default={}))
        annotations[ARGUMENT] = CustomFieldValues
    tool.__signature__ = signature.replace(parameters=parameters, return_annotation=answer)  # type: ignore[attr-defined]
    tool.__annotations__ = {**annotations, "return": answer}
    del tool.__wrapped__  # its signature and hints are its own
    return tool


def with_values(model: type[BaseModel], path: tuple[str, ...]) -> type[BaseModel]:
    """The output model with `customFields` on the record's shape at `path`."""
    if not path:
        return create_model(f"{model.__name__}WithFields", __base__=model, custom_fields=(ValuesOut, ...))
    name, info = path[0], model.model_fields[path[0]]
    inner = info.annotation
    if not (inspect.isclass(inner) and issubclass(inner, BaseModel)):
        raise TypeError(f"{model.__name__}.{name} is not a shape: custom fields cannot be put there")
    field = copy(info)
    field.annotation = with_values(inner, path[1:])
    return create_model(f"{model.__name__}WithFields", __base__=model, **{name: (field.annotation, field)})  # type: ignore[call-overload]


def _at(result: Any, path: tuple[str, ...]) -> Any:
    for name in path:
        result = getattr(result, name)
    return result


def _extended(
    result: BaseModel, model: type[BaseModel], path: tuple[str, ...], values: dict[str, Any]
) -> Any:
    data = {name: getattr(result, name) for name in type(result).model_fields}
    if path:
        inner = model.model_fields[path[0]].annotation
        data[path[0]] = _extended(data[path[0]], inner, path[1:], values)  # type: ignore[arg-type]
    else:
        data["custom_fields"] = values
    return model.model_construct(**data)
