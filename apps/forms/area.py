"""The Form Builder area, as the rest of the service knows it (apps.core.areas): the workspace's
forms, their immutable published versions on its own host (/f/<form>/), and their submissions."""

from django.utils.translation import gettext_lazy as _

from apps.core import areas, env
from apps.core.kinds import Kind, page
from apps.core.navigation import NavItem
from apps.forms.permissions import FormsPerm

area = areas.declare(
    title=_("Forms"),
    catalogue_title="Form Builder",
    group=areas.Group.CONTENT,
    description=_("Forms and surveys on public pages: versions, validated submissions, uploads, PDFs"),
    words="form survey questionnaire field question submission response respondent",
    hints={
        "createFormTemplate": "new form survey questionnaire sign-up registration form",
        "updateFormTemplate": "rename a form survey, its description, address, thank-you confirmation",
        "manageFormTemplate": "publish a form survey live, close it to answers, reopen, archive, restore",
        "searchFormTemplates": "forms surveys questionnaires by words, draft published closed",
        "examineForms": "a form survey in depth: versions, responses counted, problems",
        "getFormSchema": "a form's questions, field keys, conditions, JSON schema of a version",
        "addFieldGroup": "a section page group of questions on a form survey",
        "generateTextFields": "AI text name phone date e-mail number questions for a form",
        "generateChoiceFields": "AI multiple choice dropdown checkbox consent questions with options",
        "generateMediaFields": "AI file upload photo attachment signature fields for a form",
        "generateLayoutFields": "AI section headings, intro and instruction paragraphs for a form",
        "updateFormFields": "a form question's label, help, required, options; shown only when a condition",
        "removeFormFields": "take a question field out of a form survey",
        "reorderFormFields": "form questions fields moved above below, their order",
        "submitForm": "fill in and send a form survey's answers on someone's behalf",
        "searchFormSubmissions": "form responses submissions, answers received, respondent",
        "lockSubmission": "lock a form response submission read-only with its hash",
        "exportSubmissionPdf": "a form response submission as a PDF file",
    },
    profiles={
        "forms": (
            "createFormTemplate",
            "updateFormTemplate",
            "manageFormTemplate",
            "searchFormTemplates",
            "examineForms",
            "getFormSchema",
            "addFieldGroup",
            "generateTextFields",
            "generateChoiceFields",
            "generateMediaFields",
            "generateLayoutFields",
            "updateFormFields",
            "removeFormFields",
            "reorderFormFields",
            "submitForm",
            "searchFormSubmissions",
            "lockSubmission",
            "exportSubmissionPdf",
        ),
    },
    nav=[NavItem("forms", _("Forms"), "forms:home", FormsPerm.VIEW, order=45)],
    kinds=[
        Kind(
            "form",
            "forms.FormTemplate",
            title="title",
            url=page("forms:home", anchor="form-"),
            search=("title", "description"),
            named=_("Form"),
        )
    ],
    not_kinds={
        "forms.Submission": "a respondent's answers, reached through its form (searchFormSubmissions)",
    },
    settings={
        # Public submissions from one address per hour at most, per form page.
        "ATRIUM_FORMS_SUBMISSIONS_PER_HOUR": env.int("ATRIUM_FORMS_SUBMISSIONS_PER_HOUR", 10, min=1),
    },
)
