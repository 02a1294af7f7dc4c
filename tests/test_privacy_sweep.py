"""The privacy sweep: a person's private records reach nobody else through any read tool.

The workspace's owner makes private records in every area that has them, and records linked to
them or made from them (each area's `apps.core.factories.privacy_rows`, in its
tests/factories.py), with a marker in every text field. Then a member and a viewer call every
read tool they have (read-only, or named as a reading: list, search, get, examine...) with
arguments made from the tool's input schema: the private records' ids wherever an argument takes
one, and, in a second call, the marker as every free-text argument (a query, a name, a filter).
The marker must appear in no answer, error or warning.

The marker is written in lower case in the records and sent in upper case in the arguments:
every search here ignores case, so the call finds what it would, and an answer that only quotes
the caller's own words back is not taken for a leak.

An area whose models hold private rows (a visibility, or rows their owners' alone) and that
declares none fails here: a new area joins the sweep by its declaration.
"""

import json
import re
from collections.abc import Iterator
from datetime import date, timedelta
from typing import Any

import pytest
from django.apps import apps
from django.db import connection, transaction
from django.utils import timezone

from apps.catalogue import registry
from apps.catalogue.dispatch import MemorySession
from apps.catalogue.testing import call
from apps.core import kinds
from apps.core.actors import can
from apps.core.factories import PrivateRows, privacy_builders
from apps.core.records import Access

MARKER = "zqprivmark"
SENT = MARKER.upper()
READERS = ("member", "viewer")
READING = re.compile(r"^(list|search|get|examine|find|read|download|count|describe|check)[A-Z]")
# Ids that are surely no record's, for the id arguments no private record is declared for.
NOBODY = 2**31 - 1


def read_tools() -> list[registry.ToolSpec]:
    return [
        spec
        for spec in registry.all_tools()
        if not spec.fixture and (spec.read_only or READING.match(spec.name))
    ]


READ_TOOLS = read_tools()


def _private_areas() -> set[str]:
    """The areas with a model whose rows may be someone's alone."""
    found = set()
    for model in apps.get_models():
        access = getattr(model, "access", None)
        if not isinstance(access, Access) or access.through:
            continue
        has_visibility = any(field.name == "visibility" for field in model._meta.concrete_fields)
        if (access.visibility == "field" and has_visibility) or access.visibility == "owner":
            found.add(model._meta.app_label)
    return found


@pytest.fixture(scope="module")
def private(django_db_setup, django_db_blocker) -> Iterator[dict[str, list[Any]]]:  # type: ignore[no-untyped-def]
    """Every area's private records, made once for the module in a transaction that is never
    committed (each test's own changes are undone within it)."""
    from apps.accounts.models import User
    from apps.tenancy.models import Workspace

    with django_db_blocker.unblock():
        connection.set_tenant(Workspace.objects.get(schema_name="acme"))
        outer = transaction.atomic()
        outer.__enter__()
        try:
            people = {role: User.objects.get(email=f"{role}@acme.example") for role in ("owner", *READERS)}
            rows = PrivateRows()
            for make in privacy_builders().values():
                make(people, MARKER, rows)
            yield rows.records
        finally:
            transaction.set_rollback(True)
            outer.__exit__(None, None, None)
            connection.set_schema_to_public()


def test_every_area_with_private_records_declares_them():
    missing = _private_areas() - set(privacy_builders())
    assert not missing, (
        f"areas with private records but none made for the privacy sweep: {sorted(missing)}; register "
        "them in the area's tests/factories.py with apps.core.factories.privacy_rows(<area>)"
    )


# --- arguments from the schema -----------------------------------------------------------------


