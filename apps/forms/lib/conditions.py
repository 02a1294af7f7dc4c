"""A field's condition (`showIf`): a small JSON-logic style expression over the other answers,
evaluated by walking it (no `eval`, no code): a fixed set of operators, nothing else accepted.

    {"field": "country", "op": "eq", "value": "DE"}
    {"all": [{"field": "age", "op": "gte", "value": 18}, {"field": "consent", "op": "filled"}]}
    {"any": [...]}    {"not": {...}}

Comparisons: eq, ne, in, notIn (value a list), gt, gte, lt, lte (numbers or ISO dates as text),
contains (a multiple choice holds the value, or a text contains it), filled, empty (no value).
"""

import operator
from typing import Any

from django.utils.translation import gettext as _

COMPARISONS = ("eq", "ne", "in", "notIn", "gt", "gte", "lt", "lte", "contains", "filled", "empty")
MAX_DEPTH = 6
MAX_PARTS = 50


class ConditionError(ValueError):
    """A condition that is not one this evaluator reads; its text is the problem, phrased."""


def check(condition: Any, keys: set[str], *, depth: int = 0) -> list[str]:
    """The keys a condition reads, or ConditionError naming what is wrong with it."""
    if depth > MAX_DEPTH:
        raise ConditionError(_("is nested more than {depth} levels deep").format(depth=MAX_DEPTH))
    if not isinstance(condition, dict) or not condition:
        raise ConditionError(
            _("must be an object such as {example}").format(example='{"field": "x", "op": "filled"}')
        )
    for joiner in ("all", "any"):
        if joiner in condition:
            parts = condition[joiner]
            if set(condition) != {joiner} or not isinstance(parts, list) or not 0 < len(parts) <= MAX_PARTS:
                raise ConditionError(
                    _("{joiner} takes a list of 1 to {most} conditions").format(joiner=joiner, most=MAX_PARTS)
                )
            return [key for part in parts for key in check(part, keys, depth=depth + 1)]
    if "not" in condition:
        if set(condition) != {"not"}:
            raise ConditionError(_("not takes one condition and nothing beside it"))
        return check(condition["not"], keys, depth=depth + 1)
    field, op = condition.get("field"), condition.get("op")
    if set(condition) - {"field", "op", "value"}:
        raise ConditionError(
            _("knows only field, op and value (or all, any, not), not {names}").format(
                names=", ".join(sorted(set(condition) - {"field", "op", "value"}))
            )
        )
    if not isinstance(field, str) or field not in keys:
        raise ConditionError(_("names no field of this form: {field!r}").format(field=field))
    if op not in COMPARISONS:
        raise ConditionError(_("op {op!r} is not one of {ops}").format(op=op, ops=", ".join(COMPARISONS)))
    if op in ("in", "notIn") and not isinstance(condition.get("value"), list):
        raise ConditionError(_("{op} takes a list as its value").format(op=op))
    if op not in ("filled", "empty") and "value" not in condition:
        raise ConditionError(_("{op} needs a value").format(op=op))
    return [field]


def holds(condition: Any, answers: dict[str, Any]) -> bool:
    """Whether the (checked) condition holds for these answers."""
    if "all" in condition:
        return all(holds(part, answers) for part in condition["all"])
    if "any" in condition:
        return any(holds(part, answers) for part in condition["any"])
    if "not" in condition:
        return not holds(condition["not"], answers)
    answer, op, value = answers.get(condition["field"]), condition["op"], condition.get("value")
    if op == "filled":
        return not blank(answer)
    if op == "empty":
        return blank(answer)
    if blank(answer):
        return op in ("ne", "notIn")
    if op == "eq":
        return bool(answer == value)
    if op == "ne":
        return bool(answer != value)
    if op == "in":
        return answer in value
    if op == "notIn":
        return answer not in value
    if op == "contains":
        return value in answer if isinstance(answer, (list, str)) else False
    return _compare(answer, op, value)


ORDER = {"gt": operator.gt, "gte": operator.ge, "lt": operator.lt, "lte": operator.le}


def _compare(answer: Any, op: str, value: Any) -> bool:
    """Numbers with numbers, texts (ISO dates) with texts; anything else does not compare."""
    if isinstance(answer, bool) or isinstance(value, bool):
        return False
    if isinstance(answer, (int, float)) and isinstance(value, (int, float)):
        return bool(ORDER[op](float(answer), float(value)))
    if isinstance(answer, str) and isinstance(value, str):
        return bool(ORDER[op](answer, value))
    return False


def blank(answer: Any) -> bool:
    return answer is None or answer == "" or answer == [] or answer == {}
