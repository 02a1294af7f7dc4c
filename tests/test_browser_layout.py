"""Every settings page on a laptop and on a phone, in a real browser (Debian's Chromium through
Playwright): the page never scrolls sideways (tables scroll inside their own box, long values
wrap) and axe-core finds nothing serious or critical. The pages are not listed here: they are
the links of the settings navigation, whatever apps register, and the pages those link to."""

import re
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from decimal import Decimal
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest
from django.db import connection
from django.utils import timezone
from django_tenants.utils import schema_context

from apps.core.testing import ROOT

pytestmark = pytest.mark.live

AXE = ROOT / "tests" / "node" / "node_modules" / "axe-core" / "axe.min.js"
LAPTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
# A value without a break opportunity, as people and agents do write them.
UNBROKEN = "x" * 100

# axe's serious and critical findings, each with the elements it found (enough to fix it).
AXE_RUN = """async () => {
  const result = await axe.run(document, {resultTypes: ["violations"]});
  return result.violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map((violation) => `${violation.id} (${violation.impact}): ${violation.help}: `
      + violation.nodes.slice(0, 5).map((node) => node.target.join(" ")).join(", "));
}"""

WIDTHS = "() => [document.documentElement.scrollWidth, window.innerWidth]"


@contextmanager
def in_acme() -> Iterator[None]:
    """Database work inside a browser test: close the connection Django keeps apart for it while
    Playwright's event loop runs in this thread, or it outlives the test database."""
    try:
        with schema_context("acme"):
            yield
    finally:
        connection.close()


def sign_in(page: Any, base_url: str, email: str = "owner@acme.example") -> None:
    page.goto(f"{base_url}/")
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill("atrium-demo")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/settings/")


def problems(page: Any) -> list[str]:
    """What is wrong with the page shown: a sideways scroll, axe's serious or critical findings."""
    found = []
    scroll_width, inner_width = page.evaluate(WIDTHS)
    if scroll_width > inner_width:
        found.append(f"the page is {scroll_width} px wide in a {inner_width} px window")
    if not page.evaluate("() => typeof window.axe === 'object'"):
        if not AXE.exists():
            pytest.fail(f"{AXE} is missing: `make test` installs tests/node from its lock file")
        # Evaluated by the browser's debugging protocol, which the page's CSP does not govern.
        page.evaluate(AXE.read_text())
    found.extend(page.evaluate(AXE_RUN))
    return found


def shape(url: str) -> str:
    """Pages of one kind (a key's detail, another key's detail) are checked once."""
    parts = urlsplit(url)
    keys = sorted({key for key, _value in parse_qsl(parts.query)} - {"page"})
    return re.sub(r"\d+", "N", parts.path) + ("?" + "&".join(keys) if keys else "")


