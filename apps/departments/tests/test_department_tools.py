"""The Departments tools through call_tool: per tool a normal call, bad input and a refusal, and
what a person would do with them."""

import pytest

from apps.catalogue.dispatch import ToolNotFound
from apps.catalogue.testing import call, confirmed, ok, person_without, refused
from apps.contacts.tests.factories import ContactFactory
from apps.departments.models import Department, DepartmentContact, Member
from apps.departments.tests.factories import DepartmentFactory

TOOLS = {
    "createDepartment": ("departments.edit", {"department": {"name": "X"}}),
    "updateDepartment": ("departments.edit", {"departmentId": 1, "changes": {}}),
    "deleteDepartment": ("departments.delete", {"departmentId": 1}),
    "getDepartment": ("departments.view", {"departmentId": 1}),
    "listDepartments": ("departments.view", {}),
    "searchDepartments": ("departments.view", {"query": "x"}),
    "addMemberToDepartment": ("departments.edit", {"departmentId": 1, "personEmail": "a@b.c"}),
    "removeMemberFromDepartment": ("departments.edit", {"departmentId": 1, "personEmail": "a@b.c"}),
    "linkContactToDepartment": ("departments.edit", {"departmentId": 1, "contactId": 1}),
    "unlinkContactFromDepartment": ("departments.edit", {"departmentId": 1, "contactId": 1}),
}


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_a_role_without_the_permission_cannot_call_it(acme, name):
    permission, arguments = TOOLS[name]
    person = person_without(permission, email=f"no-{name.lower()}@acme.example")

    with pytest.raises(ToolNotFound):
        call(person, name, arguments)


@pytest.mark.parametrize("name", [name for name, (perm, _a) in TOOLS.items() if perm != "departments.view"])
def test_viewers_only_read_departments(people, name):
    with pytest.raises(ToolNotFound):
        call(people["viewer"], name, TOOLS[name][1])


@pytest.mark.parametrize(
    ("name", "arguments", "said"),
    [
        ("getDepartment", {"departmentId": 999999}, "Department 999999 was not found"),
        (
            "updateDepartment",
            {"departmentId": 999999, "changes": {"name": "X"}},
            "Department 999999 was not found",
        ),
        ("deleteDepartment", {"departmentId": 999999}, "Department 999999 was not found"),
        (
            "addMemberToDepartment",
            {"departmentId": 999999, "personEmail": "member@acme.example"},
            "was not found",
        ),
        ("linkContactToDepartment", {"departmentId": 999999, "contactId": 1}, "was not found"),
        ("getDepartment", {"departmentId": "sales"}, "`departmentId`"),
        ("listDepartments", {"limit": 500}, "`limit`"),
        ("searchDepartments", {"query": ""}, "`query`"),
    ],
)
def test_unknown_ids_and_bad_values_are_clear_errors(people, name, arguments, said):
    assert said in refused(
        people["admin"], name, arguments, capabilities={"elicitation": {}}, elicit=confirmed
    )


def test_create_and_get_a_department_with_a_head_and_a_parent(people):
    company = DepartmentFactory(actor=people["admin"], name="Operations")

    created = ok(
        people["member"],
        "createDepartment",
        {
            "department": {
                "name": "  Field   service ",
                "email": "FIELD@acme.example",
                "parentId": company.pk,
                "headEmail": "viewer@acme.example",
            }
        },
    )
    answer = ok(people["viewer"], "getDepartment", {"departmentId": created["id"]})

    assert answer["name"] == "Field service"
    assert answer["email"] == "field@acme.example"
    assert answer["parent"] == {"id": company.pk, "name": "Operations"}
    assert answer["head"]["email"] == "viewer@acme.example"
    assert ok(people["viewer"], "getDepartment", {"departmentId": company.pk})["parts"] == [
        {"id": created["id"], "name": "Field service"}
    ]


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        ({"name": "Sales"}, "already a department called"),
        ({"name": "New", "email": "not-mail"}, "not a valid e-mail"),
        ({"name": "New", "headEmail": "ghost@acme.example"}, "Nobody in this workspace"),
        ({"name": "New", "parentId": 999999}, "Department 999999 was not found"),
        ({"description": "no name"}, "name"),
        ({"name": "New", "budget": 5}, "not an argument"),
    ],
)
def test_create_refuses_bad_input_and_writes_nothing(people, fields, said):
    DepartmentFactory(actor=people["admin"], name="sales")
    count = Department.objects.count()

    assert said in refused(people["member"], "createDepartment", {"department": fields})
    assert Department.objects.count() == count


