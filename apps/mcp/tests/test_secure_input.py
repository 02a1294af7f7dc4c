"""Secure input through URL-mode elicitation (apps.mcp.secure_input), in raw HTTP against a live
web process: the question a 2025-11-25 client that opens URLs gets, the -32042 error one that
does not gets, the tool error with the link of a 2025-06-18 client, the page where the person
enters the value (signed in as themselves), and the real tool that uses it: manageCalendar
subscribing a calendar to an outside feed behind a password, served on loopback."""

import base64
import http.server
import json
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from django_tenants.utils import schema_context

from apps.mcp.testing import ACCEPT_BOTH
from apps.mcp.tests.conftest import Mcp

pytestmark = pytest.mark.live

PASSWORD = "atrium-demo"
URL_CAPABLE = {"elicitation": {"form": {}, "url": {}}}


def signed_in(base_url: str, email: str) -> httpx.Client:
    browser = httpx.Client(base_url=base_url, timeout=30)
    browser.get("/accounts/sign-in/")
    answer = browser.post(
        "/accounts/sign-in/",
        data={"username": email, "password": PASSWORD, "csrfmiddlewaretoken": browser.cookies["atrium_csrf"]},
        headers={"Referer": f"{base_url}/accounts/sign-in/"},
    )
    assert answer.status_code == 302, answer.text
    return browser


def enter(browser: httpx.Client, url: str, value: str, action: str = "save") -> httpx.Response:
    page = browser.get(url)
    assert page.status_code == 200, page.text
    return browser.post(
        url,
        data={"value": value, "action": action, "csrfmiddlewaretoken": browser.cookies["atrium_csrf"]},
        headers={"Referer": url},
    )


def _call_answering(mcp: Mcp, message: dict[str, Any], answer: Any) -> dict[str, Any]:
    """POSTs a tools/call and answers each elicitation/create with `answer(params)` (a result
    dict, after which `answer` may act); returns {"asked": [...], "response": ...}."""
    seen: dict[str, Any] = {"asked": []}

    def on_event(event: dict[str, Any]) -> None:
        if event.get("method") == "elicitation/create":
            seen["asked"].append(event["params"])
            reply = answer(event["params"])
            assert mcp.post({"jsonrpc": "2.0", "id": event["id"], "result": reply}).status_code == 202
        elif event.get("id") == message["id"]:
            seen["response"] = event

    with (
        httpx.Client(base_url=str(mcp.http.base_url), timeout=60) as http,
        http.stream("POST", "/api/mcp", json=message, headers=mcp.headers(Accept=ACCEPT_BOTH)) as response,
    ):
        # 2025-11-25 streams open with a priming event without data (resumable streams).
        for line in response.iter_lines():
            if line.startswith("data: ") and line != "data: ":
                on_event(json.loads(line[6:]))
    return seen


# --- the generic mechanism (connectTestAccount) ---------------------------------------------------


def test_a_client_that_opens_urls_is_sent_to_our_page_and_the_tool_goes_on_with_the_value(mcp):
    mcp.initialize(version="2025-11-25", capabilities=URL_CAPABLE)
    stream = mcp.stream()
    browser = signed_in(mcp.server.url(), "member@acme.example")
    entered: list[httpx.Response] = []

    def accept_and_enter(params: dict[str, Any]) -> dict[str, Any]:
        # The person opens the link (here, after the client said it would), and types the key.
        threading.Timer(0.3, lambda: entered.append(enter(browser, params["url"], "sk-12345"))).start()
        return {"action": "accept"}

    message = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {"name": "connectTestAccount", "arguments": {"account": "billing"}},
    }
    seen = _call_answering(mcp, message, accept_and_enter)

    [asked] = seen["asked"]
    assert asked["mode"] == "url"
    assert asked["url"].startswith(f"{mcp.server.url()}/settings/secure-input/")
    assert asked["message"] == "Enter the API key of the account billing."
    assert "requestedSchema" not in asked
    result = seen["response"]["result"]
    assert result["structuredContent"] == {"account": "billing", "keyLength": 8}
    assert "sk-12345" not in json.dumps(seen)
    assert entered[0].status_code == 200 and "Saved" in entered[0].text
    _id, completion = stream.next_event()
    assert completion == {
        "jsonrpc": "2.0",
        "method": "notifications/elicitation/complete",
        "params": {"elicitationId": asked["elicitationId"]},
    }
    stream.close()


