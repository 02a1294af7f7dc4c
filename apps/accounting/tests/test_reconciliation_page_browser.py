"""The Reconciliation section of the Accounting page in a real browser (Debian's Chromium through
Playwright), against the live server: a bank rule's suggestion recorded with one click, and the
difference between the statement and the ledger reaching zero. In Globex, so that what it
commits touches none of the area's other tests (they run in Acme)."""

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date

import pytest
from django.db import connection, transaction
from django_tenants.utils import schema_context

pytestmark = pytest.mark.live


@contextmanager
def in_globex() -> Iterator[None]:
    """Database work inside a browser test (closed after: see apikeys' browser tests)."""
    try:
        with schema_context("globex"):
            yield
    finally:
        connection.close()


def test_a_suggested_line_is_recorded_and_the_difference_reaches_zero(page, live_http, committed):
    from apps.accounting.lib import ledger
    from apps.accounting.services import bankrules
    from apps.accounting.tests.factories import bank_line
    from apps.accounts.models import User

    with in_globex():
        owner = User.objects.get(email="owner@globex.example")
        ledger.books()
        fields = {
            "name": "Browser fees 5521",
            "contains": "browserfee5521",
            "direction": "out",
            "account": "6000",
            "tax_type": "NONE",
        }
        bankrules.rule_create(actor=owner, fields=fields)
        line = bank_line(owner, "-8.50", day=date(2026, 3, 10), description="BROWSERFEE5521 monthly")
        bank_id = line.bank_account_id

    server = live_http.url("127.0.0.2")
    page.goto(f"{server}/")
    page.get_by_label("Email").fill("owner@globex.example")
    page.get_by_label("Password").fill("atrium-demo")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/settings/")
    page.goto(f"{server}/settings/accounting/?bank={bank_id}#reconciliation")

    section = page.locator("#reconciliation")
    row = section.get_by_test_id("unmatched-line").filter(has_text="BROWSERFEE5521")
    assert "6000, NONE" in row.inner_text() and "Browser fees 5521" in row.inner_text()
    before = section.get_by_test_id("difference").inner_text()
    assert before.startswith("-") and before != "0.00 GBP"

    row.get_by_role("button", name="Record as suggested").click()
    page.wait_for_url("**/settings/accounting/**")

    section = page.locator("#reconciliation")
    assert "recorded as" in page.content()
    assert section.get_by_test_id("unmatched-line").filter(has_text="BROWSERFEE5521").count() == 0
    difference = section.get_by_test_id("difference").inner_text()
    assert difference.startswith("0.00 GBP")
    assert (
        section.get_by_test_id("statement-balance").inner_text()
        == section.get_by_test_id("ledger-balance").inner_text()
    )


def test_a_line_is_matched_to_its_invoice_by_clicking_and_the_difference_reaches_zero(
    page, live_http, committed
):
    """At a laptop's width: the statement's closing balance typed in, the line's likely invoice
    matched with one click (the difference against the bank's figure reaches zero), unmatched from
    the recently matched lines, and matched again."""
    from apps.accounting.lib import ledger
    from apps.accounting.tests.factories import bank_line, issued
    from apps.accounts.models import User

    with in_globex():
        owner = User.objects.get(email="owner@globex.example")
        ledger.books()
        with transaction.atomic():
            invoice = issued(owner, customer="Clickmatch 6604 Ltd", lines=[("Design work", "66.04", "NONE")])
        number = invoice.number
        line = bank_line(owner, "66.04", day=date(2026, 3, 12), description="CLICKMATCH6604 receipt")
        bank_id = line.bank_account_id

    page.set_viewport_size({"width": 1366, "height": 768})
    page.on("dialog", lambda dialog: dialog.accept())
    server = live_http.url("127.0.0.2")
    page.goto(f"{server}/")
    page.get_by_label("Email").fill("owner@globex.example")
    page.get_by_label("Password").fill("atrium-demo")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/settings/")
    page.goto(f"{server}/settings/accounting/?bank={bank_id}#reconciliation")

    # The closing balance the bank's statement gives (here: the lines' running balance).
    section = page.locator("#reconciliation")
    closing = section.get_by_test_id("statement-balance").inner_text().split()[0]
    section.get_by_label("Closing balance on the statement").fill(closing)
    section.get_by_role("button", name="Show").click()
    page.wait_for_url("**closing=**")
    section = page.locator("#reconciliation")
    assert "as the bank gives it" in section.inner_text()
    assert section.get_by_test_id("difference").inner_text().startswith("66.04 GBP")

    row = section.get_by_test_id("unmatched-line").filter(has_text="CLICKMATCH6604")
    assert f"{number} Clickmatch 6604 Ltd (invoice" in row.inner_text()
    row.get_by_role("button", name=f"Match with {number} Clickmatch 6604 Ltd").click()
    page.wait_for_url("**/settings/accounting/**")

    section = page.locator("#reconciliation")
    assert "matched (bank match" in page.content()
    assert section.get_by_test_id("unmatched-line").filter(has_text="CLICKMATCH6604").count() == 0
    assert section.get_by_test_id("matched-line").filter(has_text="CLICKMATCH6604").count() == 1
    assert section.get_by_test_id("difference").inner_text().startswith("0.00 GBP")
    assert section.get_by_test_id("statement-balance").inner_text() == f"{closing} GBP"

    # Undone from the recently matched lines, and matched again.
    matched = section.get_by_test_id("matched-line").filter(has_text="CLICKMATCH6604")
    matched.get_by_role("button", name="Unmatch").click()
    page.wait_for_url("**/settings/accounting/**")
    section = page.locator("#reconciliation")
    assert "undone" in page.content()
    assert section.get_by_test_id("difference").inner_text().startswith("66.04 GBP")
    row = section.get_by_test_id("unmatched-line").filter(has_text="CLICKMATCH6604")
    row.get_by_role("button", name=f"Match with {number} Clickmatch 6604 Ltd").click()
    page.wait_for_url("**/settings/accounting/**")
    assert page.locator("#reconciliation").get_by_test_id("difference").inner_text().startswith("0.00 GBP")
