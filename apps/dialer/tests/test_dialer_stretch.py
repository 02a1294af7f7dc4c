"""A stretch of use across the provider areas, through the tools as people use them: a day of calls
and research in a workspace in Britain. A supplier is found with webSearch and its page read with
webExtract (and through an old address that redirects), its portal looked at in a browser tab (when
this machine has Chromium), then it is called at the number as its page writes it, sent a text
message, a number on the do-not-call list refused, a STOP reply honoured and the call log read; a
viewer sees the list but none of the calls, searches or sessions."""

from typing import Any

import pytest
from django.test import override_settings
from django.urls import reverse

from apps.browser import engine
from apps.browser.models import BrowserSession
from apps.browser.tests.sites import ended_after, portal
from apps.catalogue.dispatch import MemorySession, ToolNotFound
from apps.catalogue.testing import call, confirmed, ok, refused
from apps.dialer.models import Call, DoNotCall, Message
from apps.dialer.tests.factories import zone_at
from apps.dialer.tests.servers import OWNED, Twilio, twilio
from apps.tenancy import links
from apps.web.models import WebCall
from apps.web.tests.servers import Engine, searxng, site

SUPPLIER = "+442071838750"
WRITTEN = "020 7183 8750"  # as the supplier's page writes it, in Britain
PAGE = f"""<!doctype html><html><head><title>Quayside Fasteners</title></head><body>
<nav>Home · Products</nav><article><h1>Quayside Fasteners</h1>
<p>Stainless bolts and marine fasteners, next-day delivery across the country.</p>
<p>Trade orders: call us on {WRITTEN}, weekdays 8 to 6.</p></article></body></html>"""
CHROMIUM = engine.os.path.exists("/usr/bin/chromium")


def _dialer(session: MemorySession) -> dict[str, Any]:
    return {"session": session, "capabilities": {"elicitation": {}}, "elicit": confirmed}


def _started(user: Any) -> MemorySession:
    """A session in which the dialer's mandatory first call was made."""
    session = MemorySession()
    ok(user, "getDialerSummary", {}, session=session)
    return session


@pytest.fixture
def day():
    """The supplier's website, a search engine that knows it, and Twilio, all on loopback."""
    with site() as pages, twilio(Twilio()) as phone, override_settings(ATRIUM_DIALER_DEFAULT_REGION="GB"):
        pages.pages["/fasteners"] = (200, {"Content-Type": "text/html; charset=utf-8"}, PAGE.encode())
        pages.pages["/old-fasteners"] = (301, {"Location": "/fasteners"}, b"")
        found = [
            {"url": f"{pages.url}/old-fasteners", "title": "Quayside Fasteners", "content": "Marine bolts"},
            {"url": "https://forum.example/bolts", "title": "Bolt talk", "content": "Threads"},
        ]
        with searxng(Engine(found)) as engine_:
            yield pages, engine_, phone


def _browse(member: Any, client: Any) -> None:
    """The supplier's portal in a tab: opened, examined, a link followed, the tab closed by the
    person on the page (agents cannot end a session; an idle one ends by itself)."""
    with portal() as served, ended_after():
        tab = ok(member, "startBrowserSession")["sessionId"]
        went = ok(member, "browserNavigate", {"sessionId": tab, "url": f"{served.url}/login"})
        assert went["title"] == "Kestrel supplier portal" and went["trust"] == "untrusted"
        shown = ok(member, "browserExamine", {"sessionId": tab})
        assert [h["text"] for h in shown["headings"]] == ["Sign in"]
        link = next(e["ref"] for e in shown["elements"] if e["role"] == "link" and e["name"] == "Help")
        clicked = ok(member, "browserInteract", {"sessionId": tab, "ref": link, "action": "click"})
        assert clicked["url"] == f"{served.url}/help" and served.posted == []
        kept = BrowserSession.objects.get(handle=tab)
        client.force_login(member)
        assert client.post(reverse("browser:end", args=[kept.pk])).status_code == 302
        kept.refresh_from_db()
        assert kept.status == "ended" and not engine.alive(kept.pid, kept.profile)
        assert "No open browser session" in refused(member, "browserExamine", {"sessionId": tab})