def test_a_declined_url_question_does_nothing(mcp):
    mcp.initialize(version="2025-11-25", capabilities=URL_CAPABLE)
    message = {
        "jsonrpc": "2.0",
        "id": 8,
        "method": "tools/call",
        "params": {"name": "connectTestAccount", "arguments": {"account": "billing"}},
    }

    seen = _call_answering(mcp, message, lambda params: {"action": "decline"})

    result = seen["response"]["result"]
    assert result["isError"] is True
    assert "declined connectTestAccount; nothing was done" in result["content"][0]["text"]


def test_a_2025_11_25_client_without_url_mode_gets_error_32042_then_retries(mcp):
    mcp.initialize(version="2025-11-25", capabilities={"elicitation": {"form": {}}})

    refused = mcp.call("connectTestAccount", {"account": "payroll"}).json()

    assert refused["error"]["code"] == -32042
    [elicitation] = refused["error"]["data"]["elicitations"]
    assert elicitation["mode"] == "url"
    assert elicitation["url"].startswith(f"{mcp.server.url()}/settings/secure-input/")
    assert elicitation["message"] == "Enter the API key of the account payroll."
    assert len(elicitation["elicitationId"]) >= 16

    saved = enter(signed_in(mcp.server.url(), "member@acme.example"), elicitation["url"], "k" * 40)
    assert saved.status_code == 200
    retried = mcp.result("connectTestAccount", {"account": "payroll"})
    assert retried["structuredContent"] == {"account": "payroll", "keyLength": 40}
    # Taken once: the next call asks again.
    assert mcp.call("connectTestAccount", {"account": "payroll"}).json()["error"]["code"] == -32042


def test_a_2025_06_18_client_gets_a_tool_error_with_the_link(mcp):
    mcp.initialize(version="2025-06-18", capabilities={"elicitation": {}})

    result = mcp.result("connectTestAccount", {"account": "crm"})

    assert result["isError"] is True
    text = result["content"][0]["text"]
    assert text.startswith("Enter the API key of the account crm. The user must enter it on this page")
    assert f"{mcp.server.url()}/settings/secure-input/" in text


def test_the_page_is_only_for_the_person_the_link_was_made_for(mcp):
    mcp.initialize(version="2025-11-25", capabilities={})
    url = mcp.call("connectTestAccount", {"account": "ops"}).json()["error"]["data"]["elicitations"][0]["url"]

    someone_else = signed_in(mcp.server.url(), "viewer@acme.example")
    assert someone_else.get(url).status_code == 403
    anonymous = httpx.get(url, follow_redirects=False)
    assert anonymous.status_code == 302 and "/accounts/sign-in/" in anonymous.headers["location"]
    owner = signed_in(mcp.server.url(), "member@acme.example")
    assert owner.get(url[:-10] + "tampered0/").status_code == 404
    page = owner.get(url)
    assert page.headers["cache-control"] == "no-store"
    assert 'type="password"' in page.text
    cancelled = enter(owner, url, "", action="cancel")
    assert "Nothing was saved" in cancelled.text
    empty = enter(owner, url, "")
    assert empty.status_code == 400


def test_the_value_is_kept_encrypted_until_the_tool_takes_it(mcp, committed):
    from apps.mcp.models import SecureInput

    mcp.initialize(version="2025-11-25", capabilities={})
    url = mcp.call("connectTestAccount", {"account": "vault"}).json()["error"]["data"]["elicitations"][0][
        "url"
    ]
    enter(signed_in(mcp.server.url(), "member@acme.example"), url, "plain-secret-value")

    with schema_context("acme"):
        row = SecureInput.objects.get(purpose="tests.account:vault")
        assert "plain-secret-value" not in row.value_encrypted
    assert mcp.result("connectTestAccount", {"account": "vault"})["structuredContent"]["keyLength"] == 18
    with schema_context("acme"):
        assert not SecureInput.objects.filter(purpose="tests.account:vault").exists()


# --- the real tool: manageCalendar subscribing to a feed behind a password ------------------------

FEED = b"""BEGIN:VCALENDAR\r
VERSION:2.0\r
PRODID:-//Outside//Feed//EN\r
BEGIN:VEVENT\r
UID:standup-1@outside.example\r
DTSTART:20300107T090000Z\r
DTEND:20300107T091500Z\r
SUMMARY:Outside stand-up\r
RRULE:FREQ=WEEKLY;BYDAY=MO\r
END:VEVENT\r
BEGIN:VEVENT\r
UID:offsite-1@outside.example\r
DTSTART;VALUE=DATE:20300301\r
DTEND;VALUE=DATE:20300303\r
SUMMARY:Offsite\r
LOCATION:Lisbon\r
END:VEVENT\r
END:VCALENDAR\r
"""


