"""A form's life, as a small company lives it: built with its fields (a choice, an e-mail, a file,
a consent), published, shared with the workspace, answered on /f/<form>/ by two people (one come
from a newsletter's link), a bad answer refused with each field's problem and nothing kept, the
answers read and exported as CSV, the form changed (a new version; the old answers keep theirs),
then closed, and the page says so. Another person's private form is never listed nor found."""

import csv
import io

from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile

from apps.accounts.models import Role, User
from apps.catalogue.testing import confirmed, ok, refused
from apps.files.models import File
from apps.forms.models import FormVersion, Submission
from apps.forms.public import submissions_key
from apps.forms.tests.test_forms_public import _png

ELICIT = {"capabilities": {"elicitation": {}}, "elicit": confirmed}

FIELDS = [
    {"type": "text", "label": "Your name", "key": "name", "required": True},
    {"type": "email", "label": "E-mail", "key": "email", "required": True},
    {"type": "choice", "label": "Plan", "key": "plan", "options": ["Starter", "Team"], "required": True},
    {"type": "file", "label": "Logo", "key": "logo", "accept": ["image/png"], "maxSizeMb": 1},
    {
        "type": "checkbox",
        "label": "Consent",
        "key": "consent",
        "required": True,
        "consentText": "Contact me about the beta.",
    },
]


def _rows(body: bytes) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(body.decode("utf-8-sig"))))


