"""The Form Builder tools through call_tool: per tool a normal call, bad input and a refusal, who
sees what under two roles, and a form built, published, answered, locked and exported."""

import pytest

from apps.catalogue.dispatch import ToolNotFound
from apps.catalogue.testing import call, confirmed, ok, person_without, refused
from apps.forms import services
from apps.forms.models import FormTemplate, FormVersion, Submission
from apps.forms.tests.factories import FormFactory, published, submission

ELICIT = {"capabilities": {"elicitation": {}}, "elicit": confirmed}

TOOLS = {
    "createFormTemplate": ("forms.edit", {"form": {"title": "X"}}),
    "updateFormTemplate": ("forms.edit", {"formId": 1, "changes": {"title": "Y"}}),
    "manageFormTemplate": ("forms.publish", {"formId": 1, "action": "publish"}),
    "searchFormTemplates": ("forms.view", {}),
    "examineForms": ("forms.view", {"formId": 1}),
    "getFormSchema": ("forms.view", {"formId": 1}),
    "addFieldGroup": ("forms.edit", {"formId": 1, "title": "About you"}),
    "generateTextFields": ("forms.edit", {"formId": 1, "brief": "contact details"}),
    "generateChoiceFields": ("forms.edit", {"formId": 1, "brief": "satisfaction"}),
    "generateMediaFields": ("forms.edit", {"formId": 1, "brief": "a CV"}),
    "generateLayoutFields": ("forms.edit", {"formId": 1, "brief": "sections"}),
    "updateFormFields": ("forms.edit", {"formId": 1, "fields": [{"key": "name", "changes": {"label": "N"}}]}),
    "removeFormFields": ("forms.edit", {"formId": 1, "keys": ["name"]}),
    "reorderFormFields": ("forms.edit", {"formId": 1, "keys": ["name"]}),
    "submitForm": ("forms.edit", {"formId": 1, "answers": {}}),
    "searchFormSubmissions": ("forms.view", {}),
    "lockSubmission": ("forms.publish", {"submissionId": 1}),
    "exportSubmissionPdf": ("forms.publish", {"submissionId": 1}),
}


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_a_role_without_the_permission_cannot_call_it(acme, name):
    permission, arguments = TOOLS[name]
    person = person_without(permission, email=f"no-{name.lower()}@acme.example")
    with pytest.raises(ToolNotFound):
        call(person, name, arguments)


@pytest.mark.parametrize("name", [name for name, (perm, _a) in TOOLS.items() if perm != "forms.view"])
def test_viewers_only_read_forms(people, name):
    with pytest.raises(ToolNotFound):
        call(people["viewer"], name, TOOLS[name][1])


@pytest.mark.parametrize("name", [name for name, (perm, _a) in TOOLS.items() if perm == "forms.publish"])
def test_members_build_forms_but_do_not_publish_or_lock(people, name):
    with pytest.raises(ToolNotFound):
        call(people["member"], name, TOOLS[name][1])


def _colleague(email):
    from apps.accounts.models import Role, User

    return User.objects.create_user(email=email, password=None, role=Role.objects.get(key="member"))


FIELDS = [
    {"type": "heading", "label": "About you"},
    {"type": "text", "label": "Full name", "required": True},
    {"type": "email", "label": "E-mail", "key": "email", "required": True},
    {
        "type": "choice",
        "label": "Customer type",
        "key": "kind",
        "options": ["Person", "Business"],
        "required": True,
    },
    {
        "type": "text",
        "label": "Company",
        "key": "company",
        "required": True,
        "showIf": {"field": "kind", "op": "eq", "value": "Business"},
    },
    {"type": "number", "label": "Seats", "key": "seats", "min": 1, "max": 50},
    {
        "type": "checkbox",
        "label": "I agree",
        "key": "consent",
        "required": True,
        "consentText": "Store my answers.",
    },
]