@pytest.fixture
def records(committed) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    """What the detail pages show, owned by Acme's owner, with long unbroken values where people
    type them: an API key, a custom role, a document, a calendar event, a task with its board."""
    from apps.accounting.services.sales import LineData
    from apps.accounting.services.sales import document_create as accounting_document_create
    from apps.accounts.models import User
    from apps.accounts.services import role_create
    from apps.apikeys.services import api_key_create
    from apps.calendars.services import calendar_create, event_create
    from apps.documents.services import document_create
    from apps.events.services import attendee_add
    from apps.events.services import event_create as events_event_create
    from apps.support.services.tickets import ticket_create as support_ticket_create
    from apps.tasks.services import task_create

    tag = uuid.uuid4().hex[:8]
    with in_acme():
        owner = User.objects.get(email="owner@acme.example")
        key = api_key_create(
            user=owner, label=(tag + UNBROKEN)[:100], response_url=f"https://example.org/{UNBROKEN}"
        ).key
        role = role_create(actor=owner, name=f"Layout {tag}", permissions=["contacts.view"])
        document = document_create(actor=owner, title=f"Layout {tag} {UNBROKEN}", content=UNBROKEN)
        calendar = calendar_create(actor=owner, fields={"name": f"Layout {tag}"})
        start = (timezone.now() + timedelta(days=1)).replace(microsecond=0).isoformat()
        event = event_create(
            actor=owner,
            calendar=calendar,
            fields={"title": f"Layout {tag}", "start": start, "duration_minutes": 60, "location": UNBROKEN},
            attendees=[{"email": f"{UNBROKEN[:40]}@example.org"}],
        )
        task = task_create(actor=owner, fields={"title": f"Layout {tag} {UNBROKEN}"})
        # A draft (no number, nothing posted): the Accounting page's invoice table with a long name.
        invoice = accounting_document_create(
            actor=owner,
            kind="invoice",
            fields={"customer_name": f"Layout {tag} {UNBROKEN}"[:200]},
            lines=[LineData(f"Layout {tag}", Decimal("12.50"), "NONE")],
        )
        planned = events_event_create(
            actor=owner,
            fields={
                "name": f"Layout {tag} {UNBROKEN}",
                "starts_at": timezone.now() + timedelta(days=30),
                "ends_at": timezone.now() + timedelta(days=31),
                "time_zone": "UTC",
                "venue": UNBROKEN,
            },
        )
        attendee_add(
            actor=owner, event=planned, fields={"name": UNBROKEN, "email": f"{UNBROKEN[:40]}@example.org"}
        )
        from apps.deals.services import contact_log, deal_create, pipeline_create

        pipeline = pipeline_create(
            actor=owner, name=f"Layout {tag} {UNBROKEN}"[:120], stages=[{"name": UNBROKEN[:80]}]
        )
        deal = deal_create(
            actor=owner, pipeline_id=pipeline.pk, stage_id=None, fields={"title": f"Layout {tag} {UNBROKEN}"}
        )
        contact_log(actor=owner, deal_id=deal.pk, channel="call", summary=UNBROKEN * 3)
        ticket = support_ticket_create(
            actor=owner,
            subject=f"Layout {tag} {UNBROKEN}"[:300],
            text=UNBROKEN,
            requester_email=f"{UNBROKEN[:40]}@example.org",
            requester_name=UNBROKEN[:200],
            tags=[UNBROKEN[:50]],
        )
    return {
        "key": key,
        "role": role,
        "document": document,
        "event": event,
        "task": task,
        "invoice": invoice,
        "planned": planned,
        "deal": deal,
        "ticket": ticket,
    }


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_every_settings_page_fits_the_window_and_passes_axe(page, live_http, records, viewport):
    from apps.oauth.tests.oauth_client import OAuthClient, pkce_pair

    base = live_http.url("127.0.0.1")
    page.set_viewport_size(viewport)
    found: dict[str, list[str]] = {}

    page.goto(f"{base}/")
    found["sign-in"] = problems(page)

    sign_in(page, base)
    # Folded away on a phone, the menu's links are there all the same.
    nav = page.get_by_role("navigation", name="Settings").get_by_role("link", include_hidden=True)
    nav_urls = nav.evaluate_all("links => links.map(link => link.href)")
    assert len(nav_urls) > 5, nav_urls
    seen = {shape(url) for url in nav_urls}
    details: list[str] = []
    for url in nav_urls:
        assert page.goto(url).ok, url
        found[url] = problems(page)
        # The pages this one links to (a key's detail, a role's edit page...), one of each kind.
        for link in page.locator("main a[href]").evaluate_all("links => links.map(link => link.href)"):
            if (
                urlsplit(link).netloc == urlsplit(base).netloc
                and urlsplit(link).path.startswith("/settings/")
                and shape(link) not in seen
            ):
                seen.add(shape(link))
                details.append(link)

    for url in details:
        # Downloads are not pages: ask first, with the page's cookies.
        if "text/html" not in page.request.head(url).headers.get("content-type", ""):
            continue
        assert page.goto(url).ok, url
        found[url] = problems(page)
    # The workspace search from the menu's box: the records above, their long names among them.
    page.get_by_role("search").first.get_by_role("searchbox").fill(UNBROKEN[:12])
    page.keyboard.press("Enter")
    page.wait_for_url("**/settings/search/**")
    found["search"] = problems(page)
    # A configuration made on Agent connection: JSON and a command with a token and a key in them.
    page.goto(f"{base}/settings/agent-connection/")
    page.get_by_role("button", name="Create configuration").click()
    page.get_by_test_id("configuration").wait_for()
    found["agent connection, a configuration made"] = problems(page)

    expected = [
        f"/settings/api-keys/{records['key'].pk}/",
        f"/settings/roles/{records['role'].pk}/",
        f"/settings/documents/{records['document'].pk}/",
        f"/settings/calendars/events/{records['event'].pk}/",
        f"/settings/tasks/{records['task'].pk}/",
        f"/settings/events/{records['planned'].pk}/",
        f"/settings/deals/{records['deal'].pk}/",
        f"/settings/support/tickets/{records['ticket'].pk}/",
    ]
    checked = {shape(url) for url in found}
    assert not [url for url in expected if shape(url) not in checked], sorted(checked)

    client = OAuthClient.register(
        base, name=f"Layout{UNBROKEN[:90]}", redirect_uri="http://localhost:7777/cb"
    )
    _verifier, challenge = pkce_pair()
    page.goto(client.authorization_url(challenge=challenge, scope="mcp:read offline_access"))
    assert page.get_by_role("button", name="Allow").is_visible()
    found["consent"] = problems(page)

    assert {where: what for where, what in found.items() if what} == {}


def test_a_key_label_of_100_characters_without_a_space_wraps_on_a_phone(page, live_http, committed):
    """It once made the API keys page 2,013 px wide."""
    base = live_http.url("127.0.0.1")
    page.set_viewport_size(PHONE)
    sign_in(page, base, "member@acme.example")
    page.goto(f"{base}/settings/api-keys/")
    label = uuid.uuid4().hex[:8] + UNBROKEN[8:]
    page.get_by_label("Label").fill(label)
    page.get_by_role("button", name="Create key").click()
    page.get_by_test_id("created-key").wait_for()

    assert page.evaluate(WIDTHS)[0] <= PHONE["width"]
    # The label wraps in its cell: the table stays within a phone's width or two.
    assert page.get_by_role("link", name=label).bounding_box()["width"] < PHONE["width"]
    table = page.get_by_role("region", name="API keys")
    assert table.evaluate("box => box.scrollWidth") < 2 * PHONE["width"]

    page.get_by_role("link", name=label).click()
    assert page.get_by_role("heading", level=1).bounding_box()["width"] < PHONE["width"]
    assert page.evaluate(WIDTHS)[0] <= PHONE["width"]


