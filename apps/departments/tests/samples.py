"""A normal call of every Departments tool, for the catalogue's contract test."""

import uuid
from typing import Any

from apps.catalogue.testing import Sample, sample
from apps.contacts import related
from apps.contacts.tests.factories import ContactFactory
from apps.departments import services
from apps.departments.tests.factories import DepartmentFactory


@sample("createDepartment")
def create_department(actor: Any) -> Sample:
    return Sample({"department": {"name": f"Research {uuid.uuid4().hex[:6]}", "headEmail": actor.email}})


@sample("updateDepartment")
def update_department(actor: Any) -> Sample:
    department = DepartmentFactory(actor=actor)
    return Sample(
        {"departmentId": department.pk, "changes": {"description": "Builds things"}},
        private=[department.name],
    )


@sample("deleteDepartment")
def delete_department(actor: Any) -> Sample:
    department = DepartmentFactory(actor=actor)
    return Sample({"departmentId": department.pk}, private=[department.name])


@sample("getDepartment")
def get_department(actor: Any) -> Sample:
    department = DepartmentFactory(actor=actor)
    return Sample({"departmentId": department.pk}, private=[department.name])


@sample("listDepartments")
def list_departments(actor: Any) -> Sample:
    department = DepartmentFactory(actor=actor)
    return Sample({"limit": 100}, private=[department.name])


@sample("searchDepartments")
def search_departments(actor: Any) -> Sample:
    department = DepartmentFactory(actor=actor)
    return Sample({"query": department.name}, private=[department.name])


@sample("addMemberToDepartment")
def add_member_to_department(actor: Any) -> Sample:
    department = DepartmentFactory(actor=actor)
    return Sample(
        {"departmentId": department.pk, "personEmail": actor.email, "role": "lead"}, private=[department.name]
    )


@sample("removeMemberFromDepartment")
def remove_member_from_department(actor: Any) -> Sample:
    department = DepartmentFactory(actor=actor)
    services.member_add(actor=actor, department=department, person=actor)
    return Sample({"departmentId": department.pk, "personEmail": actor.email}, private=[department.name])


@sample("linkContactToDepartment")
def link_contact_to_department(actor: Any) -> Sample:
    department = DepartmentFactory(actor=actor)
    contact = ContactFactory(actor=actor)
    return Sample(
        {"departmentId": department.pk, "contactId": contact.pk},
        private=[department.name, contact.first_name],
    )


@sample("unlinkContactFromDepartment")
def unlink_contact_from_department(actor: Any) -> Sample:
    department = DepartmentFactory(actor=actor)
    contact = ContactFactory(actor=actor)
    related.link(actor=actor, rows=department.contact_links, contact_id=contact.pk)
    return Sample(
        {"departmentId": department.pk, "contactId": contact.pk},
        private=[department.name, contact.first_name],
    )
