"""Custom fields through the Platform area's tools: administrators define the fields of contacts,
deals and tasks; everyone who sees the kind reads them; values are set on a record by whoever may
change it, checked against the field, and never shown or named for a record its reader may not
see. Per tool a normal call, bad input and a refusal."""

import pytest

from apps.catalogue.dispatch import ToolNotFound
from apps.catalogue.testing import call, confirmed, ok, person_with, refused
from apps.contacts.tests.factories import ContactFactory
from apps.core import privacy
from apps.deals.tests.factories import DealFactory
from apps.platform.models import CustomField, CustomFieldValue
from apps.tasks.tests.factories import TaskFactory

pytestmark = pytest.mark.django_db

CONFIRM = {"capabilities": {"elicitation": {}}, "elicit": confirmed}


def industry(admin) -> dict:  # type: ignore[no-untyped-def]
    return ok(
        admin,
        "manageCustomFields",
        {
            "action": "create",
            "kind": "contacts",
            "key": "industry",
            "label": "Industry",
            "type": "choice",
            "choices": ["retail", "energy"],
        },
        **CONFIRM,
    )["field"]


def test_an_admin_defines_a_field_and_everyone_who_sees_contacts_reads_it(acme, people):
    made = industry(people["admin"])
    ok(
        people["owner"],
        "manageCustomFields",
        {"action": "create", "kind": "deals", "key": "renewal", "label": "Renewal", "type": "date"},
        **CONFIRM,
    )

    assert made["key"] == "industry" and made["choices"] == ["retail", "energy"] and made["order"] == 0
    for who in ("member", "viewer"):
        listed = ok(people[who], "listCustomFields", {"kind": "contacts"})["fields"]
        assert [(f["key"], f["type"], f["recordsWithValue"]) for f in listed] == [("industry", "choice", 0)]
    every = ok(people["member"], "listCustomFields", {})["fields"]
    assert {(f["kind"], f["key"]) for f in every} == {("contacts", "industry"), ("deals", "renewal")}

    changed = ok(
        people["admin"],
        "manageCustomFields",
        {"action": "update", "kind": "contacts", "key": "industry", "label": "Sector", "required": True},
        **CONFIRM,
    )["field"]
    assert (changed["label"], changed["required"], changed["choices"]) == (
        "Sector",
        True,
        ["retail", "energy"],
    )


def test_bad_definitions_are_refused_and_write_nothing(acme, people):
    admin = people["admin"]
    no_choices = refused(
        admin,
        "manageCustomFields",
        {"action": "create", "kind": "contacts", "key": "tier", "label": "Tier", "type": "choice"},
        **CONFIRM,
    )
    bad_key = refused(
        admin,
        "manageCustomFields",
        {"action": "create", "kind": "contacts", "key": "9 Lives!", "label": "x", "type": "text"},
        **CONFIRM,
    )
    industry(admin)
    twice = refused(
        admin,
        "manageCustomFields",
        {"action": "create", "kind": "contacts", "key": "industry", "label": "x", "type": "text"},
        **CONFIRM,
    )
    unknown = refused(
        admin, "manageCustomFields", {"action": "archive", "kind": "deals", "key": "nope"}, **CONFIRM
    )

    assert "needs its choices" in no_choices
    assert "cannot be a field's key" in bad_key
    assert "already have a field 'industry'" in twice
    assert "no custom field 'nope'" in unknown
    assert list(CustomField.objects.values_list("key", flat=True)) == ["industry"]


def test_only_admins_manage_fields(acme, people):
    for who in ("member", "viewer"):
        with pytest.raises(ToolNotFound):
            call(
                people[who],
                "manageCustomFields",
                {"action": "create", "kind": "contacts", "key": "x", "label": "X", "type": "text"},
                **CONFIRM,
            )
    assert not CustomField.objects.exists()


def test_a_role_that_may_not_see_a_kind_does_not_read_its_fields(acme, people):
    industry(people["admin"])
    person = person_with({"platform.view", "deals.view"}, email="deals-only@acme.example")

    assert "may not see contacts" in refused(person, "listCustomFields", {"kind": "contacts"})
    assert ok(person, "listCustomFields", {})["fields"] == []


def test_values_are_set_checked_and_read_with_the_record(acme, people):
    industry(people["admin"])
    member = people["member"]
    contact = ContactFactory(actor=member)

    answer = ok(
        member,
        "setCustomFieldValues",
        {"kind": "contacts", "recordId": contact.pk, "values": {"industry": "retail"}},
    )
    wrong = refused(
        member,
        "setCustomFieldValues",
        {"kind": "contacts", "recordId": contact.pk, "values": {"industry": "mining"}},
    )
    unknown = refused(
        member, "setCustomFieldValues", {"kind": "contacts", "recordId": contact.pk, "values": {"size": 3}}
    )
    read = ok(people["viewer"], "listCustomFields", {"kind": "contacts", "recordId": contact.pk})

    assert answer["values"] == {"industry": "retail"}
    assert "'mining' is not a value of 'industry': one of retail, energy" in wrong
    assert "no custom field 'size'" in unknown
    assert read["values"] == {"industry": "retail"}
    assert read["fields"][0]["recordsWithValue"] == 1
    assert list(CustomFieldValue.objects.values_list("value", flat=True)) == ["retail"]


