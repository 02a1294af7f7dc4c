"""Custom field values through the kinds' own tools (apps.catalogue.customfields): given to the
create and update tools of contacts, deals and tasks as `customFields`, checked before anything is
written, written with the record, shown by their get tools, and deleted with the record."""

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.catalogue.dispatch import ToolNotFound
from apps.catalogue.testing import call, confirmed, ok, person_with, refused
from apps.contacts.models import Contact
from apps.contacts.tests.factories import ContactFactory
from apps.deals.models import Deal
from apps.deals.tests.factories import DealFactory
from apps.platform.models import CustomFieldValue
from apps.tasks.models import Task
from apps.tasks.tests.factories import TaskFactory

pytestmark = pytest.mark.django_db

CONFIRM = {"capabilities": {"elicitation": {}}, "elicit": confirmed}
# Per kind: its create tool's arguments, the tool names, the id argument and where the record is
# in the create and update answers.
KINDS: dict[str, dict[str, Any]] = {
    "contacts": {
        "create": ("createContact", {"contact": {"firstName": "Ada", "lastName": "Lovelace"}}),
        "get": "getContact",
        "update": "updateContact",
        "id": "contactId",
        "created": lambda answer: answer["contact"],
        "model": Contact,
    },
    "deals": {
        "create": ("createDeal", {"title": "Acme: 40 seats", "value": 1000}),
        "get": "getDeal",
        "update": "updateDeal",
        "id": "dealId",
        "created": lambda answer: answer,
        "model": Deal,
    },
    "tasks": {
        "create": ("createTask", {"title": "Renew the lease"}),
        "get": "getTask",
        "update": "updateTask",
        "id": "taskId",
        "created": lambda answer: answer,
        "model": Task,
    },
}


def define(admin: Any, kind: str, key: str, type: str, **more: Any) -> None:
    ok(
        admin,
        "manageCustomFields",
        {"action": "create", "kind": kind, "key": key, "label": key.title(), "type": type, **more},
        **CONFIRM,
    )


def fields(admin: Any, kind: str) -> None:
    define(admin, kind, "tier", "choice", choices=["gold", "silver"])
    define(admin, kind, "budget", "number")


@pytest.mark.parametrize("kind", list(KINDS))
def test_values_are_given_on_create_and_update_and_shown_by_the_get_tool(acme, people, kind):
    spec = KINDS[kind]
    fields(people["admin"], kind)
    member = people["member"]
    name, arguments = spec["create"]

    created = spec["created"](ok(member, name, {**arguments, "customFields": {"tier": "gold", "budget": 12}}))
    record_id = created["id"]
    assert created["customFields"] == {"tier": "gold", "budget": 12}

    changed = ok(
        member,
        spec["update"],
        {spec["id"]: record_id, "changes": {}, "customFields": {"budget": 20.5, "tier": None}},
    )
    assert changed["changed"] == ["customFields"]
    again = ok(
        member, spec["update"], {spec["id"]: record_id, "changes": {}, "customFields": {"budget": 20.5}}
    )
    assert again["changed"] == []  # the same value again changes nothing
    # Both who may change it and who only reads it see the values.
    for who in ("member", "viewer"):
        assert ok(people[who], spec["get"], {spec["id"]: record_id})["customFields"] == {"budget": 20.5}
    assert ok(member, "listCustomFields", {"kind": kind, "recordId": record_id})["values"] == {"budget": 20.5}


@pytest.mark.parametrize("kind", list(KINDS))
def test_a_bad_value_names_its_key_and_nothing_is_created(acme, people, kind):
    spec = KINDS[kind]
    fields(people["admin"], kind)
    define(people["admin"], kind, "gone", "text")
    ok(people["admin"], "manageCustomFields", {"action": "archive", "kind": kind, "key": "gone"}, **CONFIRM)
    other = "deals" if kind != "deals" else "tasks"
    define(people["admin"], other, "elsewhere", "text")
    name, arguments = spec["create"]
    before = spec["model"].objects.count()

    wrong = refused(people["member"], name, {**arguments, "customFields": {"tier": "bronze"}})
    typed = refused(people["member"], name, {**arguments, "customFields": {"budget": "a lot"}})
    archived = refused(people["member"], name, {**arguments, "customFields": {"gone": "x"}})
    of_another_kind = refused(people["member"], name, {**arguments, "customFields": {"elsewhere": "x"}})

    assert "'bronze' is not a value of 'tier'" in wrong
    assert "'budget'" in typed and "a number" in typed
    assert "'gone' is archived" in archived
    assert f"The {kind} have no custom field 'elsewhere'" in of_another_kind
    assert spec["model"].objects.count() == before
    assert not CustomFieldValue.objects.exists()