def test_a_day_of_research_and_calls_and_a_viewers_view(people, day, acme_client):
    pages, search, phone = day
    member, admin, viewer = people["member"], people["admin"], people["viewer"]

    # Research: the supplier found, its page read (through its old address too).
    found = ok(member, "webSearch", {"query": "marine fasteners supplier"})
    assert [item["title"] for item in found["results"]] == ["Quayside Fasteners", "Bolt talk"]
    assert found["trust"] == "untrusted" and search.queries[0]["q"] == ["marine fasteners supplier"]
    moved = ok(member, "webExtract", {"url": found["results"][0]["url"]})
    assert moved["finalUrl"] == f"{pages.url}/fasteners" and WRITTEN in moved["text"]
    assert "Home · Products" not in moved["text"] and moved["title"] == "Quayside Fasteners"
    page = ok(member, "webExtract", {"url": f"{pages.url}/fasteners"})
    assert page["finalUrl"] == f"{pages.url}/fasteners" and "Stainless bolts" in page["text"]
    assert pages.asked.count("/fasteners") <= 2 and "/robots.txt" in pages.asked
    assert WebCall.objects.filter(created_by=member).count() == 3

    if CHROMIUM:
        _browse(member, acme_client)

    # The call, to the number as the page writes it; the person confirms; the supplier answers.
    session = MemorySession()
    summary = ok(member, "getDialerSummary", {}, session=session)
    assert summary["configured"] is True and OWNED in summary["callerIds"]
    assert summary["defaultRegion"] == "GB"
    placed = ok(
        member,
        "makeCall",
        {
            "to": WRITTEN,
            "script": "Hello, this is Acme about a trade account for marine fasteners.",
            "consent": "their website invites trade calls",
            "contactName": "Quayside Fasteners",
            "calleeTimeZone": zone_at(12),
        },
        **_dialer(session),
    )
    assert placed["to"] == SUPPLIER and placed["status"] == "queued"
    sid = Call.objects.get(pk=placed["id"]).sid
    assert phone.calls[sid]["To"] == SUPPLIER
    phone.answer(sid, "human")
    (spoken,) = phone.deliver(acme_client)
    assert b"marine fasteners.</Say>" in spoken.content
    phone.complete(sid, 95)
    phone.deliver(acme_client)
    detail = ok(member, "getCallDetail", {"callId": placed["id"]}, session=session)
    assert (detail["status"], detail["answeredBy"], detail["durationSeconds"]) == ("completed", "human", 95)

    # A text message confirming the order, to the number written another way.
    sent = ok(
        member,
        "sendSms",
        {"to": "+44 (0)20 7183 8750", "body": "Order KB-1042 confirmed.", "calleeTimeZone": zone_at(12)},
        **_dialer(session),
    )
    assert sent["to"] == SUPPLIER and sent["segments"] == 1
    assert phone.messages[Message.objects.get(pk=sent["id"]).sid]["Body"] == "Order KB-1042 confirmed."

    # A number on the do-not-call list is refused before anything is placed.
    ok(
        admin,
        "manageDoNotCall",
        {"action": "add", "number": "020 7183 8751", "reason": "asked by letter"},
        **_dialer(_started(admin)),
    )
    placed_before = len(phone.calls)
    message = refused(
        member,
        "makeCall",
        {"to": "(020) 7183 8751", "script": "Hello", "consent": "order form", "calleeTimeZone": zone_at(12)},
        **_dialer(session),
    )
    assert "do-not-call list" in message and "asked by letter" in message
    assert len(phone.calls) == placed_before

    # The supplier replies STOP: its number goes on the list, and the next text is refused.
    phone.inbound(links.page("dialer:sms"), SUPPLIER, "STOP")
    (answered,) = phone.deliver(acme_client)
    assert answered.status_code == 200
    assert DoNotCall.objects.get(number=SUPPLIER).source == DoNotCall.Source.SMS_STOP
    sent_before = len(phone.messages)
    assert "do-not-call list" in refused(
        member,
        "sendSms",
        {"to": WRITTEN, "body": "Still there?", "calleeTimeZone": zone_at(12)},
        **_dialer(session),
    )
    assert "do-not-call list" in refused(
        member,
        "makeCall",
        {"to": WRITTEN, "script": "Hi", "consent": "order form", "calleeTimeZone": zone_at(12)},
        **_dialer(session),
    )
    assert len(phone.messages) == sent_before and len(phone.calls) == placed_before

    # The call log: by name, and by the number as people write it.
    logged = ok(member, "searchCallLogs", {"query": "Quayside"}, session=session)
    assert [(item["kind"], item["id"]) for item in logged["items"]] == [("call", placed["id"])]
    by_number = ok(member, "searchCallLogs", {"query": WRITTEN}, session=session)
    assert {(item["kind"], item["id"]) for item in by_number["items"]} >= {
        ("call", placed["id"]),
        ("sms", sent["id"]),
    }
    assert all(item["to"] == SUPPLIER or item["kind"] == "sms" for item in by_number["items"])

    # A viewer: the do-not-call list read, nothing of the member's calls, searches or sessions.
    theirs = MemorySession()
    ok(viewer, "getDialerSummary", {}, session=theirs)
    listed = ok(viewer, "manageDoNotCall", {"action": "list"}, session=theirs)["entries"]
    assert {entry["number"] for entry in listed} == {SUPPLIER, "+442071838751"}
    assert ok(viewer, "searchCallLogs", {"query": WRITTEN}, session=theirs)["total"] == 0
    assert ok(viewer, "searchCallLogs", {}, session=theirs)["total"] == 0
    hidden = refused(viewer, "getCallDetail", {"callId": placed["id"]}, session=theirs)
    assert "not found" in hidden.lower() and "Quayside" not in hidden and "fasteners" not in hidden
    for name, arguments in (
        ("makeCall", {"to": WRITTEN, "script": "Hi"}),
        ("webSearch", {"query": "fasteners"}),
    ):
        with pytest.raises(ToolNotFound):
            call(viewer, name, arguments, session=theirs)
    acme_client.force_login(viewer)
    for name in ("dialer:dialer", "web:calls", "browser:sessions"):
        answer = acme_client.get(reverse(name))
        shown = answer.content.decode()
        assert answer.status_code < 500, name
        assert "Quayside" not in shown and "marine fasteners" not in shown, name
