"""Form submissions as a spreadsheet (apps.core.transfer): the submissions a person may see (to
the forms they see), each its form, version, respondent, status, lock and answers as JSON.
Export only: a submission is made by its respondent through the form, where it is validated."""

import json
from typing import Any

from django.utils.translation import gettext_lazy as _

from apps.core import transfer
from apps.forms.models import Submission
from apps.forms.permissions import FormsPerm


def _rows(actor: Any) -> Any:
    return Submission.objects.restrict(actor, "view").select_related("form", "version").order_by("id")


transfer.exportable(
    transfer.Exportable(
        kind="form_submission",
        label=_("Form submission"),
        permission=FormsPerm.VIEW,
        columns=(
            ("id", lambda row: row.pk),
            ("formId", lambda row: row.form_id),
            ("form", lambda row: row.form.title),
            ("version", lambda row: row.version.number),
            ("respondentEmail", lambda row: row.respondent_email),
            ("source", lambda row: row.source),
            ("utm", lambda row: json.dumps(row.utm, ensure_ascii=False, sort_keys=True) if row.utm else ""),
            ("status", lambda row: row.status),
            ("lockedAt", lambda row: row.locked_at),
            ("contentHash", lambda row: row.content_hash),
            ("answers", lambda row: json.dumps(row.answers, ensure_ascii=False, sort_keys=True)),
            ("createdAt", lambda row: row.created_at),
        ),
        rows=_rows,
        search=("respondent_email",),
    )
)
