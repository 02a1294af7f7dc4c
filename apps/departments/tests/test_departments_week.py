"""What a week of keeping the organisation's departments found: the admin reorganises (a unit
closed, its parts moved up, one brought back), a member keeps the teams' people and the contacts
they deal with, a viewer reads them, and someone leaves the company.

- A contact that is one person's own (private) was counted in every list and search of
  departments ("contacts": 1 to a reader who sees none).
- A search by one member's name counted that member alone as the department's members.
- A department deleted before its parent was, and then restored, came back as part of a parent in
  the trash, named in its answers and on the settings page.
- Someone who left (deactivated) could not be taken out of their department: their address was
  "no active person", so the department listed them for ever.
- The service kept a description of any length from a caller other than the tool (the import),
  past the 5,000 characters the tool holds to, and a member's role with a NUL byte crashed.
- An import's department e-mail address longer than the 254 characters an address may have
  passed the check and then failed the commit on the server.
- An update naming no field answered "changed: []" as if it had worked.
"""

import pytest

from apps.accounts.services import user_set_active
from apps.catalogue.testing import confirmed, ok, refused
from apps.contacts.tests.factories import ContactFactory
from apps.core.errors import AppError
from apps.core.workspaces import current_workspace
from apps.datarights.personal_data import personal_data_erase, personal_data_records
from apps.departments import services
from apps.departments.models import Department, Member
from apps.departments.tests.factories import DepartmentFactory
from apps.platform.tests.test_transfer_tools import _validate

CONFIRM = {"capabilities": {"elicitation": {}}, "elicit": confirmed}


def _delete(user, department_id: int):  # type: ignore[no-untyped-def]
    return ok(user, "deleteDepartment", {"departmentId": department_id}, **CONFIRM)


@pytest.mark.parametrize("reader", ["member", "viewer"])
def test_a_private_contact_of_a_department_is_not_counted_for_others(people, reader):
    owner = people["owner"]
    department = DepartmentFactory(actor=people["admin"], name="Procurement")
    private = ContactFactory(actor=owner, first_name="Hidden", visibility="private")
    ok(owner, "linkContactToDepartment", {"departmentId": department.pk, "contactId": private.pk})

    for name, arguments in (("listDepartments", {}), ("searchDepartments", {"query": "Procurement"})):
        [row] = [d for d in ok(people[reader], name, arguments)["items"] if d["id"] == department.pk]
        assert row["contacts"] == 0, name
        [mine] = [d for d in ok(owner, name, arguments)["items"] if d["id"] == department.pk]
        assert mine["contacts"] == 1, name


def test_a_part_restored_after_its_parent_was_deleted_is_not_part_of_the_deleted_one(people, acme_client):
    admin = people["admin"]
    region = DepartmentFactory(actor=admin, name="EMEA")
    country = DepartmentFactory(actor=admin, name="France", parent_id=region.pk)
    city = DepartmentFactory(actor=admin, name="Lyon office", parent_id=country.pk)
    _delete(admin, city.pk)
    assert _delete(admin, country.pk)["partsMovedUp"] == 0

    acme_client.force_login(admin)
    acme_client.post(f"/settings/departments/{city.pk}/restore/")

    got = ok(people["viewer"], "getDepartment", {"departmentId": city.pk})
    assert got["parent"] == {"id": region.pk, "name": "EMEA"}
    assert Department.objects.get(pk=city.pk).parent_id == region.pk


def test_someone_who_left_can_be_taken_out_of_their_department(people, nora):
    admin, member = people["admin"], people["member"]
    department = DepartmentFactory(actor=admin, name="Support")
    ok(
        member,
        "addMemberToDepartment",
        {"departmentId": department.pk, "personEmail": nora.email, "role": "agent"},
    )
    user_set_active(actor=admin, user=nora, active=False)

    gone = ok(
        member,
        "removeMemberFromDepartment",
        {"departmentId": department.pk, "personEmail": nora.email.upper()},
    )

    assert gone["member"] is False and gone["person"]["email"] == nora.email
    assert not Member.objects.filter(department=department).exists()
    # Someone who never was a member: said so, by address, not a crash or a wrong person.
    said = refused(
        member, "removeMemberFromDepartment", {"departmentId": department.pk, "personEmail": nora.email}
    )
    assert "not a member" in said


def test_a_description_the_tool_would_refuse_is_refused_by_the_service_too(people):
    admin = people["admin"]
    department = DepartmentFactory(actor=admin, name="Legal")

    with pytest.raises(AppError) as caught:
        services.department_update(actor=admin, department=department, fields={"description": "x" * 5001})
    assert "description" in caught.value.message
    with pytest.raises(AppError):
        services.member_add(actor=admin, department=department, person=people["member"], role="lead\x00")
    department.refresh_from_db()
    assert department.description == ""
    # A NUL byte no store keeps: left out of a description, as everywhere else (apps.core.clean).
    services.department_update(actor=admin, department=department, fields={"description": "a\x00b"})
    assert Department.objects.get(pk=department.pk).description == "ab"
    assert not Member.objects.filter(department=department).exists()


def test_an_update_naming_nothing_is_refused(people):
    department = DepartmentFactory(actor=people["admin"], name="Finance")

    said = refused(people["member"], "updateDepartment", {"departmentId": department.pk, "changes": {}})

    assert "changes" in said


def test_the_department_someone_heads_is_in_their_data_and_stays_without_them(people, nora):
    admin = people["admin"]
    department = DepartmentFactory(actor=admin, name="Operations", head_email=nora.email)
    ok(admin, "addMemberToDepartment", {"departmentId": department.pk, "personEmail": nora.email})
    workspace = current_workspace()

    held = personal_data_records(workspace=workspace, email=nora.email)

    assert [row["id"] for row in held["departments.department"]] == [department.pk]
    assert [row["department_id"] for row in held["departments.member"]] == [department.pk]
    erased = personal_data_erase(workspace=workspace, email=nora.email, performed_by="admin@acme.example")
    assert erased["departments.member"] == 1
    kept = Department.objects.get(pk=department.pk)
    assert kept.deleted_at is None and kept.head_id is None


def test_a_search_by_one_members_name_still_counts_all_its_members(people, nora):
    admin = people["admin"]
    department = DepartmentFactory(actor=admin, name="Field service")
    for person in (nora, people["member"], people["viewer"]):
        ok(admin, "addMemberToDepartment", {"departmentId": department.pk, "personEmail": person.email})

    [found] = ok(people["viewer"], "searchDepartments", {"query": "nora"})["items"]

    assert (found["id"], found["members"]) == (department.pk, 3)


def test_an_imported_address_too_long_for_any_address_is_refused_by_the_check(people):
    address = "a" * 60 + "." + "b" * 60 + "." + "c" * 60 + "@" + "d" * 60 + ".example.com"  # 255
    text = f"name,email\nWeek Imports,{address}\n"

    plan = _validate(people["member"], text, kind="department")

    assert (plan["toImport"], plan["invalidRows"]) == (0, 1)
    assert [(p["row"], p["column"]) for p in plan["problems"]] == [(2, "email")]
