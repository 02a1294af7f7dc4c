"""The Form Builder area, as the rest of the service knows it (apps.core.areas): the workspace's
forms, their immutable published versions on its own host (/f/<form>/), and their submissions."""

from django.utils.translation import gettext_lazy as _

from apps.core import areas, env
from apps.core.kinds import Kind, page
from apps.core.navigation import NavItem
from apps.forms.permissions import FormsPerm

area = areas.declare(
    title=_("Forms"),
    group=areas.Group.CONTENT,
    description=_("Forms and surveys on public pages: versions, validated submissions, uploads, PDFs"),
    words="form survey questionnaire field question submission response respondent",
    hints={},
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