@pytest.fixture
def feed_server() -> Iterator[dict[str, Any]]:
    """An iCalendar feed on loopback behind HTTP Basic authentication (user "ana")."""
    state: dict[str, Any] = {"password": "feed-pass-1", "seen": []}

    class Feed(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            state["seen"].append(self.headers.get("Authorization"))
            expected = "Basic " + base64.b64encode(f"ana:{state['password']}".encode()).decode()
            if self.headers.get("Authorization") != expected:
                self.send_response(401)
                self.send_header("WWW-Authenticate", 'Basic realm="feed"')
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/calendar")
            self.send_header("Content-Length", str(len(FEED)))
            self.end_headers()
            self.wfile.write(FEED)

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Feed)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state["url"] = f"http://127.0.0.1:{server.server_address[1]}/team.ics"
    yield state
    server.shutdown()


def _calendar(mcp: Mcp) -> int:
    """A new calendar (after the area's first call)."""
    assert mcp.result("getCalendarSummary")["isError"] is False
    created = mcp.result("manageCalendar", {"action": "create", "calendar": {"name": "Outside team"}})
    return int(created["structuredContent"]["calendar"]["id"])


def _subscribe(mcp: Mcp, calendar_id: int, url: str, request_id: int) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {
            "name": "manageCalendar",
            "arguments": {
                "action": "subscribe",
                "calendarId": calendar_id,
                "feed": {"url": url, "username": "ana"},
            },
        },
    }


def test_a_calendar_subscribes_to_a_feed_whose_password_the_person_enters_on_our_page(
    mcp_server, feed_server, committed
):
    from apps.calendars.models import CalendarFeed, Event
    from apps.core import encryption

    mcp = Mcp(mcp_server, email="owner@acme.example")
    mcp.initialize(version="2025-11-25", capabilities=URL_CAPABLE)
    calendar_id = _calendar(mcp)
    browser = signed_in(mcp_server.url(), "owner@acme.example")

    def accept_and_enter(params: dict[str, Any]) -> dict[str, Any]:
        threading.Timer(0.3, lambda: enter(browser, params["url"], "feed-pass-1")).start()
        return {"action": "accept"}

    seen = _call_answering(mcp, _subscribe(mcp, calendar_id, feed_server["url"], 21), accept_and_enter)

    [asked] = seen["asked"]
    assert asked["mode"] == "url"
    assert "password of ana for the calendar feed at 127.0.0.1" in asked["message"]
    result = seen["response"]["result"]
    assert result["isError"] is False, result
    feed = result["structuredContent"]["feed"]
    assert (feed["created"], feed["updated"], feed["skipped"]) == (2, 0, 0)
    assert "feed-pass-1" not in json.dumps(seen)
    with schema_context("acme"):
        stored = CalendarFeed.objects.get(pk=feed["feedId"])
        assert "feed-pass-1" not in stored.password_encrypted
        assert encryption.decrypt(stored.password_encrypted) == "feed-pass-1"
        standup = Event.objects.get(uid="standup-1@outside.example")
        assert (standup.title, standup.calendar_id, standup.recurrence) == (
            "Outside stand-up",
            calendar_id,
            "FREQ=WEEKLY;BYDAY=MO",
        )
        offsite = Event.objects.get(uid="offsite-1@outside.example")
        assert offsite.all_day and offsite.location == "Lisbon"

    # The next import uses the password kept for the feed: nobody is asked.
    again = mcp.result(
        "manageCalendar", _subscribe(mcp, calendar_id, feed_server["url"], 22)["params"]["arguments"]
    )
    assert again["structuredContent"]["feed"]["updated"] == 2

    # The feed's password changed: the kept one is refused, and the person is asked again.
    feed_server["password"] = "feed-pass-2"
    asked_again = _call_answering(
        mcp, _subscribe(mcp, calendar_id, feed_server["url"], 23), lambda params: {"action": "decline"}
    )
    assert len(asked_again["asked"]) == 1
    assert asked_again["response"]["result"]["isError"] is True
    mcp.close()


def test_a_feed_on_a_private_address_is_refused_before_anything_is_asked(mcp_server):
    mcp = Mcp(mcp_server, email="owner@acme.example")
    mcp.initialize(version="2025-11-25", capabilities={})
    calendar_id = _calendar(mcp)

    result = mcp.result(
        "manageCalendar",
        {
            "action": "subscribe",
            "calendarId": calendar_id,
            "feed": {"url": "https://10.1.2.3/x.ics", "username": "a"},
        },
    )

    assert result["isError"] is True
    assert "non-public address" in result["content"][0]["text"]
    mcp.close()
