"""queryContacts: conditions on any contact field, turned into one database query."""

from datetime import date, datetime
from typing import Any

from django.db.models import Q, QuerySet
from django.utils.dateparse import parse_date, parse_datetime
from django.utils.translation import gettext as _

from apps.contacts.models import Contact
from apps.core.errors import FieldInvalid, invalid

# camelCase field -> (ORM path, kind)
FIELDS: dict[str, tuple[str, str]] = {
    "kind": ("kind", "choice"),
    "firstName": ("first_name", "text"),
    "lastName": ("last_name", "text"),
    "organisationName": ("organisation_name", "text"),
    "email": ("email", "text"),
    "phone": ("phone", "text"),
    "mobile": ("mobile", "text"),
    "jobTitle": ("job_title", "text"),
    "company": ("company", "text"),
    "organisationId": ("organisation_id", "number"),
    "website": ("website", "text"),
    "street": ("street", "text"),
    "city": ("city", "text"),
    "region": ("region", "text"),
    "postalCode": ("postal_code", "text"),
    "country": ("country", "text"),
    "birthday": ("birthday", "date"),
    "notes": ("notes", "text"),
    "tags": ("tags", "tags"),
    "lifecycleStage": ("lifecycle_stage", "choice"),
    "source": ("source", "text"),
    "ownerEmail": ("owner__email", "text"),
    "visibility": ("visibility", "choice"),
    "health": ("effective_health", "choice"),
    "lastContactedAt": ("last_contacted_at", "datetime"),
    "createdAt": ("created_at", "datetime"),
    "updatedAt": ("updated_at", "datetime"),
    "archived": ("deleted_at", "archived"),
}
OPS = {
    "text": {"eq", "ne", "contains", "startsWith", "in", "isEmpty", "isNotEmpty"},
    "choice": {"eq", "ne", "in"},
    "number": {"eq", "ne", "in", "gt", "gte", "lt", "lte", "isEmpty", "isNotEmpty"},
    "date": {"eq", "ne", "gt", "gte", "lt", "lte", "isEmpty", "isNotEmpty"},
    "datetime": {"gt", "gte", "lt", "lte", "isEmpty", "isNotEmpty"},
    "tags": {"contains", "in", "isEmpty", "isNotEmpty"},
    "archived": {"eq"},
    "data": {"eq", "ne", "contains", "gt", "gte", "lt", "lte", "in", "isEmpty", "isNotEmpty"},
}
RANGE = {"gt": "gt", "gte": "gte", "lt": "lt", "lte": "lte"}


def _bad(index: int, problem: Any, **facts: Any) -> FieldInvalid:
    return invalid(f"filters[{index}]", problem, **facts)


def _scalar(index: int, kind: str, value: Any) -> Any:
    if kind == "date":
        parsed = parse_date(str(value)) if not isinstance(value, date) else value
        if parsed is None:
            raise _bad(index, _("{value!r} is not a date (YYYY-MM-DD)"), value=value)
        return parsed
    if kind == "datetime":
        parsed = parse_datetime(str(value)) if not isinstance(value, datetime) else value
        if parsed is None:
            day = parse_date(str(value))
            if day is None:
                raise _bad(index, _("{value!r} is not a date-time (ISO 8601)"), value=value)
            parsed = datetime(day.year, day.month, day.day)
        if parsed.tzinfo is None:
            from django.utils import timezone

            parsed = timezone.make_aware(parsed)
        return parsed
    if kind == "number":
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise _bad(index, _("{value!r} is not a number"), value=value)
        return value
    if kind in ("text", "choice", "tags"):
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            raise _bad(index, _("{value!r} is not a text value"), value=value)
        text = str(value)
        return text.lower() if kind == "tags" else text
    return value


def condition(index: int, field: str, op: str, value: Any) -> Q:
    if field.startswith("data."):
        key = field[5:]
        if not key or len(key) > 64:
            raise _bad(index, _("name a business field as data.<key>"))
        path, kind = f"data__{key}", "data"
    elif field in FIELDS:
        path, kind = FIELDS[field]
    else:
        raise _bad(
            index,
            _("{field!r} is not a field; use one of {fields} or data.<key>"),
            field=field,
            fields=", ".join(FIELDS),
        )
    if op not in OPS[kind]:
        raise _bad(
            index,
            _("{op!r} does not apply to {field}; use one of {ops}"),
            op=op,
            field=field,
            ops=", ".join(sorted(OPS[kind])),
        )
    if kind == "archived":
        if not isinstance(value, bool):
            raise _bad(index, _("archived takes true or false"))
        return Q(deleted_at__isnull=not value)
    if op in ("isEmpty", "isNotEmpty"):
        if kind == "tags":
            empty = Q(tags=[])
        elif kind == "data":
            empty = Q(**{f"{path}__isnull": True})
        elif kind in ("text",):
            empty = Q(**{path: ""}) | Q(**{f"{path}__isnull": True})
        else:
            empty = Q(**{f"{path}__isnull": True})
        return empty if op == "isEmpty" else ~empty
    if op == "in":
        if not isinstance(value, list) or not value or len(value) > 100:
            raise _bad(index, _("`in` takes a list of 1-100 values"))
        values = [value if kind == "data" else _scalar(index, kind, item) for item in value]
        if kind == "tags":
            return Q(tags__overlap=values)
        if kind == "data":
            return Q(**{f"{path}__in": value})
        return Q(**{f"{path}__in": values})
    if value is None:
        raise _bad(index, _("{op} needs a value"), op=op)
    if kind == "data":
        if op == "contains":
            return Q(**{f"{path}__icontains": str(value)})
        if op in RANGE:
            return Q(**{f"{path}__{RANGE[op]}": value})
        return Q(**{path: value}) if op == "eq" else ~Q(**{path: value})
    value = _scalar(index, kind, value)
    if kind == "tags":
        return Q(tags__contains=[value])
    if op == "eq":
        return Q(**{f"{path}__iexact" if kind == "text" else path: value})
    if op == "ne":
        return ~Q(**{f"{path}__iexact" if kind == "text" else path: value})
    if op == "contains":
        return Q(**{f"{path}__icontains": value})
    if op == "startsWith":
        return Q(**{f"{path}__istartswith": value})
    return Q(**{f"{path}__{RANGE[op]}": value})


def apply(rows: QuerySet[Contact], filters: list[Any], match: str) -> QuerySet[Contact]:
    conditions = [condition(index, item.field, item.op, item.value) for index, item in enumerate(filters)]
    if not conditions:
        return rows
    combined = conditions[0]
    for extra in conditions[1:]:
        combined = combined | extra if match == "any" else combined & extra
    return rows.filter(combined)