def test_the_menu_is_folded_on_a_phone_and_opens_with_its_button(page, live_http):
    base = live_http.url("127.0.0.1")
    page.set_viewport_size(PHONE)
    sign_in(page, base, "owner@acme.example")
    page.goto(f"{base}/settings/contacts/")
    menu = page.get_by_role("navigation", name="Settings")
    button = menu.get_by_role("button", name="Menu")
    first_link = menu.get_by_role("link").first

    assert button.get_attribute("aria-expanded") == "false"
    assert not first_link.is_visible()
    # Folded, the menu leaves the first screen to the page itself.
    assert page.get_by_role("heading", level=1).bounding_box()["y"] < PHONE["height"] / 3

    button.click()
    assert button.get_attribute("aria-expanded") == "true"
    # Open, it is a short list of groups: the current page's open, the others folded.
    names = menu.locator("summary")
    assert all(names.nth(i).is_visible() for i in range(names.count()))
    assert menu.get_by_role("link", name="Contacts", exact=True).is_visible()
    assert not menu.get_by_role("link", name="Tasks", exact=True).is_visible()
    assert menu.locator("details.menu-group[open]").count() == 1
    assert problems(page) == []
    page.keyboard.press("Escape")
    assert button.get_attribute("aria-expanded") == "false"
    assert button.evaluate("button => button === document.activeElement")

    # A folded group opens with its name, and its links go where they say.
    button.click()
    menu.locator("summary", has_text="Work").click()
    menu.get_by_role("link", name="Tasks", exact=True).click()
    page.wait_for_url("**/settings/tasks/")
    assert button.get_attribute("aria-expanded") == "false"
    button.click()
    assert menu.get_by_role("link", name="Tasks", exact=True).get_attribute("aria-current") == "page"
    assert not menu.get_by_role("link", name="Contacts", exact=True).is_visible()

    # On a laptop it is a side menu: every group open, every link shown, no button, beside the content.
    page.set_viewport_size(LAPTOP)
    links = menu.get_by_role("link")
    assert not button.is_visible()
    assert all(links.nth(i).is_visible() for i in range(links.count()))
    assert menu.bounding_box()["x"] + menu.bounding_box()["width"] <= page.locator("main").bounding_box()["x"]


def test_on_a_laptop_the_menu_shows_the_groups_of_what_the_role_opens(page, live_http, committed):
    """A person whose role opens Contacts alone: their own pages, Sales with Contacts in it, the
    pages for developers; none of the other areas, no administration."""
    from apps.accounts.models import Role, User

    tag = uuid.uuid4().hex[:8]
    with in_acme():
        role = Role.objects.create(key=f"menu-{tag}", name=f"Menu {tag}", permissions=["contacts.view"])
        User.objects.create_user(email=f"menu-{tag}@acme.example", password="atrium-demo", role=role)
    base = live_http.url("127.0.0.1")
    page.set_viewport_size(LAPTOP)
    sign_in(page, base, f"menu-{tag}@acme.example")
    menu = page.get_by_role("navigation", name="Settings")

    groups = menu.locator("details.menu-group")
    opened = "groups => groups.map(group => [group.open, group.querySelector('summary').textContent])"
    assert groups.evaluate_all(opened) == [
        [True, "You"],
        [True, "Sales"],
        [True, "Developers"],
    ]
    assert menu.locator("details.menu-group", has=page.locator("summary", has_text="Sales")).get_by_role(
        "link"
    ).all_inner_texts() == ["Contacts"]
    # A group folds away on a laptop too, and opens again.
    menu.locator("summary", has_text="Developers").click()
    assert not menu.get_by_role("link", name="API keys", exact=True).is_visible()
    menu.locator("summary", has_text="Developers").click()
    menu.get_by_role("link", name="Contacts", exact=True).click()
    page.wait_for_url("**/settings/contacts/")
    assert page.get_by_role("heading", level=1).inner_text() == "Contacts"
    assert problems(page) == []


def test_the_first_key_press_offers_a_skip_link_to_the_content(page, live_http):
    base = live_http.url("127.0.0.1")
    sign_in(page, base, "member@acme.example")
    page.goto(f"{base}/settings/tokens/")

    page.keyboard.press("Tab")
    skip = page.get_by_role("link", name="Skip to content")
    assert skip.evaluate("link => link === document.activeElement")
    box = skip.bounding_box()
    assert box["y"] >= 0 and box["height"] > 0  # on screen once focused
    page.keyboard.press("Enter")
    assert page.evaluate("() => document.activeElement.id") == "content"
    # The next stop is in the content, past the menu.
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.closest('main') !== null")
