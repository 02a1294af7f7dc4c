"""What a week of agent browsing found: an administrator who ended a person's session left their
own e-mail address in that person's session record and log (kept after the administrator is
erased), and a vault reference given to an action other than fill (select, press) would be
resolved, and its use audited, though nothing types it. None of these start a browser."""

from django.urls import reverse

from apps.browser.models import BrowserAction, BrowserSession
from apps.browser.tests.factories import session_row


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
