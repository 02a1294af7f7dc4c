"""What a week of agent browsing found: an administrator who ended a person's session left their
own e-mail address in that person's session record and log (kept after the administrator is
erased), and a vault reference given to an action other than fill (select, press) would be
resolved, and its use audited, though nothing types it; a vault secret typed into a field that is not
a password's (an API key's, a page's "E-mail") was answered back in clear by the next examination;
and a page that sent itself to a look-alike on another host after it was examined was given the
secret kept for the first host. The last two start a browser."""

import pytest
from django.urls import reverse

from apps.browser import engine
from apps.browser.models import BrowserAction, BrowserSession
from apps.browser.tests.factories import session_row
from apps.browser.tests.sites import ended_after, portal
from apps.catalogue.testing import ok, refused
from apps.vaults.models import VaultUse
from apps.vaults.tests.factories import item


def test_an_admin_ending_a_session_leaves_no_address_of_theirs_in_it(people, acme_client):
    admin, member = people["admin"], people["member"]
    session = session_row(member)
    acme_client.force_login(admin)
    assert acme_client.post(reverse("browser:end", args=[session.pk])).status_code == 302
    session.refresh_from_db()
    logged = list(BrowserAction.objects.filter(session=session).values_list("detail", flat=True))
    assert session.status == BrowserSession.Status.ENDED and "administrator" in session.ended_why
    assert admin.email not in session.ended_why and not any(admin.email in line for line in logged)
    acme_client.force_login(member)
    assert admin.email not in acme_client.get(reverse("browser:sessions")).content.decode()


def test_a_vault_reference_is_only_for_filling(people):
    member = people["member"]
    secret = item(member, name="Portal password", value="hunter2-kestrel", allowed_hosts=["example.org"])
    session = session_row(member)
    for action, more in (("select", {}), ("press", {"key": "Enter"}), ("click", {})):
        arguments = {"sessionId": session.handle, "ref": "s1e1", "action": action, **more}
        message = refused(member, "browserInteract", {**arguments, "value": f"vault:item/{secret.pk}"})
        assert "only fills" in message and "hunter2" not in message
    assert not VaultUse.objects.filter(item=secret).exists()


@pytest.mark.skipif(not engine.os.path.exists("/usr/bin/chromium"), reason="no Chromium here")
def test_a_vault_secret_typed_into_a_plain_field_is_never_answered_back(people):
    member = people["member"]
    with portal() as site, ended_after():
        secret = item(member, name="Portal key", value="kestrel-api-7731", allowed_hosts=["127.0.0.1"])
        session = ok(member, "startBrowserSession")["sessionId"]
        ok(member, "browserNavigate", {"sessionId": session, "url": f"{site.url}/login"})
        shown = ok(member, "browserExamine", {"sessionId": session})
        email = next(e["ref"] for e in shown["elements"] if e["name"] == "E-mail")
        ok(
            member,
            "browserInteract",
            {"sessionId": session, "ref": email, "action": "fill", "value": f"vault:item/{secret.pk}"},
        )
        again = ok(member, "browserExamine", {"sessionId": session})
        assert "kestrel-api" not in str(again)
        assert next(e for e in again["elements"] if e["name"] == "E-mail")["value"] == "••••"


@pytest.mark.skipif(not engine.os.path.exists("/usr/bin/chromium"), reason="no Chromium here")
def test_a_vault_secret_is_not_typed_into_a_page_that_moved_to_another_host(people):
    import time

    member = people["member"]
    with portal() as site, ended_after():
        secret = item(member, name="Portal password", value="kestrel-pass-5521", allowed_hosts=["127.0.0.1"])
        session = ok(member, "startBrowserSession")["sessionId"]
        ok(member, "browserNavigate", {"sessionId": session, "url": f"{site.url}/login"})
        # The page moves itself to a look-alike elsewhere between the agent's two calls.
        ok(member, "browserNavigate", {"sessionId": session, "url": f"{site.url}/moving"})
        shown = ok(member, "browserExamine", {"sessionId": session})
        email = next(e["ref"] for e in shown["elements"] if e["name"] == "E-mail")
        time.sleep(1.5)
        said = refused(
            member,
            "browserInteract",
            {"sessionId": session, "ref": email, "action": "fill", "value": f"vault:item/{secret.pk}"},
        )
        assert "localhost" in said and "kestrel-pass" not in said
        assert not any("kestrel-pass-5521" in str(posted) for posted in site.posted)


def test_an_address_with_a_password_in_it_is_refused_without_repeating_the_password(people):
    member = people["member"]
    session = session_row(member)
    said = refused(
        member, "browserNavigate", {"sessionId": session.handle, "url": "https://ana:s3cr3t-pw@example.org/"}
    )
    assert "vault" in said and "s3cr3t-pw" not in said
    assert not BrowserAction.objects.filter(session=session, detail__contains="s3cr3t").exists()
