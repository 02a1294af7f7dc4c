"""Marketing records for tests, made through the services as a person makes them:
`segment(actor, rules=[...])`, `campaign(actor, segment=..., mailbox=...)`, `consenting(actor, n)`
(contacts with an address and consent granted), `launched(actor, campaign)`."""

import uuid
from typing import Any

from django.utils import timezone

from apps.catalogue.testing import listed
from apps.contacts.tests.factories import ContactFactory
from apps.core import factories
from apps.core.factories import AccessRows, access_rows, private_rows
from apps.marketing import plans, sequences, services
from apps.marketing.models import (
    Campaign,
    Click,
    Consent,
    ContentItem,
    DesignAsset,
    EmailSequence,
    Enrollment,
    LandingPage,
    MarketingPlan,
    MarketingSettings,
    Segment,
    Send,
    StepSend,
)

# A person's browser: the public endpoints count no request without one (apps.marketing.visits).
BROWSER = {"HTTP_USER_AGENT": "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"}


def tag() -> str:
    return uuid.uuid4().hex[:8]


def segment(actor: Any, *, rules: list[dict[str, Any]] | None = None, **fields: Any) -> Segment:
    fields.setdefault("name", f"Segment {tag()}")
    return services.segment_create(actor=actor, fields={"rules": rules or [], **fields})


def campaign(actor: Any, **fields: Any) -> Campaign:
    fields.setdefault("name", f"Campaign {tag()}")
    fields.setdefault("subject", "Spring news, {first_name}")
    fields.setdefault("body", "Hello {first_name}, see https://example.org/spring.")
    return services.campaign_create(actor=actor, fields=fields)


def postal_address(text: str = "Acme Ltd, 1 Market Street, Leeds LS1 1AA, UK") -> MarketingSettings:
    settings = MarketingSettings.current()
    settings.postal_address = text
    settings.save()
    return settings


def consenting(actor: Any, count: int, *, label: str, **fields: Any) -> list[Any]:
    """`count` contacts tagged `label` with an address each and consent granted."""
    made = [
        ContactFactory(actor=actor, email=f"{label}-{index}@example.org", tags=[label], **fields)
        for index in range(count)
    ]
    Consent.objects.bulk_create(
        [Consent(contact=contact, status=Consent.Status.GRANTED, source="test") for contact in made]
    )
    return made


def sent_row(actor: Any, visibility: str = "workspace") -> Send:
    """A campaign of `actor`'s (as launched, without sending) with one recipient's row."""
    made = campaign(actor, visibility=visibility)
    Campaign.objects.filter(pk=made.pk).update(status=Campaign.Status.SENT, launched_at=timezone.now())
    return Send.objects.create(campaign=made, email=f"r-{tag()}@example.org", state=Send.State.SENT)


@access_rows("marketing.Campaign")
def _campaigns(people: dict[str, Any]) -> AccessRows:
    rows = private_rows(people, lambda actor, visibility: campaign(actor, visibility=visibility))
    rows.listed = lambda person: listed(person, "searchMarketingCampaigns", {"limit": 100})
    return rows


def content_item(actor: Any, **fields: Any) -> ContentItem:
    from apps.marketing import content

    fields.setdefault("name", f"Copy {tag()}")
    fields.setdefault("type", "email")
    fields.setdefault("body", "<p>Hello</p>")
    return content.create(actor=actor, fields=fields)


@access_rows("marketing.ContentItem")
def _content_items(people: dict[str, Any]) -> AccessRows:
    rows = private_rows(people, lambda actor, visibility: content_item(actor, visibility=visibility))
    rows.listed = lambda person: listed(person, "searchMarketingContent", {"limit": 100})
    return rows


@access_rows("marketing.Segment")
def _segments(people: dict[str, Any]) -> AccessRows:
    return AccessRows(
        everyone=[segment(people["member"])],
        listed=lambda person: listed(person, "listMarketingSegments", {"limit": 100}),
    )


@access_rows("marketing.Consent")
def _consents(people: dict[str, Any]) -> AccessRows:
    contact = ContactFactory(actor=people["member"], email=f"c-{tag()}@example.org")
    return AccessRows(everyone=[Consent.objects.create(contact=contact, status=Consent.Status.GRANTED)])


@access_rows("marketing.Send")
def _sends(people: dict[str, Any]) -> AccessRows:
    return private_rows(people, lambda actor, visibility: sent_row(actor, visibility))


