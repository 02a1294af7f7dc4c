"""A published landing page in a real browser (Debian's Chromium through Playwright) against the
live server, at laptop and phone width with axe-core: its blocks and the embedded form, refused
with its problems named, then sent; the submission stored and counted as a conversion with the
UTM parameters the visitor came with. In Globex, so that what it commits touches none of the
area's other tests (they run in Acme)."""

import uuid

import pytest

from apps.forms.tests.test_forms_pages_browser import in_globex
from tests.test_browser_layout import LAPTOP, PHONE, problems

pytestmark = pytest.mark.live


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_a_landing_page_with_its_form_filled_in(page, live_http, committed, viewport):
    from django.core.cache import cache

    from apps.accounts.models import User
    from apps.forms.models import FormTemplate, Submission
    from apps.forms.public import submissions_key
    from apps.forms.tests.factories import published
    from apps.marketing import landing
    from apps.marketing.models import Conversion, LandingPage

    tag = uuid.uuid4().hex[:8]
    with in_globex():
        owner = User.objects.get(email="owner@globex.example")
        form = published(
            owner,
            title=f"Offer form {tag}",
            slug=f"offer-form-{tag}",
            fields=[
                {"type": "text", "label": "Your name", "key": "name", "required": True},
                {"type": "email", "label": "E-mail", "key": "email", "required": True},
            ],
        )
        made = landing.create(
            actor=owner,
            fields={
                "name": f"Offer {tag}",
                "slug": f"offer-{tag}",
                "title": f"Spring offer {tag}",
                "description": "Twenty percent off",
                "blocks": [
                    {"type": "text", "html": "<p>Twenty percent off <strong>all spring</strong>.</p>"},
                    {"type": "cta", "label": "Claim it below", "url": "#form"},
                    {"type": "form", "formId": form.pk},
                ],
                "status": "published",
            },
        )
    cache.delete(submissions_key("globex", form.pk, "127.0.0.1"))
    server = live_http.url("127.0.0.2")
    try:
        page.set_viewport_size(viewport)
        # Headless Chromium says "HeadlessChrome", on the crawler list (not counted): a person's
        # Chromium says "Chrome".
        agent = page.evaluate("navigator.userAgent").replace("HeadlessChrome", "Chrome")
        page.set_extra_http_headers({"User-Agent": agent})
        page.goto(f"{server}/p/offer-{tag}/?utm_source=newsletter&utm_medium=email")
        assert page.get_by_role("heading", level=1).inner_text() == f"Spring offer {tag}"
        assert "all spring" in page.inner_text("main")
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
        page.get_by_role("button", name="Send").click()
        page.wait_for_url("**?sent=1*")
        assert "your answers were received" in page.get_by_role("status").inner_text()
        assert problems(page) == []
        with in_globex():
            stored = Submission.objects.get(form_id=form.pk)
            assert stored.answers == {"name": f"Reader {tag}", "email": f"reader-{tag}@example.org"}
            conversion = Conversion.objects.get(page_id=made.pk)
            assert conversion.submission_id == stored.pk
            assert conversion.utm == {"utm_source": "newsletter", "utm_medium": "email"}
            assert stored.utm == conversion.utm
            counted = LandingPage.objects.get(pk=made.pk)
            # The reload after the refused form is the same visitor within 30 minutes: one visit.
            assert counted.conversions == 1 and counted.visits == 1
    finally:
        with in_globex():
            Conversion.objects.filter(page_id=made.pk).delete()
            LandingPage.objects.filter(pk=made.pk).update(deleted_at=made.updated_at)
            Submission.objects.filter(form_id=form.pk).delete()
            FormTemplate.objects.filter(pk=form.pk).update(deleted_at=form.updated_at)
