"""Held-out requests for the Form Builder area, written from AREAS.md 2.8 and SPEC.md 4.7 before any
search hints; never used to tune (see test_search_quality.py)."""

HELD_OUT: list[tuple[str, str | tuple[str, ...]]] = [
    ("set up a questionnaire for new clients", "createFormTemplate"),
    ("edit the survey's description and confirmation text", "updateFormTemplate"),
    ("make the contest entry form live", "manageFormTemplate"),
    ("list all our questionnaires", "searchFormTemplates"),
    ("full picture of the intake form with its responses", "examineForms"),
    ("the intake form's field definitions", "getFormSchema"),
    ("add a new section of questions to the questionnaire", "addFieldGroup"),
    ("suggest short answer questions for the intake form", "generateTextFields"),
    ("suggest answer options questions for the poll", "generateChoiceFields"),
    ("AI file attachment fields for the expense form", "generateMediaFields"),
    ("AI section titles for the questionnaire", "generateLayoutFields"),
    ("make the e-mail question required", "updateFormFields"),
    ("drop a question from the questionnaire", "removeFormFields"),
    ("put the consent question last", "reorderFormFields"),
    ("record a response to the poll on someone's behalf", "submitForm"),
    ("answers people sent through the contact form", "searchFormSubmissions"),
    ("make this response read-only", "lockSubmission"),
    ("PDF of a questionnaire response", "exportSubmissionPdf"),
]