def test_update_changes_only_what_is_sent_and_refuses_a_cycle(people):
    top = DepartmentFactory(actor=people["admin"], name="Top", description="Keep me")
    child = DepartmentFactory(actor=people["admin"], name="Child", parent_id=top.pk)

    answer = ok(
        people["member"],
        "updateDepartment",
        {"departmentId": top.pk, "changes": {"name": "Head office", "headEmail": "member@acme.example"}},
    )

    assert answer["changed"] == ["name", "head"]
    assert answer["department"]["description"] == "Keep me"
    assert "cannot be part of itself" in refused(
        people["member"], "updateDepartment", {"departmentId": top.pk, "changes": {"parentId": child.pk}}
    )
    assert Department.objects.get(pk=top.pk).parent is None


def test_delete_is_destructive_soft_and_moves_parts_up(people):
    top = DepartmentFactory(actor=people["admin"], name="Top")
    middle = DepartmentFactory(actor=people["admin"], name="Middle", parent_id=top.pk)
    bottom = DepartmentFactory(actor=people["admin"], name="Bottom", parent_id=middle.pk)

    asked = call(people["admin"], "deleteDepartment", {"departmentId": middle.pk})
    assert asked["isError"] is True and "Confirmation required" in asked["content"][0]["text"]
    assert Department.objects.get(pk=middle.pk).deleted_at is None

    answer = ok(
        people["admin"],
        "deleteDepartment",
        {"departmentId": middle.pk},
        capabilities={"elicitation": {}},
        elicit=confirmed,
    )

    assert answer == {"id": middle.pk, "name": "Middle", "partsMovedUp": 1}
    assert Department.objects.get(pk=bottom.pk).parent_id == top.pk
    # Deleted: named so, with who can bring it back (the code stays NOT_FOUND).
    gone = refused(people["viewer"], "getDepartment", {"departmentId": middle.pk})
    assert f"Department {middle.pk} is deleted" in gone and "Departments page" in gone


def test_members_may_not_delete_departments(people):
    with pytest.raises(ToolNotFound):
        call(
            people["member"],
            "deleteDepartment",
            {"departmentId": DepartmentFactory(actor=people["admin"]).pk},
        )


def test_list_and_search_with_counts(people):
    sales = DepartmentFactory(actor=people["admin"], name="Sales", description="Selling engines")
    DepartmentFactory(actor=people["admin"], name="Support", parent_id=sales.pk)
    ok(
        people["member"],
        "addMemberToDepartment",
        {"departmentId": sales.pk, "personEmail": "viewer@acme.example"},
    )

    listed = ok(people["viewer"], "listDepartments", {})
    top = ok(people["viewer"], "listDepartments", {"topLevel": True})
    parts = ok(people["viewer"], "listDepartments", {"parentId": sales.pk})
    by_word = ok(people["viewer"], "searchDepartments", {"query": "engines"})
    by_member = ok(people["viewer"], "searchDepartments", {"query": "viewer@acme"})

    assert [item["name"] for item in listed["items"]] == ["Sales", "Support"]
    assert listed["items"][0]["members"] == 1
    assert [item["name"] for item in top["items"]] == ["Sales"]
    assert [item["name"] for item in parts["items"]] == ["Support"]
    assert [item["id"] for item in by_word["items"]] == [sales.pk]
    assert [item["id"] for item in by_member["items"]] == [sales.pk]


