"""The API reference pages in a real browser (Debian's Chromium): every request they make goes
to the server itself, the site's Content-Security-Policy (with the pages' few allowances) refuses
nothing, and the reference is drawn."""

from urllib.parse import urlsplit

import pytest

pytestmark = pytest.mark.live


def record(page) -> tuple[list[str], list[str]]:  # type: ignore[no-untyped-def]
    requests: list[str] = []
    problems: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.on(
        "console",
        lambda message: problems.append(message.text) if "Content Security Policy" in message.text else None,
    )
    page.on("pageerror", lambda error: problems.append(str(error)))
    return requests, problems


def other_hosts(requests: list[str], server: str) -> list[str]:
    own = urlsplit(server).netloc
    return [
        url
        for url in requests
        if urlsplit(url).scheme in ("http", "https", "ws", "wss") and urlsplit(url).netloc != own
    ]


def test_the_reference_loads_everything_from_the_server_and_renders(page, live_http):
    requests, problems = record(page)

    assert page.goto(f"{live_http.url()}/api/docs/").ok
    page.get_by_role("heading", name="Atrium API").first.wait_for()
    # An operation of a DRF view, one added by a hook, and the gateway's webhook, drawn.
    page.get_by_role("heading", name="Send a message to the workspace's agent").wait_for()
    page.get_by_role("heading", name="Send one JSON-RPC message").wait_for()
    page.get_by_role("heading", name="A conversation ended (resolved or failed)").wait_for()
    page.wait_for_load_state("networkidle")

    assert other_hosts(requests, live_http.url()) == []
    assert any(url.endswith("/api/schema/") for url in requests)
    assert problems == [], "\n".join(problems)


def test_the_interactive_page_loads_everything_from_the_server_and_renders(page, live_http):
    requests, problems = record(page)

    assert page.goto(f"{live_http.url()}/api/docs/try/").ok
    page.locator(".swagger-ui .info .title").wait_for()
    page.locator(".opblock").first.wait_for()
    page.wait_for_load_state("networkidle")

    assert other_hosts(requests, live_http.url()) == []
    assert problems == [], "\n".join(problems)
