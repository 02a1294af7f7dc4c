"""Reads about departments beyond what the access model gives (apps.core.records: everyone whose
role allows departments.view sees every department, `Department.objects.restrict(actor)`)."""

from typing import Any

from django.db.models import Count, Q, QuerySet

from apps.contacts import api as contacts_api
from apps.departments.models import Department

# What searchDepartments looks in (apps.core.search): the department and its members.
SEARCHED = ("name", "description", "email", "members__user__full_name", "members__user__email")


def with_counts(actor: Any, rows: QuerySet[Department]) -> QuerySet[Department]:
    """`rows` with `member_count` and `contact_count`: the linked contacts the actor may see
    (another person's private contact is neither listed nor counted)."""
    seen = Q(contact_links__contact__in=contacts_api.contacts(actor))
    return rows.annotate(
        member_count=Count("members", distinct=True),
        contact_count=Count("contact_links", filter=seen, distinct=True),
    )
