"""The Platform area's workspace tools through call_tool: who the caller is, the workspace, its
people and roles. Per tool a normal call, bad input and a refusal."""

import pytest

from apps.accounts.models import User
from apps.catalogue.dispatch import ToolNotFound
from apps.catalogue.testing import call, ok, person_with, person_without, refused
from apps.contacts.tests.factories import ContactFactory

TOOLS = {
    "getMyProfile": {},
    "getWorkspaceSummary": {},
    "listWorkspaceUsers": {},
    "listRoles": {},
}


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_a_role_without_the_permission_cannot_call_it(acme, name):
    person = person_without("platform.view", email=f"no-{name.lower()}@acme.example")

    with pytest.raises(ToolNotFound):
        call(person, name, TOOLS[name])


def test_my_profile_says_who_i_am_and_what_my_role_allows(people):
    mine = ok(people["viewer"], "getMyProfile")
    admin = ok(people["admin"], "getMyProfile")

    assert mine["email"] == "viewer@acme.example" and mine["role"]["key"] == "viewer"
    contacts = next(area for area in mine["access"] if area["area"] == "contacts")
    assert contacts["actions"] == ["view"]
    assert "delete" in next(area for area in admin["access"] if area["area"] == "contacts")["actions"]
    assert mine["timeZone"]


def test_the_workspace_summary_counts_only_what_the_caller_may_see(people):
    ContactFactory(actor=people["member"], first_name="Shared", visibility="workspace")
    ContactFactory(actor=people["admin"], first_name="Secret", visibility="private")

    admin = ok(people["admin"], "getWorkspaceSummary")
    member = ok(people["member"], "getWorkspaceSummary")

    def contacts(answer):
        area = next(area for area in answer["areas"] if area["key"] == "contacts")
        return next(kind for kind in area["records"] if kind["kind"] == "contact")["count"]

    assert contacts(admin) == contacts(member) + 1
    assert member["yourRole"]["key"] == "member" and member["people"] >= 4
    assert member["serverTime"] and member["timeZone"]
    assert {"key", "title", "firstCall", "records"} <= set(member["areas"][0])


def test_a_role_that_sees_one_area_hears_only_of_that_one(acme):
    person = person_with({"platform.view", "tasks.view"}, email="tasks-only@acme.example")

    answer = ok(person, "getWorkspaceSummary")

    assert [area["key"] for area in answer["areas"]] == ["platform", "tasks"]
    assert answer["people"] is None


def test_workspace_users_with_roles_and_filters(people):
    User.objects.filter(email="viewer@acme.example").update(is_active=False)

    listed = ok(people["member"], "listWorkspaceUsers", {"limit": 100})["items"]
    admins = ok(people["member"], "listWorkspaceUsers", {"role": "admin"})["items"]
    with_gone = ok(people["admin"], "listWorkspaceUsers", {"includeInactive": True, "limit": 100})["items"]
    member_asking = ok(people["member"], "listWorkspaceUsers", {"includeInactive": True, "limit": 100})[
        "items"
    ]
    found = ok(people["member"], "listWorkspaceUsers", {"query": "owner@acme"})["items"]

    assert "viewer@acme.example" not in {person["email"] for person in listed}
    assert [person["email"] for person in admins] == ["admin@acme.example"]
    assert {"email": "viewer@acme.example", "active": False} in [
        {"email": person["email"], "active": person["active"]} for person in with_gone
    ]
    assert "viewer@acme.example" not in {person["email"] for person in member_asking}
    assert [person["email"] for person in found] == ["owner@acme.example"]


def test_a_role_that_may_not_see_people_sees_only_itself(acme):
    person = person_with({"platform.view"}, email="lonely@acme.example")

    listed = ok(person, "listWorkspaceUsers")["items"]
    roles = ok(person, "listRoles")["roles"]

    assert [row["email"] for row in listed] == ["lonely@acme.example"]
    assert [role["key"] for role in roles] == [person.role.key]


def test_roles_with_their_permissions(people):
    roles = {role["key"]: role for role in ok(people["viewer"], "listRoles")["roles"]}

    assert {"owner", "admin", "member", "viewer"} <= set(roles)
    assert roles["viewer"]["builtIn"] is True and roles["viewer"]["people"] >= 1
    assert "contacts.view" in roles["viewer"]["permissions"]
    assert "contacts.delete" not in roles["viewer"]["permissions"]
    assert "contacts.delete" in roles["admin"]["permissions"]


@pytest.mark.parametrize(
    ("name", "arguments", "said"),
    [
        ("getMyProfile", {"who": "me"}, "not an argument"),
        ("getWorkspaceSummary", {"areas": ["x"]}, "not an argument"),
        ("listWorkspaceUsers", {"limit": 500}, "`limit`"),
        ("listWorkspaceUsers", {"role": "x" * 65}, "`role`"),
        ("listRoles", {"key": "admin"}, "not an argument"),
    ],
)
def test_bad_arguments_are_clear_errors(people, name, arguments, said):
    assert said in refused(people["member"], name, arguments)
