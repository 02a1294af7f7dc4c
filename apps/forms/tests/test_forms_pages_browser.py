"""A public form filled in a real browser (Debian's Chromium through Playwright) against the live
server, at laptop and phone width with axe-core: refused with its problems named, then sent and
stored; the owner sees the submission on Settings → Forms. In Globex, so that what it commits
touches none of the area's other tests (they run in Acme)."""

import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from django.db import connection
from django_tenants.utils import schema_context

from tests.test_browser_layout import LAPTOP, PHONE, problems, sign_in

pytestmark = pytest.mark.live


@contextmanager
def in_globex() -> Iterator[None]:
    try:
        with schema_context("globex"):
            yield
    finally:
        connection.close()


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_a_public_form_filled_in_validated_and_stored(page, live_http, committed, viewport):
    from django.core.cache import cache

    from apps.accounts.models import User
    from apps.forms.models import FormTemplate, Submission
    from apps.forms.public import submissions_key
    from apps.forms.tests.factories import published

    tag = uuid.uuid4().hex[:8]
    with in_globex():
        owner = User.objects.get(email="owner@globex.example")
        form = published(
            owner,
            title=f"Browser form {tag}",
            slug=f"browser-{tag}",
            fields=[
                {"type": "text", "label": "Your name", "key": "name", "required": True},
                {"type": "email", "label": "E-mail", "key": "email", "required": True},
                {"type": "choice", "label": "Size", "key": "size", "options": ["Small", "Large"]},
            ],
        )
    cache.delete(submissions_key("globex", form.pk, "127.0.0.1"))
    server = live_http.url("127.0.0.2")
    try:
        page.set_viewport_size(viewport)
        page.goto(f"{server}/f/browser-{tag}/")
        assert page.get_by_role("heading", level=1).inner_text() == f"Browser form {tag}"
        assert problems(page) == []

        # The browser's own checks are skipped: the server's are the ones that count.
        page.eval_on_selector("form.public-form", "form => form.setAttribute('novalidate', '')")
        page.get_by_label("E-mail *", exact=True).fill("not-an-address")
        page.get_by_role("button", name="Send").click()
        alert = page.get_by_role("alert").inner_text()
        assert "is required" in alert and "is not a valid e-mail address" in alert
        assert problems(page) == []

        page.get_by_label("Your name *", exact=True).fill(f"Reader {tag}")
        page.get_by_label("E-mail *", exact=True).fill(f"reader-{tag}@example.org")
        page.get_by_label("Size", exact=True).select_option("Large")
        page.get_by_role("button", name="Send").click()
        page.wait_for_url("**?sent=1")
        assert "your answers were received" in page.get_by_role("status").inner_text()
        with in_globex():
            stored = Submission.objects.get(form_id=form.pk)
            assert stored.answers == {
                "name": f"Reader {tag}",
                "email": f"reader-{tag}@example.org",
                "size": "Large",
            }

        sign_in(page, server, "owner@globex.example")
        page.goto(f"{server}/settings/forms/")
        assert f"reader-{tag}@example.org" in page.inner_text("main")
        assert problems(page) == []
    finally:
        with in_globex():
            Submission.objects.filter(form_id=form.pk).delete()
            FormTemplate.objects.filter(pk=form.pk).update(deleted_at=form.updated_at)
