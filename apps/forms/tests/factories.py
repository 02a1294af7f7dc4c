"""Forms and submissions for tests, made through the services as a person makes them:
`FormFactory(actor=people["member"], title="Sign-up", fields=[...])`, `published(actor, ...)` (the
actor holds forms.publish), `submission(form, {"email": "a@b.example"})`."""

from typing import Any

from apps.catalogue.testing import listed
from apps.core import factories
from apps.core.factories import AccessRows, ServiceFactory, access_rows, fake, numbered, private_rows
from apps.forms import services
from apps.forms.models import FormTemplate, Submission

FIELDS = [
    {"type": "text", "label": "Your name", "key": "name", "required": True},
    {"type": "email", "label": "E-mail", "key": "email", "required": True},
    {"type": "choice", "label": "Size", "key": "size", "options": ["Small", "Large"]},
]


def _form(*, actor: Any, fields: dict[str, Any]) -> FormTemplate:
    if "fields" not in fields:
        fields = {**fields, "fields": FIELDS}
    return services.form_create(actor=actor, fields=fields)


class FormFactory(ServiceFactory):
    class Meta:
        model = FormTemplate

    title = numbered(fake.catch_phrase, " ")
    _service = staticmethod(_form)


def published(actor: Any, **fields: Any) -> FormTemplate:
    """A form published now, by someone who may (`actor` holds forms.publish)."""
    form = FormFactory(actor=actor, **fields)
    return services.form_manage(actor=actor, form=form, action="publish")


def submission(form: FormTemplate, answers: dict[str, Any] | None = None, actor: Any = None) -> Submission:
    given = answers if answers is not None else {"name": "Ada", "email": "ada@example.org"}
    return services.submission_create(
        form=form, answers=given, respondent_email=str(given.get("email", "")), actor=actor
    )


@access_rows("forms.FormTemplate")
def _forms(people: dict[str, Any]) -> AccessRows:
    rows = private_rows(people, lambda actor, visibility: FormFactory(actor=actor, visibility=visibility))
    rows.listed = lambda person: listed(person, "searchFormTemplates", {"limit": 100})
    return rows


def _open(form: FormTemplate) -> FormTemplate:
    """The form published whoever made it (its maker may hold no forms.publish)."""
    services.version_publish(actor=None, form=form)
    form.status = FormTemplate.Status.PUBLISHED
    form.save(update_fields=["status"])
    return form


@access_rows("forms.Submission")
def _submissions(people: dict[str, Any]) -> AccessRows:
    member, owner = people["member"], people["owner"]
    return AccessRows(
        own={
            "member": [submission(_open(FormFactory(actor=member, visibility="private")))],
            "owner": [submission(_open(FormFactory(actor=owner, visibility="private")))],
        },
        everyone=[submission(_open(FormFactory(actor=member)))],
        listed=lambda person: listed(person, "searchFormSubmissions", {"limit": 100}),
    )


@factories.privacy_rows("forms")
def _private(people: dict[str, Any], marker: str, rows: factories.PrivateRows) -> None:
    """The owner's private form, published, and a submission to it."""
    owner = people["owner"]
    form = FormFactory(
        actor=owner,
        title=f"{marker} survey",
        description=f"{marker} description",
        slug=f"private-{marker}".lower(),
        visibility="private",
        fields=[{"type": "text", "label": f"{marker} question", "key": "answer"}],
    )
    services.form_manage(actor=owner, form=form, action="publish")
    rows.add("formId", "entityId", record=form)
    rows.add("submissionId", record=submission(form, {"answer": f"{marker} answer"}))
