"""A form's public page on the workspace's host, for people not signed in: rendered from its
published version, answers checked on the server (each failing field named), uploads sniffed and
capped and stored in Files, a honeypot and a per-address cap; the settings page and its CSV."""

import io

import pytest
from django.core.cache import cache

from apps.files.models import File
from apps.forms.models import Submission
from apps.forms.public import submissions_key
from apps.forms.tests.factories import FormFactory, published


def _png() -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (8, 8), color="teal").save(out, format="PNG")
    return out.getvalue()


FIELDS = [
    {"type": "text", "label": "Your name", "key": "name", "required": True},
    {"type": "email", "label": "E-mail", "key": "email", "required": True},
    {"type": "choice", "label": "Topics", "key": "topics", "options": ["Design", "Code"], "multiple": True},
    {
        "type": "checkbox",
        "label": "I agree",
        "key": "consent",
        "required": True,
        "consentText": "Keep my answers.",
    },
    {"type": "file", "label": "Photo", "key": "photo", "accept": ["image/png"], "maxSizeMb": 1},
]


@pytest.fixture
def form(people):
    cache.delete(submissions_key("acme", 0, "127.0.0.1"))
    made = published(people["admin"], title="Meetup sign-up", slug="meetup", fields=FIELDS)
    cache.delete(submissions_key("acme", made.pk, "127.0.0.1"))
    return made


def test_filled_in_validated_and_stored_with_its_upload(form, acme_client):
    from django.core.files.uploadedfile import SimpleUploadedFile

    page = acme_client.get("/f/meetup/")
    html = page.content.decode()
    assert page.status_code == 200 and page["Cache-Control"] == "no-store"
    assert '<label for="f-name">Your name *</label>' in html and "Keep my answers." in html
    assert 'name="website"' in html and 'enctype="multipart/form-data"' in html

    bad = acme_client.post("/f/meetup/", {"email": "nope", "topics": ["Design", "Cooking"]})
    text = bad.content.decode()
    assert bad.status_code == 400 and 'role="alert"' in text
    for problem in (
        "name</a>: is required",
        "email</a>: is not a valid e-mail address",
        "consent</a>: must be ticked",
        "topics</a>: must be one of: Design, Code",
    ):
        assert problem in text, text
    assert 'value="nope"' in text, "what was typed is kept"
    assert Submission.objects.count() == 0

    photo = SimpleUploadedFile("me.png", _png(), content_type="image/png")
    sent = acme_client.post(
        "/f/meetup/",
        {"name": "Ada", "email": "Ada@Example.org", "topics": ["Code"], "consent": "1", "photo": photo},
    )
    assert sent.status_code == 302 and sent["Location"] == "/f/meetup/?sent=1"
    stored = Submission.objects.get()
    assert stored.source == "public" and stored.respondent_email == "ada@example.org"
    assert stored.answers["topics"] == ["Code"] and stored.answers["consent"] is True
    upload = File.objects.get(pk=stored.answers["photo"]["fileId"])
    assert (
        stored.file_ids == [upload.pk] and upload.mime_type == "image/png" and upload.visibility == "private"
    )
    assert upload.folder.name == "meetup" and upload.owner == form.owner
    assert "Thank you" in acme_client.get("/f/meetup/?sent=1").content.decode()


def test_uploads_of_the_wrong_type_or_too_large_are_refused(form, acme_client):
    from django.core.files.uploadedfile import SimpleUploadedFile

    base = {"name": "Bo", "email": "bo@example.org", "consent": "1"}
    disguised = SimpleUploadedFile("cat.png", b"#!/bin/sh\necho not an image\n", content_type="image/png")
    said = acme_client.post("/f/meetup/", {**base, "photo": disguised})
    assert said.status_code == 400 and "its content is of no known type" in said.content.decode()
    large = SimpleUploadedFile("big.png", _png() + b"\0" * (1024 * 1024), content_type="image/png")
    said = acme_client.post("/f/meetup/", {**base, "photo": large})
    assert said.status_code == 400 and "larger than 1 MB" in said.content.decode()
    assert (
        Submission.objects.count() == 0 and not File.objects.filter(name__in=["cat.png", "big.png"]).exists()
    )


def test_a_honeypot_a_cap_and_forms_not_open_are_404(form, people, acme_client, settings):
    settings.ATRIUM_FORMS_SUBMISSIONS_PER_HOUR = 1
    robot = acme_client.post(
        "/f/meetup/", {"name": "x", "email": "x@example.org", "consent": "1", "website": "spam"}
    )
    assert robot.status_code == 302 and Submission.objects.count() == 0
    answers = {"name": "Cy", "email": "cy@example.org", "consent": "1"}
    assert acme_client.post("/f/meetup/", answers).status_code == 302
    assert acme_client.post("/f/meetup/", answers).status_code == 429
    assert Submission.objects.count() == 1

    FormFactory(actor=people["admin"], title="Draft", slug="draft-form")
    published(people["admin"], title="Private", slug="private-form", visibility="private")
    for slug in ("draft-form", "private-form", "not-there"):
        assert acme_client.get(f"/f/{slug}/").status_code == 404


def test_the_settings_page_lists_forms_and_exports_submissions(form, people, acme_client):
    from apps.forms.tests.factories import submission

    submission(form, {"name": "Di", "email": "di@example.org", "consent": True})
    acme_client.force_login(people["member"])
    page = acme_client.get("/settings/forms/")
    html = page.content.decode()
    assert page.status_code == 200 and "Meetup sign-up" in html and "di@example.org" in html
    csv = acme_client.get(f"/settings/forms/{form.pk}/submissions.csv")
    assert csv.status_code == 200 and csv["Content-Type"].startswith("text/csv")
    assert "di@example.org" in csv.content.decode() and '""name"": ""Di""' in csv.content.decode()
    acme_client.force_login(people["viewer"])
    assert acme_client.get("/settings/forms/").status_code == 200
