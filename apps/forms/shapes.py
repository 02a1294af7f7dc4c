"""What the Form Builder's tools answer (camelCase JSON), and a form's public address."""

from datetime import datetime
from typing import Annotated, Any

from pydantic import Field

from apps.catalogue.shapes import From, Out, PersonRef, id_field
from apps.forms.lib.fields import answered
from apps.forms.models import FormTemplate, Submission
from apps.tenancy import links

FormId = Annotated[int, id_field("searchFormTemplates")]
SubmissionId = Annotated[int, id_field("searchFormSubmissions")]


def public_url(form: FormTemplate) -> str | None:
    """The form's address on the workspace's public site, while it takes submissions."""
    return links.page("forms:public", slug=form.slug) if form.is_public else None


class FormSummary(Out):
    id: int
    title: str
    slug: str
    status: str
    visibility: str
    owner: PersonRef | None
    version: int | None = Field(description="The published version's number")
    changed_since_publish: bool = Field(description="The draft has changes not yet published")
    fields: int
    public_url: str | None
    updated_at: datetime

    @classmethod
    def of(cls, form: FormTemplate) -> "FormSummary":
        version = form.current_version
        return cls.of_record(
            form,
            version=version.number if version else None,
            fields=len(answered(form.draft or {})),
            public_url=public_url(form),
        )


class FormOut(FormSummary):
    description: str
    confirmation: str
    submit_label: str
    groups: list[dict[str, Any]]
    draft_fields: list[dict[str, Any]] = Field(description="The draft's fields, in order")

    @classmethod
    def of(cls, form: FormTemplate) -> "FormOut":
        summary = FormSummary.of(form)
        draft = form.draft or {}
        return cls(
            **summary.model_dump(),
            description=form.description,
            confirmation=form.confirmation,
            submit_label=form.submit_label,
            groups=draft.get("groups", []),
            draft_fields=draft.get("fields", []),
        )


class SubmissionOut(Out):
    id: int
    form_id: int
    form_title: Annotated[str, From("form.title")]
    version: Annotated[int, From("version.number")]
    answers: dict[str, Any]
    respondent_email: str
    submitted_by: PersonRef | None
    source: str
    status: str
    locked_at: datetime | None
    content_hash: str = Field(description="SHA-256 kept when it was locked")
    file_ids: list[int] = Field(description="Its uploads in Files")
    utm: dict[str, str] = Field(description="Where a public respondent came from: utm_source, utm_medium...")
    created_at: datetime

    @classmethod
    def of(cls, submission: Submission) -> "SubmissionOut":
        return cls.of_record(submission)