@access_rows("marketing.Click")
def _clicks(people: dict[str, Any]) -> AccessRows:
    return private_rows(
        people,
        lambda actor, visibility: Click.objects.create(
            send=sent_row(actor, visibility), url="https://example.org/"
        ),
    )


@factories.privacy_rows("marketing")
def _private(people: dict[str, Any], marker: str, rows: factories.PrivateRows) -> None:
    """The owner's private campaign, e-mail sequence and plan, with the marker in their text."""
    owner = people["owner"]
    made = campaign(
        owner,
        name=f"{marker} launch",
        subject=f"{marker} subject",
        body=f"{marker} body https://example.org/{marker}",
        visibility="private",
    )
    rows.add("campaignId", record=made)
    copy = content_item(
        owner,
        name=f"{marker} copy",
        title=f"{marker} title",
        body=f"<p>{marker} body</p>",
        visibility="private",
    )
    rows.add("contentId", record=copy)
    drip = sequence(
        owner,
        name=f"{marker} drip",
        steps=[{"subject": f"{marker} subject", "body": f"{marker} body"}],
        visibility="private",
    )
    rows.add("sequenceId", record=drip)
    rows.add(
        "planId", record=plan(owner, name=f"{marker} plan", summary=f"{marker} summary", visibility="private")
    )
    page = landing_page(owner, name=f"{marker} page", title=f"{marker} title", visibility="private")
    rows.add("pageId", record=page)
    rows.add(
        "designId",
        record=design(owner, name=f"{marker} design", headline=f"{marker} sale", visibility="private"),
    )


# --- e-mail sequences and plans -------------------------------------------------------------------


def sequence(actor: Any, **fields: Any) -> EmailSequence:
    fields.setdefault("name", f"Sequence {tag()}")
    fields.setdefault("steps", [{"subject": "Hello {first_name}", "body": "Welcome: https://example.org/"}])
    return sequences.sequence_create(actor=actor, fields=fields)


def plan(actor: Any, **fields: Any) -> MarketingPlan:
    fields.setdefault("name", f"Plan {tag()}")
    return plans.plan_create(actor=actor, fields=fields)


def enrolled(actor: Any, visibility: str = "workspace") -> Enrollment:
    """A sequence of `actor`'s with one contact enrolled (without sending)."""
    made = sequence(actor, visibility=visibility)
    return Enrollment.objects.create(sequence=made, email=f"e-{tag()}@example.org")


@access_rows("marketing.EmailSequence")
def _sequences(people: dict[str, Any]) -> AccessRows:
    return private_rows(people, lambda actor, visibility: sequence(actor, visibility=visibility))


@access_rows("marketing.MarketingPlan")
def _plans(people: dict[str, Any]) -> AccessRows:
    return private_rows(people, lambda actor, visibility: plan(actor, visibility=visibility))


@access_rows("marketing.Enrollment")
def _enrollments(people: dict[str, Any]) -> AccessRows:
    return private_rows(people, enrolled)


@access_rows("marketing.StepSend")
def _step_sends(people: dict[str, Any]) -> AccessRows:
    return private_rows(
        people,
        lambda actor, visibility: StepSend.objects.create(
            enrollment=(row := enrolled(actor, visibility)), step=0, email=row.email, state="sent"
        ),
    )


# --- landing pages and designs --------------------------------------------------------------------


def landing_page(actor: Any, **fields: Any) -> LandingPage:
    from apps.marketing import landing

    fields.setdefault("name", f"Page {tag()}")
    fields.setdefault("blocks", [{"type": "heading", "text": "Hello", "level": 1}])
    return landing.create(actor=actor, fields=fields)


def design(
    actor: Any, *, name: str = "", headline: str = "Spring sale", visibility: str = "workspace"
) -> DesignAsset:
    from apps.marketing import designs

    return designs.create(
        actor=actor,
        name=name or f"Design {tag()}",
        preset="og-image",
        fields={"headline": headline},
        visibility=visibility,
    )


def _dashboard_pages(person: Any) -> set[int] | None:
    return listed(person, "getMarketingDashboard", items=lambda answer: answer["landingPages"])


@access_rows("marketing.LandingPage")
def _landing_pages(people: dict[str, Any]) -> AccessRows:
    rows = private_rows(people, lambda actor, visibility: landing_page(actor, visibility=visibility))
    rows.listed = _dashboard_pages
    return rows


@access_rows("marketing.DesignAsset")
def _designs(people: dict[str, Any]) -> AccessRows:
    rows = private_rows(people, lambda actor, visibility: design(actor, visibility=visibility))
    rows.listed = lambda person: listed(person, "listDesignAssets", {"limit": 100})
    return rows