def test_members_are_added_with_a_role_changed_and_removed(people):
    department = DepartmentFactory(actor=people["admin"])

    first = ok(
        people["member"],
        "addMemberToDepartment",
        {"departmentId": department.pk, "personEmail": "Viewer@acme.example", "role": "engineer"},
    )
    again = ok(
        people["member"],
        "addMemberToDepartment",
        {"departmentId": department.pk, "personEmail": "viewer@acme.example", "role": "engineer"},
    )
    promoted = ok(
        people["member"],
        "addMemberToDepartment",
        {"departmentId": department.pk, "personEmail": "viewer@acme.example", "role": "lead"},
    )

    assert (first["changed"], again["changed"], promoted["changed"]) == (True, False, True)
    assert Member.objects.get(department=department).role == "lead"
    ok(
        people["member"],
        "removeMemberFromDepartment",
        {"departmentId": department.pk, "personEmail": "viewer@acme.example"},
    )
    assert not Member.objects.filter(department=department).exists()
    assert "is not a member" in refused(
        people["member"],
        "removeMemberFromDepartment",
        {"departmentId": department.pk, "personEmail": "viewer@acme.example"},
    )
    assert "Nobody in this workspace" in refused(
        people["member"],
        "addMemberToDepartment",
        {"departmentId": department.pk, "personEmail": "stranger@example.org"},
    )


def test_contacts_are_linked_with_a_role_and_unlinked(people):
    department = DepartmentFactory(actor=people["admin"])
    contact = ContactFactory(actor=people["member"], first_name="Grace", email="grace@navy.example")

    linked = ok(
        people["member"],
        "linkContactToDepartment",
        {"departmentId": department.pk, "contactId": contact.pk, "role": "buyer"},
    )
    shown = ok(people["viewer"], "getDepartment", {"departmentId": department.pk})

    assert linked["linked"] and linked["changed"] and linked["contact"]["displayName"] == "Grace"
    assert [(row["contact"]["id"], row["role"], row["email"]) for row in shown["contacts"]] == [
        (contact.pk, "buyer", "grace@navy.example")
    ]
    ok(
        people["member"],
        "unlinkContactFromDepartment",
        {"departmentId": department.pk, "contactId": contact.pk},
    )
    assert not DepartmentContact.objects.exists()
    assert "is not linked" in refused(
        people["member"],
        "unlinkContactFromDepartment",
        {"departmentId": department.pk, "contactId": contact.pk},
    )
    assert "Contact 999999 was not found" in refused(
        people["member"], "linkContactToDepartment", {"departmentId": department.pk, "contactId": 999999}
    )


def test_a_private_contact_is_neither_linked_nor_shown_to_others(people):
    department = DepartmentFactory(actor=people["admin"])
    private = ContactFactory(actor=people["owner"], first_name="Secret", visibility="private")

    assert "was not found" in refused(
        people["member"], "linkContactToDepartment", {"departmentId": department.pk, "contactId": private.pk}
    )
    ok(people["owner"], "linkContactToDepartment", {"departmentId": department.pk, "contactId": private.pk})

    assert ok(people["member"], "getDepartment", {"departmentId": department.pk})["contacts"] == []
    assert len(ok(people["owner"], "getDepartment", {"departmentId": department.pk})["contacts"]) == 1


def test_the_settings_page_shows_departments_and_restores_a_deleted_one(people, acme_client):
    kept = DepartmentFactory(actor=people["admin"], name="Visible dept")
    ok(
        people["member"],
        "addMemberToDepartment",
        {"departmentId": kept.pk, "personEmail": "viewer@acme.example", "role": "lead"},
    )
    gone = DepartmentFactory(actor=people["admin"], name="Gone dept")
    ok(
        people["admin"],
        "deleteDepartment",
        {"departmentId": gone.pk},
        capabilities={"elicitation": {}},
        elicit=confirmed,
    )
    acme_client.force_login(people["admin"])

    page = acme_client.get("/settings/departments/")
    assert b"Visible dept" in page.content and b"viewer@acme.example (lead)" in page.content
    assert b"Gone dept" in page.content and b"Restore" in page.content

    acme_client.post(f"/settings/departments/{gone.pk}/restore/")
    assert Department.objects.get(pk=gone.pk).deleted_at is None