def test_a_form_built_published_answered_locked_and_exported(people):
    member, admin = people["member"], people["admin"]
    made = ok(member, "createFormTemplate", {"form": {"title": "Workshop sign-up"}, "fields": FIELDS})["form"]
    assert (made["slug"], made["status"], made["version"], made["fields"]) == (
        "workshop-sign-up",
        "draft",
        None,
        6,
    )
    keys = [field["key"] for field in made["draftFields"]]
    assert keys[:2] == ["about_you", "full_name"] and made["publicUrl"] is None

    group = ok(
        member,
        "addFieldGroup",
        {
            "formId": made["id"],
            "title": "Dates",
            "fields": [{"type": "date", "label": "Arrival", "key": "arrival"}],
        },
    )
    assert group["group"]["key"] == "dates" and group["added"][0]["group"] == "dates"

    changed = ok(
        member,
        "updateFormFields",
        {
            "formId": made["id"],
            "fields": [{"key": "seats", "changes": {"label": "How many seats?", "required": True}}],
        },
    )
    assert changed["changed"] == ["seats"]
    order = ok(member, "reorderFormFields", {"formId": made["id"], "keys": ["email", "full_name"]})["order"]
    assert order.index("email") < order.index("full_name")
    assert ok(member, "removeFormFields", {"formId": made["id"], "keys": ["arrival"]})["removed"] == [
        "arrival"
    ]

    live = ok(admin, "manageFormTemplate", {"formId": made["id"], "action": "publish"}, **ELICIT)
    assert live["form"]["version"] == 1 and live["was"] == "draft"
    assert live["form"]["publicUrl"].endswith("/f/workshop-sign-up/") and "is live at" in live["message"]

    schema = ok(member, "getFormSchema", {"formId": made["id"], "version": 1})
    assert schema["jsonSchema"]["required"] == ["email", "full_name", "kind", "seats", "consent"]
    assert schema["jsonSchema"]["properties"]["email"]["format"] == "email"

    said = refused(
        member,
        "submitForm",
        {
            "formId": made["id"],
            "answers": {
                "email": "not-an-address",
                "kind": "Business",
                "seats": 99,
                "consent": False,
                "nope": 1,
            },
        },
    )
    for problem in (
        "`email`: is not a valid e-mail address",
        "`company`: is required",
        "`fullName`: is required",
        "`seats`: must be at most 50",
        "`consent`: must be ticked",
        "`nope`: is not a field of this form",
    ):
        assert problem in said, said
    assert Submission.objects.count() == 0

    answers = {
        "full_name": "Ada",
        "email": "ada@example.org",
        "kind": "Person",
        "company": "Hidden Ltd",
        "seats": 2,
        "consent": True,
    }
    sent = ok(
        member, "submitForm", {"formId": made["id"], "answers": answers, "respondentEmail": "Ada@Example.org"}
    )
    assert (
        sent["version"] == 1
        and sent["respondentEmail"] == "ada@example.org"
        and sent["source"] == "workspace"
    )
    assert "company" not in sent["answers"], "a hidden field's answer is dropped"

    # The draft changes; version 1 and its answers stay as they were.
    ok(member, "removeFormFields", {"formId": made["id"], "keys": ["seats"]})
    assert (
        ok(admin, "manageFormTemplate", {"formId": made["id"], "action": "publish"}, **ELICIT)["form"][
            "version"
        ]
        == 2
    )
    assert "seats" in FormVersion.objects.get(form_id=made["id"], number=1).json_schema["properties"]
    assert Submission.objects.get(pk=sent["id"]).answers["seats"] == 2

    found = ok(member, "searchFormSubmissions", {"formId": made["id"], "query": "Ada"})
    assert [item["id"] for item in found["items"]] == [sent["id"]]
    assert ok(member, "searchFormSubmissions", {"respondentEmail": "ADA@example.org"})["total"] == 1

    locked = ok(admin, "lockSubmission", {"submissionId": sent["id"]})
    assert locked["newlyLocked"] is True and len(locked["submission"]["contentHash"]) == 64
    stored = Submission.objects.get(pk=sent["id"])
    assert stored.content_hash == services.content_hash(stored) and stored.status == "locked"
    assert ok(admin, "lockSubmission", {"submissionId": sent["id"]})["newlyLocked"] is False

    exported = ok(admin, "exportSubmissionPdf", {"submissionId": sent["id"]})
    assert exported["file"]["name"] == f"workshop-sign-up-submission-{sent['id']}.pdf"
    assert exported["contentHash"] == stored.content_hash
    from apps.files import api as files

    data = files.file_bytes(files.file(actor=admin, file_id=exported["file"]["id"]))
    assert data.startswith(b"%PDF-") and exported["pagesBytes"] == len(data)

    examined = ok(member, "examineForms", {"formId": made["id"]})
    assert [version["number"] for version in examined["versions"]] == [2, 1]
    assert examined["versions"][1]["submissions"] == 1 and examined["submissions"] == {
        "received": 0,
        "locked": 1,
    }
    assert examined["recent"][0]["id"] == sent["id"]


