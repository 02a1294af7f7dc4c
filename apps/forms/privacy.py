"""Personal data in forms (docs/privacy.md): a submission goes with its respondent (by the e-mail
address they gave, or as the person of the workspace who entered it): exported, and erased with
its uploads in Files. Forms and their versions are the workspace's, with their maker's link
cleared on erasure."""

from typing import Any

from apps.core import privacy
from apps.files import api as files
from apps.forms.models import FormTemplate, FormVersion, Submission


def _export(submission: Any) -> dict[str, Any]:
    return {
        "form": submission.form.title,
        "version": submission.version.number,
        "answers": submission.answers,
        "respondentEmail": submission.respondent_email,
        "submittedAt": submission.created_at.isoformat(),
        "lockedAt": submission.locked_at.isoformat() if submission.locked_at else None,
    }


def _erase(rows: Any) -> int:
    file_ids = [file_id for ids in rows.values_list("file_ids", flat=True) for file_id in ids or []]
    if file_ids:
        files.erase(file_ids)
    deleted, _kinds = rows.delete()
    return int(deleted)


privacy.register(Submission, user="submitted_by", email="respondent_email", export=_export, erase=_erase)
privacy.not_personal(
    FormTemplate, reason="the workspace's forms: their maker is a link to a person, cleared on erasure"
)
privacy.not_personal(FormVersion, reason="a form's published fields")
