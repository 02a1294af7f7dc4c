"""The Agent Browser Tab's tools through call_tool, driving the system's Chromium against a website
on loopback: a session that signs in with a password from the vault (the submit confirmed by a
person), reads a table and downloads a file into Files; the refusals (another person's session, a
stale ref, a private address, no browser, the workspace's limit, an idle session); the page."""

from datetime import timedelta

import pytest
from django.test import override_settings
from django.urls import reverse
from django.utils import timezone

from apps.browser import engine, services
from apps.browser.models import BrowserAction, BrowserSession
from apps.browser.tests.sites import ended_after, portal
from apps.catalogue.dispatch import ToolNotFound, list_tools
from apps.catalogue.testing import call, confirmed, ok, person_without, principal_for, refused, text_of
from apps.core.actors import can
from apps.files.models import File
from apps.vaults.models import VaultUse
from apps.vaults.tests.factories import item

pytestmark = pytest.mark.skipif(not engine.os.path.exists("/usr/bin/chromium"), reason="no Chromium here")
ELICIT = {"capabilities": {"elicitation": {}}, "elicit": confirmed}


@pytest.fixture
def site():
    with portal() as served, ended_after():
        yield served


def _ref(snapshot: dict, role: str, name: str) -> str:
    return next(e["ref"] for e in snapshot["elements"] if e["role"] == role and e["name"] == name)


def test_a_session_signs_in_with_a_vault_secret_reads_a_table_and_downloads_into_files(people, site):
    member = people["member"]
    secret = item(member, name="Portal password", value="hunter2-kestrel", allowed_hosts=["127.0.0.1"])
    session = ok(member, "startBrowserSession")["sessionId"]

    went = ok(member, "browserNavigate", {"sessionId": session, "url": f"{site.url}/login"})
    assert (
        went["title"] == "Kestrel supplier portal" and went["status"] == 200 and went["trust"] == "untrusted"
    )
    shown = ok(member, "browserExamine", {"sessionId": session})
    assert [h["text"] for h in shown["headings"]] == ["Sign in"]
    password = _ref(shown, "textbox", "Password")
    sign_in = _ref(shown, "button", "Sign in")
    assert next(e for e in shown["elements"] if e["ref"] == sign_in)["submits"] is True

    ok(
        member,
        "browserInteract",
        {
            "sessionId": session,
            "ref": _ref(shown, "textbox", "E-mail"),
            "action": "fill",
            "value": "ada@kestrel.example",
        },
    )
    filled = ok(
        member,
        "browserInteract",
        {"sessionId": session, "ref": password, "action": "fill", "value": f"vault:item/{secret.pk}"},
    )
    assert "hunter2" not in str(filled)
    ok(
        member,
        "browserInteract",
        {"sessionId": session, "ref": _ref(shown, "checkbox", "Remember me"), "action": "check"},
    )
    # Submitting asks a person first: without a way to ask, nothing is sent.
    asked = call(member, "browserInteract", {"sessionId": session, "ref": sign_in, "action": "click"})
    assert asked["isError"] and site.posted == []
    after = ok(member, "browserInteract", {"sessionId": session, "ref": sign_in, "action": "click"}, **ELICIT)
    assert after["title"] == "Orders" and after["url"] == f"{site.url}/orders"
    assert site.posted == [
        {"email": ["ada@kestrel.example"], "password": ["hunter2-kestrel"], "remember": ["on"]}
    ]

    page = ok(member, "browserExtract", {"sessionId": session})
    assert "Welcome back" in page["text"] and page["tables"] == [[["Order", "Total"], ["KB-1042", "312.50"]]]
    assert {"url": f"{site.url}/invoice.csv", "text": "Download invoice"} in page["links"]
    orders = ok(member, "browserExamine", {"sessionId": session})
    got = ok(
        member,
        "browserInteract",
        {"sessionId": session, "ref": _ref(orders, "link", "Download invoice"), "action": "click"},
    )
    [download] = got["downloads"]
    kept = File.objects.get(pk=download["fileId"])
    assert download["saved"] is True and kept.name == "invoice.csv" and kept.created_by == member

    logged = list(BrowserAction.objects.filter(session__handle=session).values_list("kind", "detail"))
    assert [kind for kind, _detail in logged].count("interact") == 5
    assert not any("hunter2" in detail for _kind, detail in logged)
    assert any("vault secret" in detail for _kind, detail in logged)
    assert VaultUse.objects.filter(item=secret, action=VaultUse.Action.USED).count() == 1


