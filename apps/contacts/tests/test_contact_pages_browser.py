"""The Contacts pages in a real browser (Debian's Chromium through Playwright), against the live
server: from the list, a search, then a contact's page."""

import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from django.db import connection, transaction
from django_tenants.utils import schema_context

pytestmark = pytest.mark.live


@contextmanager
def in_acme() -> Iterator[None]:
    """Database work inside a browser test: the connection is closed when done (Playwright's
    event loop in this thread keeps it apart from the test's usual one)."""
    try:
        with schema_context("acme"):
            yield
    finally:
        connection.close()


def test_a_person_searches_the_contacts_and_opens_one(page, live_http, committed):
    from apps.accounts.models import User
    from apps.contacts import services

    word = uuid.uuid4().hex[:8]
    with in_acme(), transaction.atomic():
        member = User.objects.get(email="member@acme.example")
        found, _duplicates = services.contact_create(
            actor=member,
            fields={
                "first_name": "Ottoline",
                "last_name": f"Browse{word}",
                "email": f"ottoline.{word}@example.org",
            },
        )
        services.contact_create(actor=member, fields={"first_name": "Other", "last_name": f"Browse{word}x"})
        hidden, _duplicates = services.contact_create(
            actor=member,
            fields={"first_name": "Hidden", "last_name": f"Browse{word}", "visibility": "private"},
        )
        services.contact_update(actor=member, contact=found, fields={"city": "Leeds"})

    page.goto(f"{live_http.url()}/")
    page.get_by_label("Email").fill("viewer@acme.example")
    page.get_by_label("Password").fill("atrium-demo")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/settings/")

    page.get_by_role("link", name="Contacts", exact=True).click()
    page.wait_for_url("**/settings/contacts/")
    page.get_by_role("searchbox", name="Search", exact=True).fill(f"Browse{word}")
    page.get_by_role("button", name="Search").click()
    rows = page.locator("tr[data-contact]")
    assert rows.count() == 2  # not the private one the viewer may not see
    assert "Hidden" not in page.locator("table.list").inner_text()
    assert page.get_by_role("searchbox", name="Search", exact=True).input_value() == f"Browse{word}"

    page.get_by_role("searchbox", name="Search", exact=True).fill(f"ottoline.{word}@example.org")
    page.get_by_role("button", name="Search").click()
    assert rows.count() == 1
    page.get_by_role("link", name=f"Ottoline Browse{word}").click()

    page.wait_for_url(f"**/settings/contacts/{found.pk}/")
    assert page.get_by_role("heading", level=1).inner_text() == f"Ottoline Browse{word}"
    assert f"ottoline.{word}@example.org" in page.locator("dl.facts").inner_text()
    history = page.locator('table[data-section="history"]')
    assert "Leeds" in history.locator('tr[data-event="updated"]').inner_text()
    assert "member@acme.example" in history.locator('tr[data-event="created"]').inner_text()

    assert page.goto(f"{live_http.url()}/settings/contacts/{hidden.pk}/").status == 404
