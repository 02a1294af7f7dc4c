"""Settings → Marketing: what people see and do there (campaigns with figures, segments, consent,
the suppression list, the rules), and who may."""

from apps.contacts.tests.factories import ContactFactory
from apps.mail import suppression
from apps.marketing.models import Consent, MarketingSettings
from apps.marketing.tests.factories import campaign, segment, tag


def test_the_page_shows_campaigns_segments_and_the_suppression_list(acme_client, people):
    admin = people["admin"]
    made = campaign(admin, name=f"Spring {tag()}")
    kept = segment(admin, rules=[{"field": "country", "op": "equals", "value": "DE"}])
    suppression.suppress(f"gone-{tag()}@example.org", reason="unsubscribed")
    acme_client.force_login(admin)
    page = acme_client.get("/settings/marketing/")
    assert page.status_code == 200
    body = page.content.decode()
    assert made.name in body and kept.name in body and "Suppression list" in body and "Postal address" in body


def test_an_admin_sets_the_rules_and_records_consent(acme_client, people):
    admin = people["admin"]
    contact = ContactFactory(actor=admin, email=f"c-{tag()}@example.org")
    acme_client.force_login(admin)
    saved = acme_client.post(
        "/settings/marketing/settings/",
        {
            "postal_address": "Acme Ltd, Leeds",
            "frequency_cap": 3,
            "frequency_days": 7,
            "quiet_start": 22,
            "quiet_end": 7,
            "time_zone": "Europe/London",
        },
    )
    assert saved.status_code == 302
    settings = MarketingSettings.current()
    assert (settings.postal_address, settings.quiet_start, settings.time_zone) == (
        "Acme Ltd, Leeds",
        22,
        "Europe/London",
    )
    recorded = acme_client.post("/settings/marketing/consent/", {"email": contact.email, "status": "granted"})
    assert recorded.status_code == 302
    assert Consent.objects.get(contact=contact).status == "granted"


def test_a_viewer_sees_the_page_but_changes_nothing(acme_client, people):
    acme_client.force_login(people["viewer"])
    assert acme_client.get("/settings/marketing/").status_code == 200
    assert acme_client.post("/settings/marketing/settings/", {"postal_address": "x"}).status_code == 403
