"""A segment's rules on contact fields: checked (an unknown field or operator, a value of the
wrong kind, each a clear error naming the rule), and made into one query on contacts.

A rule is {"field": "country", "op": "equals", "value": "DE"}. Fields are a contact's, by their
names in the catalogue (`firstName`, `tags`, `createdAt`), or a custom value `data.<key>`."""

from datetime import date
from typing import Any

from django.db.models import Q
from django.utils.translation import gettext as _

from apps.core import clean
from apps.core.errors import invalid

TEXT_OPS = ("equals", "notEquals", "contains", "startsWith", "in", "isEmpty", "isNotEmpty")
LIST_OPS = ("has", "hasNot", "isEmpty", "isNotEmpty")
DATE_OPS = ("before", "after", "isEmpty", "isNotEmpty")
NO_VALUE = ("isEmpty", "isNotEmpty")
# The catalogue's name of a field: (the contact's field, its kind).
FIELDS: dict[str, tuple[str, str]] = {
    "email": ("email", "text"),
    "firstName": ("first_name", "text"),
    "lastName": ("last_name", "text"),
    "organisationName": ("organisation_name", "text"),
    "company": ("company", "text"),
    "jobTitle": ("job_title", "text"),
    "city": ("city", "text"),
    "region": ("region", "text"),
    "postalCode": ("postal_code", "text"),
    "country": ("country", "text"),
    "source": ("source", "text"),
    "lifecycleStage": ("lifecycle_stage", "text"),
    "kind": ("kind", "text"),
    "tags": ("tags", "list"),
    "createdAt": ("created_at", "date"),
    "lastContactedAt": ("last_contacted_at", "date"),
}
OPS = {"text": TEXT_OPS, "list": LIST_OPS, "date": DATE_OPS}
MAX_RULES = 30


def _kind(name: str) -> tuple[str, str] | None:
    if name.startswith("data.") and len(name) > 5 and name[5:].replace("_", "").isalnum():
        return f"data__{name[5:]}", "text"
    return FIELDS.get(name)


def checked(rules: Any) -> list[dict[str, Any]]:
    """The rules, checked and tidied; the first wrong one refused with its place (`rules[2].field`)."""
    if not isinstance(rules, list):
        raise invalid("rules", _("must be a list of rules"))
    if len(rules) > MAX_RULES:
        raise invalid("rules", _("at most {limit} rules"), limit=MAX_RULES)
    tidy = []
    for index, rule in enumerate(rules):
        where = f"rules[{index}]"
        if not isinstance(rule, dict):
            raise invalid(where, _("must be an object with field, op and value"))
        name = str(rule.get("field") or "")
        found = _kind(name)
        if found is None:
            raise invalid(
                f"{where}.field",
                _("{field!r} is not a contact field a segment can use; known: {known}, or data.<key>"),
                field=name,
                known=", ".join(FIELDS),
            )
        kind = found[1]
        op = str(rule.get("op") or "")
        if op not in OPS[kind]:
            raise invalid(
                f"{where}.op",
                _("{op!r} does not apply to {field}; use one of {ops}"),
                op=op,
                field=name,
                ops=", ".join(OPS[kind]),
            )
        tidy.append({"field": name, "op": op, "value": _value(where, kind, op, rule.get("value"))})
    return tidy


def _value(where: str, kind: str, op: str, value: Any) -> Any:
    if op in NO_VALUE:
        return None
    if op == "in":
        if not isinstance(value, list) or not value or len(value) > 100:
            raise invalid(f"{where}.value", _("must be a list of 1 to 100 values for {op}"), op=op)
        return [str(item)[:200] for item in value]
    if isinstance(value, list | dict):
        # One value: a list's text ("['vip']") would match nobody, silently.
        raise invalid(f"{where}.value", _("must be one value for {op}; a list is for in"), op=op)
    if kind == "date":
        try:
            day = date.fromisoformat(str(value))
        except ValueError:
            raise invalid(f"{where}.value", _("must be a date such as 2026-01-31")) from None
        return clean.in_years(day, field=f"{where}.value").isoformat()
    text = " ".join(str(value if value is not None else "").split())
    if not text or len(text) > 200:
        raise invalid(f"{where}.value", _("must be 1 to 200 characters for {op}"), op=op)
    return text.lower() if kind == "list" else text


def query(rules: list[dict[str, Any]], match: str) -> Q:
    """The condition on contacts that the (checked) rules make; no rule: every contact."""
    parts = [_rule(rule) for rule in rules]
    if not parts:
        return Q()
    combined = parts[0]
    for part in parts[1:]:
        combined = combined | part if match == "any" else combined & part
    return combined


def _rule(rule: dict[str, Any]) -> Q:
    column, kind = _kind(rule["field"]) or ("", "text")
    op, value = rule["op"], rule["value"]
    if kind == "list":
        empty = Q(**{column: []})
        return {
            "has": Q(**{f"{column}__contains": [value]}),
            "hasNot": ~Q(**{f"{column}__contains": [value]}),
            "isEmpty": empty,
            "isNotEmpty": ~empty,
        }[op]
    if kind == "date":
        empty = Q(**{f"{column}__isnull": True})
        return {
            "before": Q(**{f"{column}__date__lt": value}),
            "after": Q(**{f"{column}__date__gte": value}),
            "isEmpty": empty,
            "isNotEmpty": ~empty,
        }[op]
    empty = Q(**{f"{column}__isnull": True}) | Q(**{column: ""})
    return {
        "equals": Q(**{f"{column}__iexact": value}),
        "notEquals": ~Q(**{f"{column}__iexact": value}),
        "contains": Q(**{f"{column}__icontains": value}),
        "startsWith": Q(**{f"{column}__istartswith": value}),
        "in": Q(**{f"{column}__in": value}),
        "isEmpty": empty,
        "isNotEmpty": ~empty,
    }[op]