def test_conditions_and_field_definitions_are_checked(people):
    member = people["member"]
    form = FormFactory(actor=member, title="Checks")
    before = FormTemplate.objects.get(pk=form.pk).draft
    assert "names no field of this form" in refused(
        member,
        "updateFormFields",
        {
            "formId": form.pk,
            "fields": [{"key": "size", "changes": {"showIf": {"field": "ghost", "op": "eq", "value": 1}}}],
        },
    )
    assert "op 'like' is not one of" in refused(
        member,
        "updateFormFields",
        {
            "formId": form.pk,
            "fields": [{"key": "size", "changes": {"showIf": {"field": "name", "op": "like", "value": 1}}}],
        },
    )
    assert "a field's key never changes" in refused(
        member,
        "updateFormFields",
        {"formId": form.pk, "fields": [{"key": "size", "changes": {"key": "other"}}]},
    )
    assert "keeps its type" in refused(
        member,
        "updateFormFields",
        {"formId": form.pk, "fields": [{"key": "size", "changes": {"type": "text"}}]},
    )
    assert "a choice needs a list of 1 to" in refused(
        member,
        "addFieldGroup",
        {"formId": form.pk, "title": "More", "fields": [{"type": "choice", "label": "Pick"}]},
    )
    assert "'email' is already a field" in refused(
        member,
        "addFieldGroup",
        {"formId": form.pk, "title": "More", "fields": [{"type": "email", "label": "Mail", "key": "email"}]},
    )
    assert "'ghost' is not a field of this form's draft" in refused(
        member, "removeFormFields", {"formId": form.pk, "keys": ["ghost"]}
    )
    assert "names a field twice" in refused(
        member, "reorderFormFields", {"formId": form.pk, "keys": ["name", "name"]}
    )
    assert FormTemplate.objects.get(pk=form.pk).draft == before, "nothing half-written"


def test_bad_values_and_unknown_ids_are_clear_errors_that_write_nothing(people):
    admin = people["admin"]
    before = FormTemplate.objects.count()
    assert "title" in refused(admin, "createFormTemplate", {"form": {"description": "x"}})
    assert "Form 999999 was not found" in refused(
        admin, "updateFormTemplate", {"formId": 999999, "changes": {"title": "x"}}
    )
    assert "Say what to change" in refused(
        admin, "updateFormTemplate", {"formId": FormFactory(actor=admin).pk, "changes": {}}
    )
    assert "was not found" in refused(
        admin, "manageFormTemplate", {"formId": 999999, "action": "publish"}, **ELICIT
    )
    assert "was not found" in refused(admin, "lockSubmission", {"submissionId": 999999})
    assert "was not found" in refused(admin, "exportSubmissionPdf", {"submissionId": 999999})
    assert "`limit`" in refused(admin, "searchFormTemplates", {"limit": 500})
    empty = FormFactory(actor=admin, fields=[{"type": "heading", "label": "Only a title"}])
    assert "has no field to answer" in refused(
        admin, "manageFormTemplate", {"formId": empty.pk, "action": "publish"}, **ELICIT
    )
    assert "only a published form closes" in refused(
        admin, "manageFormTemplate", {"formId": empty.pk, "action": "close"}, **ELICIT
    )
    assert "has no version 3" in refused(admin, "getFormSchema", {"formId": empty.pk, "version": 3})
    draft = FormFactory(actor=admin)
    assert "takes submissions only while published" in refused(
        admin, "submitForm", {"formId": draft.pk, "answers": {"name": "A"}}
    )
    taken = FormFactory(actor=admin, slug="taken")
    assert "'taken' is taken by form" in refused(
        admin, "createFormTemplate", {"form": {"title": "T", "slug": "taken"}}
    )
    assert FormTemplate.objects.count() == before + 4 and taken.slug == "taken"
    assert Submission.objects.count() == 0