def _resolved(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = root.get("$defs", {})[schema["$ref"].rsplit("/", 1)[-1]]
    for key in ("anyOf", "oneOf"):
        if key in schema:
            options = [option for option in schema[key] if option.get("type") != "null"]
            if options:
                return _resolved(options[0], root)
    return schema


class Arguments:
    """The arguments of one call: `variant` picks among the private records an id argument
    takes; `text` puts the marker in every free-text argument, optional ones too."""

    def __init__(self, private: dict[str, list[Any]], variant: int, text: bool) -> None:
        self.private, self.variant, self.text = private, variant, text

    def of(self, schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
        schema = _resolved(schema, root)
        properties = schema.get("properties", {})
        required = set(schema.get("required", []))
        made: dict[str, Any] = {}
        for name, inner in properties.items():
            value = self.value(name, _resolved(inner, root), root, name in required)
            if value is not None:
                made[name] = value
        if "entityId" in made and "entityType" in properties:
            record = self.record("entityId")
            kind = kinds.kind_of(record) if record is not None else None
            if kind is not None:
                made["entityType"] = kind.key
        return made

    def record(self, name: str) -> Any:
        records = self.private.get(name) or []
        return records[self.variant % len(records)] if records else None

    def value(self, name: str, schema: dict[str, Any], root: dict[str, Any], required: bool) -> Any:
        kind = schema.get("type")
        if kind in ("integer", "array") and (
            records := self.private.get(name) or self.private.get(name[:-1])
        ):
            record = records[self.variant % len(records)]
            return [record.pk] if kind == "array" else record.pk
        free_text = kind == "string" and not {"enum", "const", "format", "pattern"} & set(schema)
        if not required and not (self.text and free_text):
            return None
        if "const" in schema:
            return schema["const"]
        if "enum" in schema:
            return schema["enum"][0]
        if "default" in schema and schema["default"] is not None:
            return schema["default"]
        if kind == "string":
            return self.string(schema)
        if kind == "integer":
            return max(schema.get("minimum", 1), 1) if not name.endswith("Id") else NOBODY
        if kind == "number":
            return max(schema.get("minimum", 1), 1)
        if kind == "boolean":
            return False
        if kind == "array":
            item = _resolved(schema.get("items", {}), root)
            return [self.value(name, item, root, True) for _ in range(schema.get("minItems", 0))]
        if kind == "object":
            return self.of(schema, root)
        return None

    def string(self, schema: dict[str, Any]) -> str:
        shape = schema.get("format")
        if shape == "date":
            return date.today().isoformat()
        if shape == "date-time":
            return (timezone.now() + timedelta(days=1)).isoformat()
        if shape == "email":
            return f"{SENT.lower()}@example.org"
        if "pattern" in schema:
            return ""
        return SENT[: schema.get("maxLength", len(SENT))]


def calls(spec: registry.ToolSpec, private: dict[str, list[Any]]) -> list[dict[str, Any]]:
    schema = spec.definition["inputSchema"]
    taken = [name for name in schema.get("properties", {}) if name in private or name[:-1] in private]
    variants = max((len(private.get(name) or private.get(name[:-1]) or []) for name in taken), default=1)
    made = [Arguments(private, variant, text=False).of(schema, schema) for variant in range(variants)]
    made.append(Arguments(private, 0, text=True).of(schema, schema))
    unique: list[dict[str, Any]] = []
    for arguments in made:
        if arguments not in unique:
            unique.append(arguments)
    return unique


def leaked(answer: dict[str, Any]) -> str:
    """The part of an answer that holds the marker (the caller's own words taken out, as sent
    or in the lower case of an address they gave; no private value is the marker alone), or ""."""
    blocks = [block.get("text", "") for block in answer.get("content", [])]
    rest = {key: value for key, value in answer.items() if key != "content"}
    text = "\n".join([json.dumps(rest, ensure_ascii=False, default=str), *blocks]).replace(SENT, "")
    text = text.replace(json.dumps(MARKER), "").replace(json.dumps(f"{MARKER}@example.org"), "")
    at = text.lower().find(MARKER)
    return "" if at < 0 else text[max(0, at - 150) : at + 150]


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("spec", READ_TOOLS, ids=lambda spec: spec.name)
def test_no_read_tool_shows_another_persons_private_records(private, people, spec, reader):
    person = people[reader]
    if not can(person, spec.permission):
        pytest.skip(f"not the {reader}'s tool")
    session = MemorySession()
    for first in registry.all_tools():
        if first.is_first_call and can(person, first.permission):
            call(person, first.name, {}, session=session)
    found = []
    for arguments in calls(spec, private):
        with transaction.atomic():
            answer = call(person, spec.name, arguments, session=session)
        if part := leaked(answer):
            found.append(f"{spec.name}({arguments}) as the {reader}: ...{part}...")
    assert not found, "\n".join(found)


def test_the_sweep_reads_the_private_records_it_made(private, people):
    """The sweep is no sweep if the records are not there to be found: their owner finds them."""
    owner = people["owner"]
    answer = call(owner, "getContact", {"contactId": private["contactId"][0].pk})
    assert MARKER in json.dumps(answer).lower()
    assert {"contactId", "fileId", "documentId", "dealId", "taskId", "eventId"} <= set(private)
