"""The sign-in and settings pages in a real browser (Debian's Chromium through Playwright)."""

import pytest

pytestmark = pytest.mark.live


def sign_in(page, server, host: str, email: str, password: str = "atrium-demo") -> None:
    page.goto(f"{server.url(host)}/")
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()


def test_a_person_signs_in_creates_a_token_copies_it_and_revokes_it(page, live_http):
    sign_in(page, live_http, "127.0.0.1", "member@acme.example")
    page.wait_for_url("**/settings/")
    assert page.locator(".brand").inner_text() == "Acme Workspace"

    page.get_by_role("link", name="Access tokens").click()
    page.get_by_label("Name").fill("browser test")
    page.get_by_role("button", name="Create token").click()
    token = page.get_by_test_id("new-token").inner_text()
    assert token.startswith("atp_")
    page.get_by_role("button", name="Copy").click()
    assert page.evaluate("navigator.clipboard.readText()") == token

    page.goto(f"{live_http.url()}/settings/tokens/")
    assert token not in page.content()  # shown once only
    page.once("dialog", lambda dialog: dialog.accept())
    page.locator("tr", has_text="browser test").get_by_role("button", name="Revoke").click()
    assert page.locator("tr", has_text="browser test").locator(".badge").inner_text() == "revoked"


def test_a_wrong_password_is_reported_on_the_form(page, live_http):
    sign_in(page, live_http, "127.0.0.2", "owner@globex.example", "wrong")

    assert page.get_by_role("alert").inner_text() == "The email or password is not right."


def test_the_settings_pages_keep_to_their_content_security_policy(page, live_http):
    """Every page of the settings navigation, styled and scripted from static files alone: the
    browser refuses nothing of theirs (config/settings/security.py)."""
    refused: list[str] = []
    page.on(
        "console",
        lambda message: refused.append(message.text) if "Content Security Policy" in message.text else None,
    )
    sign_in(page, live_http, "127.0.0.1", "owner@acme.example")
    page.wait_for_url("**/settings/")
    links = page.locator("nav.sidenav a").evaluate_all("links => links.map(link => link.href)")
    assert len(links) > 5

    for link in links:
        assert page.goto(link).ok, link
        # The stylesheet applies (the top bar is laid out by it) and nothing was refused.
        assert page.locator(".topbar").evaluate("bar => getComputedStyle(bar).display") == "flex", link
        assert refused == [], link

    # The policy is enforced and a refusal is seen: markup with a style attribute put into the page.
    markup = '<p id="styled" style="color: rgb(255, 0, 0)">x</p>'
    page.evaluate("markup => document.body.insertAdjacentHTML('beforeend', markup)", markup)
    page.wait_for_timeout(200)
    assert page.locator("#styled").evaluate("p => getComputedStyle(p).color") != "rgb(255, 0, 0)"
    assert any("style" in text for text in refused), refused
