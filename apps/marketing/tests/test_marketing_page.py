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


def test_the_page_shows_sequences_with_enrolments_and_plans_without_another_s_private_campaign(
    acme_client, people
):
    from apps.marketing.models import Enrollment
    from apps.marketing.tests.factories import plan, sequence

    member, owner = people["member"], people["owner"]
    drip = sequence(member, name=f"Drip {tag()}")
    Enrollment.objects.create(sequence=drip, email=f"a-{tag()}@example.org", state="replied")
    secret = campaign(owner, name=f"Secret {tag()}", visibility="private")
    shown = campaign(member, name=f"Shown {tag()}")
    made = plan(member, name=f"Plan {tag()}", campaign_ids=[shown.pk])
    made.campaigns.add(secret)
    acme_client.force_login(member)
    page = acme_client.get("/settings/marketing/").content.decode()
    assert f'id="sequence-{drip.pk}"' in page and drip.name in page and "replied 1" in page
    assert f'id="plan-{made.pk}"' in page and shown.name in page and secret.name not in page


def test_the_page_shows_landing_pages_designs_and_the_brand_kit_an_admin_edits(acme_client, people):
    from apps.marketing import brand
    from apps.marketing.tests.factories import design, landing_page

    admin, member, owner = people["admin"], people["member"], people["owner"]
    shown = landing_page(member, name=f"Offer {tag()}", slug=f"offer-{tag()}")
    hidden = landing_page(owner, name=f"Secret page {tag()}", visibility="private")
    drawn = design(member, name=f"Poster {tag()}")
    acme_client.force_login(member)
    body = acme_client.get("/settings/marketing/").content.decode()
    assert shown.name in body and f"/p/{shown.slug}/" in body and hidden.name not in body
    assert drawn.name in body and "Brand kit" in body and "Change the brand kit" not in body
    assert acme_client.post("/settings/marketing/brand/", {"voice": "x"}).status_code == 403

    acme_client.force_login(admin)
    saved = acme_client.post(
        "/settings/marketing/brand/",
        {"colours": "#112233, #445566", "heading_font": "DejaVu Serif", "voice": "warm, plain"},
    )
    assert saved.status_code == 302
    assert brand.colours()[:2] == ["#112233", "#445566"] and brand.voice() == "warm, plain"
    refused = acme_client.post("/settings/marketing/brand/", {"colours": "red", "voice": "changed"})
    assert refused.status_code in (302, 400) and brand.voice() == "warm, plain"