def test_publishing_asks_first_and_close_reopen_archive_restore(people):
    admin = people["admin"]
    form = FormFactory(actor=admin, title="Poll")
    asked = call(admin, "manageFormTemplate", {"formId": form.pk, "action": "publish"})
    assert FormTemplate.objects.get(pk=form.pk).status == "draft", asked
    for action, status in (
        ("publish", "published"),
        ("close", "closed"),
        ("reopen", "published"),
        ("archive", "archived"),
        ("restore", "draft"),
    ):
        assert (
            ok(admin, "manageFormTemplate", {"formId": form.pk, "action": action}, **ELICIT)["form"]["status"]
            == status
        )
    assert FormVersion.objects.filter(form=form).count() == 1, (
        "publishing an unchanged draft makes no new version"
    )


def test_private_forms_and_their_submissions_stay_their_owners(people):
    member, admin = people["member"], people["admin"]
    other = _colleague("former@acme.example")
    secret = published(admin, title="Secret salary survey", visibility="private", owner_email=member.email)
    answered = submission(secret, {"name": "Bo", "email": "bo@example.org"})

    assert "was not found" in refused(other, "examineForms", {"formId": secret.pk})
    assert "was not found" in refused(other, "submitForm", {"formId": secret.pk, "answers": {}})
    assert ok(other, "searchFormTemplates", {"query": "salary"})["total"] == 0
    assert ok(other, "searchFormSubmissions", {"respondentEmail": "bo@example.org"})["total"] == 0
    said = refused(other, "searchFormSubmissions", {"formId": secret.pk})
    assert "was not found" in said and "salary" not in said.lower()
    assert ok(member, "searchFormTemplates", {"query": "salary"})["total"] == 1
    assert ok(member, "searchFormSubmissions", {"formId": secret.pk})["items"][0]["id"] == answered.pk
    assert ok(admin, "searchFormSubmissions", {"respondentEmail": "bo@example.org"})["total"] == 1


def test_a_file_answer_is_a_file_the_caller_may_see(people):
    from apps.files.tests.factories import FileFactory

    member = people["member"]
    form = published(
        people["admin"],
        title="Claims",
        fields=[
            {
                "type": "file",
                "label": "Receipt",
                "key": "receipt",
                "accept": ["application/pdf"],
                "required": True,
            }
        ],
    )
    pdf = FileFactory(actor=member, name="receipt.pdf", text="%PDF-1.4\n%fake\n")
    sent = ok(member, "submitForm", {"formId": form.pk, "answers": {"receipt": {"fileId": pdf.pk}}})
    assert sent["answers"]["receipt"]["mimeType"] == "application/pdf" and sent["fileIds"] == [pdf.pk]
    text = FileFactory(actor=member, name="notes.txt", text="hello")
    said = refused(member, "submitForm", {"formId": form.pk, "answers": {"receipt": {"fileId": text.pk}}})
    assert "`receipt`: the file's type is not one of application/pdf" in said
