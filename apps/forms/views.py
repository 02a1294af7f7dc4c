"""The Forms settings page: the forms a person may see (status, version, public address, what
agents and people changed last), the latest submissions with their lock, and each form's
submissions as a CSV file, in which no cell a respondent wrote is taken for a formula."""

import csv
import io
import json

from django.http import HttpResponse
from django.shortcuts import render

from apps.accounts.requests import AuthenticatedHttpRequest
from apps.core.pages import READ, chosen, page, paged
from apps.core.spreadsheets import guarded
from apps.forms import selectors
from apps.forms.models import FormTemplate
from apps.forms.permissions import FormsPerm
from apps.forms.shapes import public_url


@page(FormsPerm.VIEW, methods=READ)
def home(request: AuthenticatedHttpRequest) -> HttpResponse:
    statuses = list(FormTemplate.Status.choices)
    status = chosen(request, "status", FormTemplate.Status.values)
    rows = selectors.forms(request.user, status=status or None)
    context = paged(request, rows)
    context["shown"] = [(form, public_url(form)) for form in context["page"]]
    latest = selectors.submissions(request.user)[:20]
    return render(
        request,
        "forms/home.html",
        {"nav": "forms", **context, "statuses": statuses, "status": status, "latest": list(latest)},
    )


@page(FormsPerm.VIEW, methods=READ)
def export(request: AuthenticatedHttpRequest, form_id: int) -> HttpResponse:
    form = FormTemplate.objects.fetch(request.user, form_id)
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(
        [
            "id",
            "version",
            "respondentEmail",
            "status",
            "lockedAt",
            "contentHash",
            "answers",
            "utmSource",
            "utmMedium",
            "utmCampaign",
            "createdAt",
        ]
    )
    for row in selectors.submissions(request.user, form=form).order_by("id"):
        writer.writerow(
            [
                row.pk,
                row.version.number,
                guarded(str(row.respondent_email)),
                row.status,
                row.locked_at.isoformat() if row.locked_at else "",
                row.content_hash,
                json.dumps(row.answers, ensure_ascii=False, sort_keys=True),
                guarded(str(row.utm.get("utm_source", ""))),
                guarded(str(row.utm.get("utm_medium", ""))),
                guarded(str(row.utm.get("utm_campaign", ""))),
                row.created_at.isoformat(),
            ]
        )
    response = HttpResponse(out.getvalue(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{form.slug}-submissions.csv"'
    return response