@pytest.mark.parametrize("kind", list(KINDS))
def test_a_required_field_is_needed_to_create_and_may_not_be_cleared(acme, people, kind):
    spec = KINDS[kind]
    define(people["admin"], kind, "region", "text", required=True)
    name, arguments = spec["create"]
    before = spec["model"].objects.count()

    missing = refused(people["member"], name, arguments)
    assert (
        "'region' is a required field: give it a value" in missing and spec["model"].objects.count() == before
    )

    created = spec["created"](ok(people["member"], name, {**arguments, "customFields": {"region": "North"}}))
    cleared = refused(
        people["member"],
        spec["update"],
        {spec["id"]: created["id"], "changes": {}, "customFields": {"region": None}},
    )
    assert "region" in cleared
    assert ok(people["member"], spec["get"], {spec["id"]: created["id"]})["customFields"] == {
        "region": "North"
    }


def test_an_update_refused_for_its_fields_writes_no_values(acme, people):
    define(people["admin"], "contacts", "budget", "number")
    contact = ContactFactory(actor=people["member"])

    message = refused(
        people["member"],
        "updateContact",
        {"contactId": contact.pk, "changes": {"email": "not an address"}, "customFields": {"budget": 3}},
    )

    assert "email" in message.lower()
    assert not CustomFieldValue.objects.exists()


def test_an_update_without_changes_or_values_is_still_nothing_to_change(acme, people):
    deal = DealFactory(actor=people["member"])
    assert "Say what to change" in refused(people["member"], "updateDeal", {"dealId": deal.pk, "changes": {}})


def test_values_of_a_record_one_may_not_see_are_never_shown_or_written(acme, people):
    define(people["admin"], "contacts", "tier", "text")
    private = ContactFactory(actor=people["member"], visibility="private")
    ok(
        people["member"],
        "updateContact",
        {"contactId": private.pk, "changes": {}, "customFields": {"tier": "secret"}},
    )
    other = person_with({"contacts.view", "contacts.edit"}, email="colleague@acme.example")

    read = refused(other, "getContact", {"contactId": private.pk})
    write = refused(
        other, "updateContact", {"contactId": private.pk, "changes": {}, "customFields": {"tier": "x"}}
    )

    assert "not found" in read and "not found" in write and "secret" not in read + write
    assert list(CustomFieldValue.objects.values_list("value", flat=True)) == ["secret"]


def test_a_viewer_cannot_give_values(acme, people):
    define(people["admin"], "contacts", "tier", "text")
    with pytest.raises(ToolNotFound):
        call(
            people["viewer"], "createContact", {"contact": {"firstName": "X"}, "customFields": {"tier": "a"}}
        )
    assert not CustomFieldValue.objects.exists()


def test_archived_fields_are_not_shown(acme, people):
    define(people["admin"], "tasks", "tier", "text")
    define(people["admin"], "tasks", "old", "text")
    task = TaskFactory(actor=people["member"])
    ok(
        people["member"],
        "updateTask",
        {"taskId": task.pk, "changes": {}, "customFields": {"tier": "a", "old": "b"}},
    )
    ok(people["admin"], "manageCustomFields", {"action": "archive", "kind": "tasks", "key": "old"}, **CONFIRM)

    assert ok(people["viewer"], "getTask", {"taskId": task.pk})["customFields"] == {"tier": "a"}


@pytest.mark.parametrize(
    ("kind", "make"), [("contacts", ContactFactory), ("deals", DealFactory), ("tasks", TaskFactory)]
)
def test_a_record_deleted_for_good_takes_its_values(acme, people, kind, make):
    define(people["admin"], kind, "tier", "text")
    gone, kept = make(actor=people["member"]), make(actor=people["member"])
    for record in (gone, kept):
        ok(
            people["member"],
            "setCustomFieldValues",
            {"kind": kind, "recordId": record.pk, "values": {"tier": "a"}},
        )

    if kind == "tasks":
        gone.steps.all().delete()  # a step keeps its column (PROTECT) until it goes
    type(gone).objects.filter(pk=gone.pk).delete()

    assert list(CustomFieldValue.objects.values_list("record_id", flat=True)) == [kept.pk]