def test_a_value_is_checked_by_type_and_a_required_one_stays(acme, people):
    admin = people["admin"]
    for key, type in (("size", "number"), ("since", "date"), ("vip", "boolean")):
        ok(
            admin,
            "manageCustomFields",
            {
                "action": "create",
                "kind": "contacts",
                "key": key,
                "label": key,
                "type": type,
                "required": True,
            },
            **CONFIRM,
        )
    contact = ContactFactory(actor=admin)
    args = {"kind": "contacts", "recordId": contact.pk}

    good = ok(
        admin, "setCustomFieldValues", {**args, "values": {"size": 12, "since": "2024-02-29", "vip": True}}
    )
    assert good["values"] == {"size": 12, "since": "2024-02-29", "vip": True}
    assert "a date, YYYY-MM-DD" in refused(
        admin, "setCustomFieldValues", {**args, "values": {"since": "2023-02-29"}}
    )
    assert "a number" in refused(
        admin, "setCustomFieldValues", {**args, "values": {"size": "12", "vip": False}}
    )
    assert "cannot be cleared" in refused(admin, "setCustomFieldValues", {**args, "values": {"vip": None}})
    # All or nothing: the refused calls changed none of the values.
    assert ok(admin, "listCustomFields", {**args})["values"] == good["values"]


def test_a_record_one_may_not_see_is_never_read_written_or_named(acme, people):
    industry(people["admin"])
    owner_of_it = people["member"]
    private = ContactFactory(actor=owner_of_it, visibility="private")
    ok(
        owner_of_it,
        "setCustomFieldValues",
        {"kind": "contacts", "recordId": private.pk, "values": {"industry": "energy"}},
    )
    other = person_with(
        {"platform.view", "platform.fields", "contacts.view", "contacts.edit"}, email="colleague@acme.example"
    )

    read = refused(other, "listCustomFields", {"kind": "contacts", "recordId": private.pk})
    write = refused(
        other,
        "setCustomFieldValues",
        {"kind": "contacts", "recordId": private.pk, "values": {"industry": "mining"}},
    )
    # A viewer changes no record: the tool is not theirs at all.
    with pytest.raises(ToolNotFound):
        call(
            people["viewer"],
            "setCustomFieldValues",
            {"kind": "contacts", "recordId": private.pk, "values": {"x": 1}},
        )

    for message in (read, write):
        assert "energy" not in message and "mining" not in message and "industry" not in message
    assert "not found" in read and "not found" in write
    assert list(CustomFieldValue.objects.values_list("value", flat=True)) == ["energy"]


def test_a_field_with_values_is_archived_or_deleted_only_when_confirmed(acme, people):
    admin = people["admin"]
    industry(admin)
    contact = ContactFactory(actor=admin)
    ok(
        admin,
        "setCustomFieldValues",
        {"kind": "contacts", "recordId": contact.pk, "values": {"industry": "retail"}},
    )
    args = {"kind": "contacts", "key": "industry"}

    archived = ok(admin, "manageCustomFields", {"action": "archive", **args}, **CONFIRM)["field"]
    assert archived["archivedAt"] is not None and archived["recordsWithValue"] == 1
    assert ok(admin, "listCustomFields", {"kind": "contacts"})["fields"] == []
    assert "is archived" in refused(
        admin,
        "setCustomFieldValues",
        {"kind": "contacts", "recordId": contact.pk, "values": {"industry": "energy"}},
    )
    ok(admin, "manageCustomFields", {"action": "restore", **args}, **CONFIRM)

    unasked = call(admin, "manageCustomFields", {"action": "delete", **args})
    assert unasked.get("structuredContent", {}).get("action") != "delete"
    assert CustomFieldValue.objects.count() == 1
    missing = call(admin, "manageCustomFields", {"action": "delete", "kind": "contacts", "key": "nope"})
    assert missing["isError"] is True and "no custom field 'nope'" in str(missing)

    deleted = ok(admin, "manageCustomFields", {"action": "delete", **args}, **CONFIRM)
    assert deleted == {"action": "delete", "field": None, "valuesDeleted": 1}
    assert not CustomField.objects.exists() and not CustomFieldValue.objects.exists()


def test_the_values_of_a_persons_contact_go_with_their_data(acme, people):
    industry(people["admin"])
    contact = ContactFactory(actor=people["member"], email="ada@lovelace.example")
    kept = ContactFactory(actor=people["member"], email="someone@else.example")
    for record in (contact, kept):
        ok(
            people["member"],
            "setCustomFieldValues",
            {"kind": "contacts", "recordId": record.pk, "values": {"industry": "energy"}},
        )
    subject = privacy.Subject(email="ada@lovelace.example", user=None, workspace=acme)
    handler = next(h for h in privacy.handlers() if h.label == "platform.customfieldvalue")

    assert [row["record_id"] for row in handler.export(subject)] == [contact.pk]
    handler.erase(subject)
    assert list(CustomFieldValue.objects.values_list("record_id", flat=True)) == [kept.pk]


@pytest.mark.parametrize(("kind", "make"), [("deals", DealFactory), ("tasks", TaskFactory)])
def test_deals_and_tasks_hold_values_too_and_keep_their_private_ones(acme, people, kind, make):
    ok(
        people["admin"],
        "manageCustomFields",
        {"action": "create", "kind": kind, "key": "budget", "label": "Budget", "type": "number"},
        **CONFIRM,
    )
    mine = make(actor=people["member"], visibility="private")
    args = {"kind": kind, "recordId": mine.pk}

    assert ok(people["member"], "setCustomFieldValues", {**args, "values": {"budget": 2500.5}})["values"] == {
        "budget": 2500.5
    }
    assert ok(people["member"], "listCustomFields", args)["values"] == {"budget": 2500.5}
    other = person_with({"platform.view", f"{kind}.view", f"{kind}.edit"}, email=f"other-{kind}@acme.example")
    message = refused(other, "listCustomFields", args)
    assert "not found" in message and "2500" not in message
    assert CustomFieldValue.objects.get().value == 2500.5
