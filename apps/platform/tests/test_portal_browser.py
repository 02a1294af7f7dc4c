"""The client portal's page in a real browser (Debian's Chromium through Playwright), on a laptop
and on a phone: a portal user signs in on the workspace's sign-in page, lands on the portal, sees
the one document shared with them, opens it, and signs out; the pages never scroll sideways and
axe-core finds nothing serious or critical (tests/test_browser_layout.py's checks)."""

import uuid
from typing import Any

import pytest
from django.contrib.auth.hashers import make_password

from tests.test_browser_layout import LAPTOP, PHONE, UNBROKEN, in_acme, problems

pytestmark = pytest.mark.live

PASSWORD = "quiet-harbour-lantern-42"


@pytest.fixture
def portal_records(committed) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    from apps.accounts.models import User
    from apps.contacts.tests.factories import ContactFactory
    from apps.core.sharing import change
    from apps.documents.tests.factories import DocumentFactory
    from apps.platform import portal

    tag = uuid.uuid4().hex[:8]
    with in_acme():
        owner = User.objects.get(email="owner@acme.example")
        contact = ContactFactory(actor=owner, first_name=f"Client {tag}", email=f"portal-{tag}@example.com")
        row = portal.invite(
            actor=owner, contact_id=contact.pk, email=None, full_name="", origin="https://acme.example"
        )
        User.objects.filter(pk=row.user_id).update(password=make_password(PASSWORD))
        shared = DocumentFactory(
            actor=owner, title=f"Shared plan {tag} {UNBROKEN}", content=f"Milestones {tag}"
        )
        hidden = DocumentFactory(actor=owner, title=f"Hidden notes {tag}", content="internal")
        change(shared, actor=owner, person_email=contact.email, access="view", visibility=None)
    return {"email": contact.email, "shared": shared, "hidden": hidden, "tag": tag}


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_the_portal_page_shows_what_is_shared_fits_the_window_and_passes_axe(
    portal_records, page, live_http, viewport
):
    # The records first: made before Playwright's event loop exists in this thread.
    base = live_http.url("127.0.0.1")
    page.set_viewport_size(viewport)
    page.goto(f"{base}/")
    page.get_by_label("Email").fill(portal_records["email"])
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/portal/")

    assert page.get_by_role("heading", name="Shared with you").is_visible()
    documents = page.get_by_test_id("portal-documents").get_by_role("link")
    assert documents.count() == 1
    assert f"Shared plan {portal_records['tag']}" in documents.first.inner_text()
    assert "Hidden notes" not in page.content()
    found = {"portal": problems(page)}

    documents.first.click()
    page.wait_for_url(f"**/portal/documents/{portal_records['shared'].pk}/")
    assert f"Milestones {portal_records['tag']}" in page.locator("article.document").inner_text()
    found["document"] = problems(page)

    assert page.goto(f"{base}/portal/documents/{portal_records['hidden'].pk}/").status == 404
    assert page.goto(f"{base}/settings/tokens/").status == 404
    page.goto(f"{base}/portal/")
    page.get_by_role("button", name="Sign out").click()
    assert page.goto(f"{base}/portal/").url.startswith(f"{base}/accounts/sign-in/")

    assert {name: issues for name, issues in found.items() if issues} == {}