def statements(user: Any, name: str, arguments: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The tool's answer and the SQL statements it ran (the tool-call log's row aside)."""
    with CaptureQueriesContext(connection) as captured:
        answer = ok(user, name, arguments)
    return answer, [q["sql"] for q in captured.captured_queries if "catalogue_toolcall" not in q["sql"]]


def test_get_contact_reads_its_values_in_its_one_statement(acme, people):
    contact = ContactFactory(actor=people["member"])

    answer, without_fields = statements(people["viewer"], "getContact", {"contactId": contact.pk})
    assert answer["customFields"] == {} and len(without_fields) == 1

    define(people["admin"], "contacts", "tier", "text")
    ok(
        people["member"],
        "setCustomFieldValues",
        {"kind": "contacts", "recordId": contact.pk, "values": {"tier": "a"}},
    )
    answer, with_fields = statements(people["viewer"], "getContact", {"contactId": contact.pk})
    assert answer["customFields"] == {"tier": "a"} and len(with_fields) == 1


@pytest.mark.parametrize(("kind", "make"), [("deals", DealFactory), ("tasks", TaskFactory)])
def test_get_deal_and_get_task_read_the_values_with_the_record(acme, people, kind, make):
    spec = KINDS[kind]
    record = make(actor=people["member"])
    arguments = {spec["id"]: record.pk}

    answer, without_fields = statements(people["viewer"], spec["get"], arguments)
    assert answer["customFields"] == {}

    define(people["admin"], kind, "tier", "text")
    ok(
        people["member"],
        "setCustomFieldValues",
        {"kind": kind, "recordId": record.pk, "values": {"tier": "a"}},
    )
    answer, with_fields = statements(people["viewer"], spec["get"], arguments)
    # No statement more than before, with fields or without: the values come with the record.
    assert answer["customFields"] == {"tier": "a"} and len(with_fields) == len(without_fields)
    assert any("JSONB_OBJECT_AGG" in sql for sql in with_fields)


def _validate(user: Any, text: str) -> dict[str, Any]:
    return ok(user, "validateDataImport", {"entityType": "contact", "csvText": text})


def test_an_import_gives_values_in_cf_columns_checked_as_the_create_tools_check_them(acme, people):
    define(people["admin"], "contacts", "tier", "choice", choices=["gold", "silver"])
    define(people["admin"], "contacts", "budget", "number")
    define(people["admin"], "contacts", "vip", "boolean")
    member = people["member"]
    text = (
        "firstName,email,CF:Tier,cf:budget,cf:vip\n"
        "Ada,ada@fields.example,gold,12.5,yes\n"
        "Bad,bad@fields.example,bronze,3,no\n"
        "Worse,worse@fields.example,silver,a lot,\n"
        "Plain,plain@fields.example,,,\n"
    )

    plan = _validate(member, text)
    assert {(p["row"], p["column"]) for p in plan["problems"]} == {(3, "cf:tier"), (4, "cf:budget")}
    assert "'bronze' is not a value of 'tier'" in plan["problems"][0]["problem"]
    assert not CustomFieldValue.objects.exists()

    made = ok(member, "commitDataImport", {"token": plan["token"], "skipInvalidRows": True}, **CONFIRM)[
        "createdIds"
    ]
    ada, plain = (Contact.objects.get(pk=pk) for pk in made)
    assert ok(member, "getContact", {"contactId": ada.pk})["customFields"] == {
        "tier": "gold",
        "budget": 12.5,
        "vip": True,
    }
    assert ok(member, "getContact", {"contactId": plain.pk})["customFields"] == {}


def test_an_import_refuses_an_unknown_field_and_rows_without_a_required_one(acme, people):
    define(people["admin"], "contacts", "region", "text", required=True)
    member = people["member"]

    plan = _validate(member, "firstName,email,cf:nope\nAda,ada@fields.example,x\n")
    assert (
        plan["problems"][0]["column"] == "cf:nope"
        and "no custom field 'nope'" in plan["problems"][0]["problem"]
    )

    plan = _validate(member, "firstName,email\nAda,ada@fields.example\n")
    assert plan["problems"][0]["column"] == "cf:region" and "required" in plan["problems"][0]["problem"]
    # A kind without custom fields (or an unknown column) is refused with the known columns.
    assert "cf:<key>" in refused(
        member, "validateDataImport", {"entityType": "contact", "csvText": "nope\nx\n"}
    )
