"""A normal call of every Form Builder tool, for the catalogue's contract test."""

import uuid
from typing import Any

from apps.catalogue.testing import Sample, sample
from apps.forms.tests.factories import FormFactory, published, submission
from apps.forms.tests.forms_models import metered


def _marker() -> str:
    return f"Form{uuid.uuid4().hex[:8]}"


def _form(actor: Any, **fields: Any) -> tuple[Any, str]:
    marker = _marker()
    return FormFactory(actor=actor, title=f"{marker} survey", **fields), marker


def _answered(actor: Any) -> tuple[Any, str]:
    """A submission, to a form published by `actor`, whose answers hold the marker."""
    marker = _marker()
    form = published(actor, title=f"{marker} survey")
    return submission(form, {"name": f"{marker} Ada", "email": "ada@example.org"}), marker


@sample("createFormTemplate")
def create_form_template(actor: Any) -> Sample:
    marker = _marker()
    return Sample(
        {"form": {"title": f"{marker} sign-up"}, "fields": [{"type": "text", "label": "Your name"}]}
    )


@sample("updateFormTemplate")
def update_form_template(actor: Any) -> Sample:
    form, marker = _form(actor)
    return Sample({"formId": form.pk, "changes": {"description": "Short"}}, private=[marker])


@sample("manageFormTemplate")
def manage_form_template(actor: Any) -> Sample:
    form, marker = _form(actor)
    return Sample({"formId": form.pk, "action": "publish"}, private=[marker])


@sample("searchFormTemplates")
def search_form_templates(actor: Any) -> Sample:
    _made, marker = _form(actor)
    return Sample({"query": marker}, private=[marker])


@sample("examineForms")
def examine_forms(actor: Any) -> Sample:
    made, marker = _answered(actor)
    return Sample({"formId": made.form_id}, private=[marker])


@sample("getFormSchema")
def get_form_schema(actor: Any) -> Sample:
    form, marker = _form(actor)
    return Sample({"formId": form.pk}, private=[marker])


@sample("addFieldGroup")
def add_field_group(actor: Any) -> Sample:
    form, marker = _form(actor)
    return Sample(
        {"formId": form.pk, "title": "Contact", "fields": [{"type": "phone", "label": "Phone"}]},
        private=[marker],
    )


@sample("generateTextFields")
def generate_text_fields(actor: Any) -> Sample:
    form, marker = _form(actor)
    return Sample({"formId": form.pk, "brief": "contact details"}, private=[marker], around=metered)


@sample("generateChoiceFields")
def generate_choice_fields(actor: Any) -> Sample:
    form, marker = _form(actor)
    return Sample({"formId": form.pk, "brief": "satisfaction"}, private=[marker], around=metered)


@sample("generateMediaFields")
def generate_media_fields(actor: Any) -> Sample:
    form, marker = _form(actor)
    return Sample({"formId": form.pk, "brief": "a CV"}, private=[marker], around=metered)


@sample("generateLayoutFields")
def generate_layout_fields(actor: Any) -> Sample:
    form, marker = _form(actor)
    return Sample({"formId": form.pk, "brief": "an introduction"}, private=[marker], around=metered)


@sample("updateFormFields")
def update_form_fields(actor: Any) -> Sample:
    form, marker = _form(actor)
    return Sample(
        {"formId": form.pk, "fields": [{"key": "name", "changes": {"label": "Full name"}}]}, private=[marker]
    )


@sample("removeFormFields")
def remove_form_fields(actor: Any) -> Sample:
    form, marker = _form(actor)
    return Sample({"formId": form.pk, "keys": ["size"]}, private=[marker])


@sample("reorderFormFields")
def reorder_form_fields(actor: Any) -> Sample:
    form, marker = _form(actor)
    return Sample({"formId": form.pk, "keys": ["email", "name"]}, private=[marker])


@sample("submitForm")
def submit_form(actor: Any) -> Sample:
    marker = _marker()
    form = published(actor, title=f"{marker} survey")
    return Sample(
        {
            "formId": form.pk,
            "answers": {"name": "Ada", "email": "ada@example.org"},
            "respondentEmail": "ada@example.org",
        },
        private=[marker],
    )


@sample("searchFormSubmissions")
def search_form_submissions(actor: Any) -> Sample:
    _made, marker = _answered(actor)
    return Sample({"query": marker}, private=[marker])


@sample("lockSubmission")
def lock_submission(actor: Any) -> Sample:
    made, marker = _answered(actor)
    return Sample({"submissionId": made.pk}, private=[marker])


@sample("exportSubmissionPdf")
def export_submission_pdf(actor: Any) -> Sample:
    made, marker = _answered(actor)
    return Sample({"submissionId": made.pk}, private=[marker])