def test_what_is_refused_before_anything_is_asked_or_done(people, site):
    member, owner = people["member"], people["owner"]
    session = ok(member, "startBrowserSession")["sessionId"]
    ok(member, "browserNavigate", {"sessionId": session, "url": f"{site.url}/login"})
    # Another person's session is not theirs to drive, nor to learn of.
    assert "No open browser session of yours" in refused(owner, "browserExamine", {"sessionId": session})
    # A ref before any examination (or of an older one) is refused, without a confirmation asked.
    assert "refs are good only for the snapshot" in refused(
        member, "browserInteract", {"sessionId": session, "ref": "s1e5", "action": "click"}
    )
    shown = ok(member, "browserExamine", {"sessionId": session})
    assert "takes no typed text" in refused(
        member,
        "browserInteract",
        {"sessionId": session, "ref": _ref(shown, "button", "Sign in"), "action": "fill", "value": "x"},
    )
    assert "needs `value`" in refused(
        member,
        "browserInteract",
        {"sessionId": session, "ref": _ref(shown, "textbox", "E-mail"), "action": "fill"},
    )
    email = _ref(shown, "textbox", "E-mail")
    ok(member, "browserExamine", {"sessionId": session})
    stale = {"sessionId": session, "ref": email, "action": "fill", "value": "x"}
    assert "refs are good only" in refused(member, "browserInteract", stale)
    for address in (
        "http://169.254.169.254/latest/meta-data/",
        "file:///etc/passwd",
        "http://10.0.0.7/admin",
    ):
        message = refused(member, "browserNavigate", {"sessionId": session, "url": address})
        assert "is not opened" in message
    with override_settings(WEBHOOKS_ALLOW_LOOPBACK=False):
        assert "is not opened" in refused(
            member, "browserNavigate", {"sessionId": session, "url": f"{site.url}/help"}
        )
    assert BrowserSession.objects.get(handle=session).url == f"{site.url}/login"
    assert BrowserAction.objects.filter(session__handle=session, kind="navigate").count() == 1


def test_the_limit_idle_sessions_and_no_browser(people, site):
    member, viewer = people["member"], people["viewer"]
    with override_settings(ATRIUM_BROWSER_MAX_SESSIONS=1):
        first = ok(member, "startBrowserSession")["sessionId"]
        assert "its limit" in refused(member, "startBrowserSession")
        session = BrowserSession.objects.get(handle=first)
        BrowserSession.objects.filter(pk=session.pk).update(last_used_at=timezone.now() - timedelta(hours=1))
        assert "No open browser session of yours" in refused(member, "browserExamine", {"sessionId": first})
        # Its browser is stopped at once; the row is marked by the reaper (beat, each minute).
        assert not engine.alive(session.pid, session.profile)
        services.reap()
        session.refresh_from_db()
        assert session.status == "ended" and "idle" in session.ended_why
        assert not engine.alive(session.pid, session.profile)
        ok(member, "startBrowserSession")
    with override_settings(ATRIUM_BROWSER_CHROMIUM="/nonexistent/chromium"):
        assert "No browser on this server" in refused(member, "startBrowserSession")
    assert BrowserSession.objects.filter(status="open").count() == 1
    with pytest.raises(ToolNotFound):
        call(person_without("browser.use", email="nobrowser@acme.example"), "startBrowserSession", {})
    assert "startBrowserSession" not in [
        entry["name"] for entry in list_tools(principal=principal_for(viewer))
    ] or can(viewer, "browser.use")


def test_the_page_shows_ones_own_sessions_and_ends_one(people, site, acme_client):
    member, owner = people["member"], people["owner"]
    mine = ok(member, "startBrowserSession")["sessionId"]
    ok(member, "browserNavigate", {"sessionId": mine, "url": f"{site.url}/login"})
    theirs = ok(owner, "startBrowserSession")["sessionId"]
    acme_client.force_login(member)
    shown = acme_client.get(reverse("browser:sessions")).content.decode()
    assert "Kestrel supplier portal" in shown and owner.email not in shown
    other = BrowserSession.objects.get(handle=theirs)
    assert acme_client.post(reverse("browser:end", args=[other.pk])).status_code == 404
    own = BrowserSession.objects.get(handle=mine)
    assert acme_client.post(reverse("browser:end", args=[own.pk])).status_code == 302
    own.refresh_from_db()
    assert own.status == "ended" and not engine.alive(own.pid, own.profile)
    assert "No open browser session" in text_of(call(member, "browserExamine", {"sessionId": mine}))


def test_the_guard_names_what_it_refuses():
    assert engine.refusal("data:text/html,hi") is None
    assert engine.refusal("ftp://example.org/x") is not None
    assert engine.refusal("http://169.254.169.254/") is not None
