"""Reads about departments beyond what the access model gives (apps.core.records: everyone whose
role allows departments.view sees every department, `Department.objects.restrict(actor)`)."""

from typing import Any

from django.db.models import Count, OuterRef, QuerySet, Subquery
from django.db.models.functions import Coalesce

from apps.contacts import api as contacts_api
from apps.departments.models import Department, DepartmentContact, Member

# What searchDepartments looks in (apps.core.search): the department and its members.
SEARCHED = ("name", "description", "email", "members__user__full_name", "members__user__email")


def with_counts(actor: Any, rows: QuerySet[Department]) -> QuerySet[Department]:
    """`rows` with `member_count` and `contact_count`: the linked contacts the actor may see
    (another person's private contact is neither listed nor counted). Each is counted apart from
    `rows`' own filters: a search by one member's name still counts every member."""
    members = Member.objects.filter(department=OuterRef("pk"))
    contacts = DepartmentContact.objects.filter(
        department=OuterRef("pk"), contact__in=contacts_api.contacts(actor)
    )
    return rows.annotate(
        member_count=_counted(members, "department"), contact_count=_counted(contacts, "department")
    )


def _counted(rows: QuerySet[Any], by: str) -> Coalesce:
    return Coalesce(Subquery(rows.order_by().values(by).annotate(n=Count("pk")).values("n")), 0)
