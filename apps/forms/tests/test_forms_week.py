"""What a week of a sign-up form found: the public's bad and hostile posts refused with their
problems named (never a 500, nothing half kept), a field named like the honeypot, far dates, and
answers kept through a field's change."""

import io

import pytest
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile

from apps.catalogue.dispatch import ToolNotFound
from apps.catalogue.testing import call, confirmed, ok, refused
from apps.forms.models import Submission
from apps.forms.public import submissions_key
from apps.forms.tests.factories import published

FIELDS = [
    {"type": "text", "label": "Your name", "key": "name", "required": True},
    {"type": "email", "label": "E-mail", "key": "email", "required": True},
    {"type": "number", "label": "Guests", "key": "guests", "min": 0, "max": 10},
    {"type": "date", "label": "Arrival", "key": "arrival"},
    {"type": "choice", "label": "Track", "key": "track", "options": ["Design", "Code"]},
    {"type": "file", "label": "Photo", "key": "photo", "accept": ["image/png"], "maxSizeMb": 1},
]


def _png() -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (8, 8), color="teal").save(out, format="PNG")
    return out.getvalue()


@pytest.fixture
def signup(people):
    made = published(people["admin"], title="Week sign-up", slug="week-signup", fields=FIELDS)
    cache.delete(submissions_key("acme", made.pk, "127.0.0.1"))
    return made


GOOD = {"name": "Ada", "email": "ada@example.org"}


@pytest.mark.parametrize(
    "bad",
    [
        {"name": "Ada\x00Lovelace"},
        {"email": "ada\x00@example.org"},
        {"guests": "nan"},
        {"guests": "inf"},
        {"guests": "1e400"},
        {"arrival": "9999-12-31"},
        {"arrival": "0001-01-01"},
        {"track": "Cooking"},
        {"name": "x" * 200_000},
    ],
)
def test_a_hostile_public_post_is_refused_and_keeps_nothing(signup, acme_client, bad):
    before = Submission.objects.count()
    answer = acme_client.post("/f/week-signup/", {**GOOD, **bad})
    assert answer.status_code == 400, answer.content[:300]
    assert Submission.objects.count() == before


def test_where_a_respondent_came_from_keeps_only_what_can_be_stored(signup, acme_client):
    answer = acme_client.post("/f/week-signup/", {**GOOD, "utm_source": "news\x00letter"})
    assert answer.status_code == 302
    assert Submission.objects.get(form=signup).utm == {"utm_source": "newsletter"}


def test_an_oversize_or_disguised_upload_is_refused(signup, acme_client):
    big = SimpleUploadedFile("big.png", _png() + b"\0" * (1024 * 1024 + 10), content_type="image/png")
    answer = acme_client.post("/f/week-signup/", {**GOOD, "photo": big})
    assert answer.status_code == 400 and "larger than 1 MB" in answer.content.decode()
    fake = SimpleUploadedFile("me.png", b"<script>alert(1)</script>", content_type="image/png")
    answer = acme_client.post("/f/week-signup/", {**GOOD, "photo": fake})
    assert answer.status_code == 400 and "<script>alert" not in answer.content.decode()
    assert not Submission.objects.filter(form=signup).exists()


def test_a_form_asking_for_a_website_keeps_the_answers(people, acme_client):
    form = published(
        people["admin"],
        title="Partner sign-up",
        slug="partners",
        fields=[
            {"type": "text", "label": "Company", "required": True},
            {"type": "text", "label": "Website"},
        ],
    )
    cache.delete(submissions_key("acme", form.pk, "127.0.0.1"))
    keys = [field["key"] for field in form.current_version.definition["fields"]]
    answer = acme_client.post("/f/partners/", {keys[0]: "Acme", keys[1]: "https://acme.example"})
    assert answer.status_code == 302
    kept = Submission.objects.get(form=form)
    assert kept.answers[keys[1]] == "https://acme.example"


ELICIT = {"capabilities": {"elicitation": {}}, "elicit": confirmed}


def test_a_week_through_the_tools_far_dates_refused_and_old_answers_kept(people, acme_client):
    member, admin, viewer = people["member"], people["admin"], people["viewer"]
    made = ok(member, "createFormTemplate", {"form": {"title": "Retreat"}, "fields": FIELDS[:4]})["form"]
    with pytest.raises(ToolNotFound):  # a member builds forms; publishing is not among their tools
        ok(member, "manageFormTemplate", {"formId": made["id"], "action": "publish"})
    ok(admin, "manageFormTemplate", {"formId": made["id"], "action": "publish"}, **ELICIT)
    with pytest.raises(ToolNotFound):
        ok(viewer, "submitForm", {"formId": made["id"], "answers": GOOD})
    for far in ("0999-12-31", "3000-01-01"):
        said = refused(member, "submitForm", {"formId": made["id"], "answers": {**GOOD, "arrival": far}})
        assert "arrival" in said and "1000" in said
    kept = ok(member, "submitForm", {"formId": made["id"], "answers": {**GOOD, "arrival": "2027-05-01"}})
    # The date field goes; the answer given to the version that had it stays, in the CSV too.
    ok(member, "removeFormFields", {"formId": made["id"], "keys": ["arrival"]})
    ok(admin, "manageFormTemplate", {"formId": made["id"], "action": "publish"}, **ELICIT)
    assert Submission.objects.get(pk=kept["id"]).answers["arrival"] == "2027-05-01"
    acme_client.force_login(admin)
    csv = acme_client.get(f"/settings/forms/{made['id']}/submissions.csv").content.decode()
    assert "2027-05-01" in csv


def test_a_private_forms_answers_are_not_exported_to_others(people, acme_client):
    member, viewer = people["member"], people["viewer"]
    form = published(
        people["admin"],
        title="Pay survey",
        slug="pay",
        visibility="private",
        owner_email=member.email,
        fields=FIELDS[:2],
    )
    ok(member, "submitForm", {"formId": form.pk, "answers": GOOD})
    acme_client.force_login(viewer)
    answer = acme_client.get(f"/settings/forms/{form.pk}/submissions.csv")
    assert answer.status_code == 404 and b"ada@example.org" not in answer.content
    assert b"Pay survey" not in acme_client.get("/settings/forms/").content
    assert acme_client.get("/f/pay/").status_code == 404


@pytest.mark.parametrize(
    "since", ["0001-01-01T00:00:00+05:00", "9999-12-31T23:00:00-05:00", "2026-01-01T00:00:00"]
)
def test_submissions_since_any_time_is_an_answer_not_a_crash(people, signup, since):
    result = call(people["viewer"], "searchFormSubmissions", {"since": since})
    if since.startswith("2026"):
        assert result["isError"] is False
    else:
        assert "must be in the years 1000 to 2999" in result["content"][0]["text"]
