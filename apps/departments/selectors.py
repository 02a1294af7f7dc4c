"""Reads about departments beyond what the access model gives (apps.core.records: everyone whose
role allows departments.view sees every department, `Department.objects.restrict(actor)`)."""

from django.db.models import Count, QuerySet

from apps.departments.models import Department

# What searchDepartments looks in (apps.core.search): the department and its members.
SEARCHED = ("name", "description", "email", "members__user__full_name", "members__user__email")


def with_counts(rows: QuerySet[Department]) -> QuerySet[Department]:
    return rows.annotate(
        member_count=Count("members", distinct=True), contact_count=Count("contact_links", distinct=True)
    )
