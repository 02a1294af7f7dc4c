"""The sign-in and consent pages driven in a real browser (Debian's Chromium, Playwright)."""

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import pytest

from apps.oauth.tests.oauth_client import OAuthClient, pkce_pair

pytestmark = pytest.mark.live

CALLBACK = "http://127.0.0.1:9/callback"


def start(page, live_http, *, name: str = "Browser agent", scope: str = "mcp offline_access"):
    """Registers a client, opens its authorization URL in the browser, and catches the redirect
    back to the client (nothing listens there: the browser's request is answered in place)."""
    client = OAuthClient.register(live_http.url(), name=name, redirect_uri=CALLBACK)
    verifier, challenge = pkce_pair()
    url = client.authorization_url(challenge=challenge, scope=scope, state="browser-state")
    page.route(f"{CALLBACK}**", lambda route: route.fulfill(status=200, body="back in the app"))
    page.goto(url)
    return client, verifier, url


def sign_in(page, email: str = "member@acme.example") -> None:
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill("atrium-demo")
    page.get_by_role("button", name="Sign in").click()


def callback_params(page) -> dict[str, str]:
    page.wait_for_url(f"{CALLBACK}**")
    return {key: values[-1] for key, values in parse_qs(urlsplit(page.url).query).items()}


def test_a_person_signs_in_reads_the_consent_page_and_allows(page, live_http):
    client, verifier, _url = start(page, live_http)

    sign_in(page)
    page.get_by_role("heading", name="Connect an app to your workspace?").wait_for()

    assert page.get_by_test_id("client-name").inner_text() == "Browser agent"
    assert page.get_by_text("name declared by the app, not verified").is_visible()
    assert page.get_by_text("Acme Workspace").first.is_visible()
    assert page.get_by_test_id("scopes").locator("li").all_inner_texts() == [
        "Use every tool your role allows: read, create, change and delete data",
        "Stay connected while you are away, until you disconnect it",
    ]
    assert page.get_by_test_id("redirect-host").inner_text() == "127.0.0.1:9"
    page.get_by_role("button", name="Allow").click()

    params = callback_params(page)
    assert params["state"] == "browser-state"
    assert params["iss"] == live_http.url()
    token = client.exchange(params["code"], verifier)
    assert token.status_code == 200 and "refresh_token" in token.json()


def test_a_person_denies_and_the_app_is_told_so(page, live_http):
    _client, _verifier, _url = start(page, live_http, scope="mcp:read")

    sign_in(page, "viewer@acme.example")
    page.get_by_role("button", name="Deny").click()

    params = callback_params(page)
    assert params == {"error": "access_denied", "state": "browser-state", "iss": live_http.url()}


@contextmanager
def framing_site(html: str) -> Iterator[str]:
    """Another origin on loopback (127.0.0.3, a port of its own) serving one page."""

    class Page(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = html.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.3", 0), Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.3:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("framer", ["another origin", "the same origin"])
def test_a_page_that_frames_the_consent_page_gets_nothing(page, live_http, framer):
    """A page frames the real consent page (the person is signed in); the browser refuses to
    show it because of its X-Frame-Options and CSP frame-ancestors headers."""
    _client, _verifier, url = start(page, live_http)
    sign_in(page)
    page.get_by_role("button", name="Allow").wait_for()  # the consent page, when not framed
    html = f'<!doctype html><title>framer</title><iframe id="victim" src="{url}"></iframe>'

    with framing_site(html) as other_origin:
        if framer == "another origin":
            framer_url = other_origin
        else:
            # Served in place by the browser: no such page exists on the server.
            framer_url = f"{live_http.url()}/framing-test"
            page.route(
                framer_url, lambda route: route.fulfill(status=200, content_type="text/html", body=html)
            )
        # The framed page's own request (one of the page left behind may be aborted meanwhile).
        with page.expect_event(
            "requestfailed",
            lambda request: (
                request.url.startswith(live_http.url()) and request.frame.parent_frame is not None
            ),
        ) as failed:
            page.goto(framer_url)

    assert failed.value.failure == "net::ERR_BLOCKED_BY_RESPONSE"
    assert page.frame_locator("#victim").get_by_role("button", name="Allow").count() == 0
    assert [frame.url for frame in page.frames] == [framer_url, "chrome-error://chromewebdata/"]