def test_a_forms_life(people, acme_client):
    admin, member = people["admin"], people["member"]
    colleague = User.objects.create_user(
        email="colleague@acme.example", password=None, role=Role.objects.get(key="member")
    )
    secret = ok(
        admin,
        "createFormTemplate",
        {"form": {"title": "Salary review", "visibility": "private"}, "fields": FIELDS[:2]},
    )["form"]

    # Built, private while it is made: nobody else lists or finds it.
    made = ok(
        admin,
        "createFormTemplate",
        {"form": {"title": "Beta sign-up", "visibility": "private"}, "fields": FIELDS},
    )["form"]
    assert [field["type"] for field in made["draftFields"]] == ["text", "email", "choice", "file", "checkbox"]
    form_id = made["id"]
    assert ok(member, "searchFormTemplates", {"query": "beta"})["total"] == 0
    hidden = refused(member, "examineForms", {"formId": form_id})
    assert "was not found" in hidden and "Beta" not in hidden

    # Published: version 1, still private, so the public page is not there yet.
    live = ok(admin, "manageFormTemplate", {"formId": form_id, "action": "publish"}, **ELICIT)
    assert live["form"]["version"] == 1 and live["form"]["publicUrl"] is None
    assert acme_client.get("/f/beta-sign-up/").status_code == 404

    # Shared with the workspace: colleagues find it, and the public answers it.
    shared = ok(admin, "updateFormTemplate", {"formId": form_id, "changes": {"visibility": "workspace"}})
    assert shared["changed"] == ["visibility"] and shared["form"]["visibility"] == "workspace"
    assert shared["form"]["publicUrl"].endswith("/f/beta-sign-up/")
    assert [item["id"] for item in ok(member, "searchFormTemplates", {"query": "beta"})["items"]] == [form_id]
    cache.delete(submissions_key("acme", form_id, "127.0.0.1"))

    page = acme_client.get("/f/beta-sign-up/?utm_source=newsletter&utm_campaign=beta")
    html = page.content.decode()
    assert page.status_code == 200 and "Contact me about the beta." in html
    assert '<input type="hidden" name="utm_source" value="newsletter">' in html

    # A bad answer: each field's problem named, what was typed kept, nothing stored.
    wrong = SimpleUploadedFile("logo.png", b"not a picture at all", content_type="image/png")
    bad = acme_client.post(
        "/f/beta-sign-up/", {"name": "Ada", "email": "ada@", "plan": "Enterprise", "logo": wrong}
    )
    text = bad.content.decode()
    assert bad.status_code == 400 and 'role="alert"' in text
    assert "logo" in text and "its content is of no known type" in text
    bad = acme_client.post("/f/beta-sign-up/", {"name": "Ada", "email": "ada@", "plan": "Enterprise"})
    text = bad.content.decode()
    assert bad.status_code == 400
    for key, problem in (
        ("email", "is not a valid e-mail address"),
        ("plan", "must be one of: Starter, Team"),
        ("consent", "must be ticked"),
    ):
        assert f"{key}</a>: {problem}" in text, text
    assert 'value="Ada"' in text
    assert Submission.objects.count() == 0 and not File.objects.filter(name="logo.png").exists()

    # Two people answer: Ada from the newsletter (its parameters ride along), Bo directly.
    logo = SimpleUploadedFile("logo.png", _png(), content_type="image/png")
    sent = acme_client.post(
        "/f/beta-sign-up/",
        {
            "name": "Ada",
            "email": "ada@example.org",
            "plan": "Team",
            "consent": "1",
            "logo": logo,
            "utm_source": "newsletter",
            "utm_campaign": "beta",
        },
    )
    assert sent.status_code == 302 and sent["Location"] == "/f/beta-sign-up/?sent=1"
    assert "Thank you" in acme_client.get(sent["Location"]).content.decode()
    sent = acme_client.post(
        "/f/beta-sign-up/", {"name": "Bo", "email": "bo@example.org", "plan": "Starter", "consent": "1"}
    )
    assert sent.status_code == 302

    # The answers read by a colleague, and exported.
    answered = ok(member, "searchFormSubmissions", {"formId": form_id})
    by_email = {item["respondentEmail"]: item for item in answered["items"]}
    assert answered["total"] == 2 and set(by_email) == {"ada@example.org", "bo@example.org"}
    ada, bo = by_email["ada@example.org"], by_email["bo@example.org"]
    assert ada["utm"] == {"utm_source": "newsletter", "utm_campaign": "beta"} and bo["utm"] == {}
    assert ada["answers"]["plan"] == "Team" and ada["answers"]["consent"] is True
    assert ada["answers"]["logo"]["fileId"] == ada["fileIds"][0] and ada["source"] == "public"
    examined = ok(member, "examineForms", {"formId": form_id})
    assert examined["submissions"]["received"] == 2 and examined["versions"][0]["submissions"] == 2

    acme_client.force_login(member)
    exported = acme_client.get(f"/settings/forms/{form_id}/submissions.csv")
    assert exported.status_code == 200 and exported["Content-Type"].startswith("text/csv")
    rows = {row["respondentEmail"]: row for row in _rows(exported.content)}
    assert set(rows) == {"ada@example.org", "bo@example.org"}
    assert (rows["ada@example.org"]["utmSource"], rows["ada@example.org"]["utmCampaign"]) == (
        "newsletter",
        "beta",
    )
    assert (
        rows["bo@example.org"]["version"] == "1" and '"plan": "Starter"' in rows["bo@example.org"]["answers"]
    )
    acme_client.logout()

    # The form changes: a label, the logo gone, a new question; version 2. The old answers keep 1.
    ok(
        admin,
        "updateFormFields",
        {"formId": form_id, "fields": [{"key": "plan", "changes": {"label": "Which plan?"}}]},
    )
    ok(admin, "removeFormFields", {"formId": form_id, "keys": ["logo"]})
    ok(
        admin,
        "addFieldGroup",
        {
            "formId": form_id,
            "title": "More",
            "fields": [{"type": "textarea", "label": "Team size", "key": "size"}],
        },
    )
    second = ok(admin, "manageFormTemplate", {"formId": form_id, "action": "publish"}, **ELICIT)
    assert second["form"]["version"] == 2
    html = acme_client.get("/f/beta-sign-up/").content.decode()
    assert "Which plan?" in html and "Team size" in html and 'name="logo"' not in html
    assert (
        acme_client.post(
            "/f/beta-sign-up/",
            {"name": "Cy", "email": "cy@example.org", "plan": "Team", "consent": "1", "size": "12"},
        ).status_code
        == 302
    )
    versions = dict(Submission.objects.values_list("respondent_email", "version__number"))
    assert versions == {"ada@example.org": 1, "bo@example.org": 1, "cy@example.org": 2}
    assert "logo" in Submission.objects.get(respondent_email="ada@example.org").answers
    assert "logo" in FormVersion.objects.get(form_id=form_id, number=1).json_schema["properties"]

    # Closed: the page says so, and takes no more answers.
    closed = ok(admin, "manageFormTemplate", {"formId": form_id, "action": "close"}, **ELICIT)
    assert closed["form"]["status"] == "closed"
    page = acme_client.get("/f/beta-sign-up/")
    html = page.content.decode()
    assert page.status_code == 200 and "Beta sign-up" in html and "closed" in html
    assert "<form" not in html and 'name="email"' not in html
    late = acme_client.post(
        "/f/beta-sign-up/", {"name": "Di", "email": "di@example.org", "plan": "Team", "consent": "1"}
    )
    assert late.status_code == 403 and "closed" in late.content.decode()
    assert Submission.objects.count() == 3

    # The other private form stays its maker's: never listed, found, nor quoted.
    listed = [item["id"] for item in ok(member, "searchFormTemplates", {"limit": 100})["items"]]
    assert form_id in listed and secret["id"] not in listed
    said = refused(member, "searchFormSubmissions", {"formId": secret["id"]})
    assert "was not found" in said and "Salary" not in said
    assert refused(colleague, "examineForms", {"formId": secret["id"]}).count("Salary") == 0
    assert acme_client.get("/f/salary-review/").status_code == 404


def test_the_csv_hands_a_spreadsheet_no_formula(people, acme_client):
    from apps.forms.tests.factories import published

    form = published(people["admin"], title="Poll", slug="poll", fields=FIELDS[:2])
    cache.delete(submissions_key("acme", form.pk, "127.0.0.1"))
    sent = acme_client.post(
        "/f/poll/",
        {"name": "Eve", "email": "-2+3@example.org", "utm_source": '=HYPERLINK("http://evil.example")'},
    )
    assert sent.status_code == 302
    acme_client.force_login(people["member"])
    [row] = _rows(acme_client.get(f"/settings/forms/{form.pk}/submissions.csv").content)
    assert row["respondentEmail"] == "'-2+3@example.org"
    assert row["utmSource"] == '\'=HYPERLINK("http://evil.example")'
