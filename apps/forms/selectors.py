"""Reads of the Form Builder: the forms and submissions a person may see, and a form's health."""

from datetime import datetime
from typing import Any

from django.db.models import Count, Q, QuerySet
from django.utils.translation import gettext as _

from apps.core.search import matching
from apps.forms.lib.fields import LAYOUT, answered
from apps.forms.models import FormTemplate, Submission


def forms(actor: Any, *, query: str = "", status: str | None = None) -> QuerySet[FormTemplate]:
    rows = FormTemplate.objects.restrict(actor).select_related("owner", "current_version")
    if status:
        rows = rows.filter(status=status)
    elif status is None:
        rows = rows.exclude(status=FormTemplate.Status.ARCHIVED)
    if query:
        rows = matching(rows, query, ("title", "description", "slug"))
    return rows.order_by("-updated_at", "-id")


def submissions(
    actor: Any,
    *,
    form: FormTemplate | None = None,
    query: str = "",
    status: str | None = None,
    email: str = "",
    since: datetime | None = None,
) -> QuerySet[Submission]:
    rows = Submission.objects.restrict(actor).select_related("form", "version", "submitted_by")
    if form is not None:
        rows = rows.filter(form=form)
    if status:
        rows = rows.filter(status=status)
    if email:
        rows = rows.filter(respondent_email__iexact=email.strip())
    if since is not None:
        rows = rows.filter(created_at__gte=since)
    if query:
        words = query.split()
        for word in words:
            rows = rows.filter(Q(answers__icontains=word) | Q(respondent_email__icontains=word))
    return rows.order_by("-created_at", "-id")


def counts(actor: Any, form: FormTemplate) -> dict[str, int]:
    rows = Submission.objects.restrict(actor).filter(form=form).values("status").annotate(n=Count("id"))
    found = {status: 0 for status in Submission.Status.values}
    found.update({row["status"]: row["n"] for row in rows})
    return found


def problems(form: FormTemplate) -> list[str]:
    """What stands in the way of a form working well, for examineForms."""
    found = []
    draft = form.draft or {}
    fields = draft.get("fields", [])
    if not answered(draft):
        found.append(_("It has no field to answer."))
    if form.status == FormTemplate.Status.DRAFT:
        found.append(_("It is not published: nobody can submit it yet."))
    if form.changed_since_publish and form.current_version_id is not None:
        found.append(_("Its draft has changes not yet published."))
    if form.visibility == "private" and form.status == FormTemplate.Status.PUBLISHED:
        found.append(_("It is private: its public page stays closed until it is the workspace's."))
    if answered(draft) and not any(field["type"] == "email" for field in fields):
        found.append(_("It asks no e-mail address: respondents cannot be told apart for export or erasure."))
    groups = {group["key"] for group in draft.get("groups", [])}
    for group in groups:
        if not any(field.get("group") == group and field["type"] not in LAYOUT for field in fields):
            found.append(_("Group {group!r} has no field to answer.").format(group=group))
    return found
