"""A normal call of every Marketing tool, for the catalogue's contract test."""

from typing import Any

from apps.catalogue.testing import Sample, sample
from apps.mail.tests.factories import mailbox
from apps.marketing import services
from apps.marketing.tests.factories import (
    campaign,
    consenting,
    plan,
    postal_address,
    segment,
    sequence,
    tag,
)
from apps.marketing.tests.marketing_models import metered


def _marker() -> str:
    return f"Mkt{tag()}"


def _campaign(actor: Any) -> tuple[Any, str]:
    marker = _marker()
    return campaign(actor, name=f"{marker} spring", subject=f"{marker} news"), marker


def _ready(actor: Any) -> tuple[Any, str]:
    """A draft to a segment of two consenting contacts, from the actor's mailbox, launchable."""
    marker = _marker()
    postal_address()
    label = marker.lower()
    consenting(actor, 2, label=label)
    audience = segment(actor, rules=[{"field": "tags", "op": "has", "value": label}])
    made = campaign(actor, name=f"{marker} ready", segment_id=audience.pk, mailbox_id=mailbox(actor).pk)
    return made, marker


@sample("createMarketingSegment")
def create_marketing_segment(actor: Any) -> Sample:
    return Sample(
        {
            "segment": {
                "name": f"{_marker()} UK",
                "rules": [{"field": "country", "op": "equals", "value": "GB"}],
            }
        }
    )


@sample("updateMarketingSegment")
def update_marketing_segment(actor: Any) -> Sample:
    marker = _marker()
    made = segment(actor, name=f"{marker} leads")
    return Sample({"segmentId": made.pk, "changes": {"match": "any"}}, private=[marker])


@sample("deleteMarketingSegment")
def delete_marketing_segment(actor: Any) -> Sample:
    marker = _marker()
    return Sample({"segmentId": segment(actor, name=f"{marker} old").pk}, private=[marker])


@sample("listMarketingSegments")
def list_marketing_segments(actor: Any) -> Sample:
    marker = _marker()
    segment(actor, name=f"{marker} list")
    return Sample({"query": marker}, private=[marker])


@sample("previewSegmentContacts")
def preview_segment_contacts(actor: Any) -> Sample:
    made, marker = _ready(actor)
    return Sample({"segmentId": made.segment_id}, private=[marker.lower()])


@sample("createMarketingCampaign")
def create_marketing_campaign(actor: Any) -> Sample:
    return Sample(
        {"campaign": {"name": f"{_marker()} launch", "subject": "News", "body": "Hello {first_name}"}}
    )


@sample("updateMarketingCampaign")
def update_marketing_campaign(actor: Any) -> Sample:
    made, marker = _campaign(actor)
    return Sample({"campaignId": made.pk, "changes": {"body": "Changed"}}, private=[marker])


@sample("getMarketingCampaign")
def get_marketing_campaign(actor: Any) -> Sample:
    made, marker = _campaign(actor)
    return Sample({"campaignId": made.pk}, private=[marker])


@sample("searchMarketingCampaigns")
def search_marketing_campaigns(actor: Any) -> Sample:
    _made, marker = _campaign(actor)
    return Sample({"query": marker}, private=[marker])


@sample("deleteMarketingCampaign")
def delete_marketing_campaign(actor: Any) -> Sample:
    made, marker = _campaign(actor)
    return Sample({"campaignId": made.pk}, private=[marker])


@sample("launchMarketingCampaign")
def launch_marketing_campaign(actor: Any) -> Sample:
    made, marker = _ready(actor)
    return Sample({"campaignId": made.pk}, private=[marker])


@sample("pauseMarketingCampaign")
def pause_marketing_campaign(actor: Any) -> Sample:
    made, marker = _ready(actor)
    services.campaign_launch(actor=actor, campaign=made)
    return Sample({"campaignId": made.pk}, private=[marker])


@sample("setCampaignAutonomy")
def set_campaign_autonomy(actor: Any) -> Sample:
    made, marker = _campaign(actor)
    return Sample({"campaignId": made.pk, "autonomy": "autonomous"}, private=[marker])


@sample("getCampaignPerformance")
def get_campaign_performance(actor: Any) -> Sample:
    made, marker = _ready(actor)
    services.campaign_launch(actor=actor, campaign=made)
    return Sample({"campaignId": made.pk}, private=[marker])


@sample("getMarketingDashboard")
def get_marketing_dashboard(actor: Any) -> Sample:
    _campaign(actor)
    return Sample({})


# --- content and social posting -------------------------------------------------------------------


def _content(actor: Any, **fields: Any) -> tuple[Any, str]:
    from apps.marketing import content

    marker = _marker()
    fields.setdefault("type", "email")
    made = content.create(
        actor=actor,
        fields={
            "name": f"{marker} copy",
            "title": f"{marker} subject",
            "body": f"<p>{marker} body</p>",
            **fields,
        },
    )
    return made, marker


def _scheduled(actor: Any) -> tuple[Any, str]:
    """A Marketing post scheduled an hour on to a Mastodon account connected on loopback."""
    from datetime import timedelta

    from django.utils import timezone

    from apps.social import api as social_api
    from apps.social import services as social_services
    from apps.social.tests import servers

    marker = _marker()
    with servers.mastodon() as served:
        account = social_services.account_connect(
            actor=actor, network="mastodon", server=served.url, handle="", secret=servers.MASTODON_TOKEN
        )
    made = social_api.post(
        actor=actor,
        account_id=account.pk,
        text=f"{marker} soon",
        at=timezone.now() + timedelta(hours=1),
        source="marketing:post",
    )
    return made, marker


@sample("createMarketingContent")
def create_marketing_content(actor: Any) -> Sample:
    return Sample({"contentItem": {"name": f"{_marker()} ad", "type": "ad", "body": "<p>Summer sale</p>"}})


@sample("getMarketingContent")
def get_marketing_content(actor: Any) -> Sample:
    made, marker = _content(actor)
    return Sample({"contentId": made.pk}, private=[marker])


@sample("updateMarketingContent")
def update_marketing_content(actor: Any) -> Sample:
    made, marker = _content(actor)
    return Sample({"contentId": made.pk, "changes": {"title": "Changed"}}, private=[marker])


@sample("deleteMarketingContent")
def delete_marketing_content(actor: Any) -> Sample:
    made, marker = _content(actor)
    return Sample({"contentId": made.pk}, private=[marker])


@sample("searchMarketingContent")
def search_marketing_content(actor: Any) -> Sample:
    _made, marker = _content(actor)
    return Sample({"query": marker}, private=[marker])


@sample("publishMarketingContent")
def publish_marketing_content(actor: Any) -> Sample:
    made, marker = _content(actor)
    return Sample({"contentId": made.pk}, private=[marker])


@sample("generateMarketingContent")
def generate_marketing_content(actor: Any) -> Sample:
    from apps.marketing.tests.content_models import metered

    return Sample({"type": "social", "brief": "our summer sale", "variants": 1}, around=metered)


@sample("listSocialAccounts")
def list_social_accounts(actor: Any) -> Sample:
    _made, marker = _scheduled(actor)
    return Sample({}, private=[marker])


@sample("scheduleSocialPost")
def schedule_social_post(actor: Any) -> Sample:
    from datetime import timedelta

    from django.utils import timezone

    made, marker = _scheduled(actor)
    at = (timezone.now() + timedelta(hours=2)).isoformat()
    return Sample({"accountId": made.account_id, "text": "Later today", "at": at}, private=[marker])


@sample("manageSocialPost")
def manage_social_post(actor: Any) -> Sample:
    made, marker = _scheduled(actor)
    return Sample({"postId": made.pk, "action": "status"}, private=[marker])


# --- e-mail sequences, plans and analytics --------------------------------------------------------


def _sequence(actor: Any, **fields: Any) -> tuple[Any, str]:
    marker = _marker()
    return sequence(actor, name=f"{marker} drip", **fields), marker


@sample("createEmailSequence")
def create_email_sequence(actor: Any) -> Sample:
    return Sample(
        {"sequence": {"name": f"{_marker()} welcome", "steps": [{"subject": "Hello", "body": "Welcome"}]}}
    )


@sample("getEmailSequence")
def get_email_sequence(actor: Any) -> Sample:
    made, marker = _sequence(actor)
    return Sample({"sequenceId": made.pk}, private=[marker])


@sample("updateEmailSequence")
def update_email_sequence(actor: Any) -> Sample:
    made, marker = _sequence(actor)
    return Sample({"sequenceId": made.pk, "changes": {"goalStage": "customer"}}, private=[marker])


@sample("deleteEmailSequence")
def delete_email_sequence(actor: Any) -> Sample:
    made, marker = _sequence(actor)
    return Sample({"sequenceId": made.pk}, private=[marker])


@sample("activateEmailSequence")
def activate_email_sequence(actor: Any) -> Sample:
    postal_address()
    made, marker = _sequence(actor, mailbox_id=mailbox(actor).pk)
    return Sample({"sequenceId": made.pk}, private=[marker])


@sample("enrollInEmailSequence")
def enroll_in_email_sequence(actor: Any) -> Sample:
    made, marker = _sequence(actor)
    contacts = consenting(actor, 1, label=marker.lower())
    return Sample({"sequenceId": made.pk, "contactIds": [contacts[0].pk]}, private=[marker, marker.lower()])


@sample("generateSequenceStep")
def generate_sequence_step(actor: Any) -> Sample:
    made, marker = _sequence(actor)
    return Sample({"sequenceId": made.pk, "brief": "a friendly nudge"}, private=[marker], around=metered)


@sample("createMarketingPlan")
def create_marketing_plan(actor: Any) -> Sample:
    return Sample({"plan": {"name": f"{_marker()} plan", "channels": ["email"]}})


@sample("getMarketingPlan")
def get_marketing_plan(actor: Any) -> Sample:
    marker = _marker()
    return Sample({"planId": plan(actor, name=f"{marker} plan").pk}, private=[marker])


@sample("updateMarketingPlan")
def update_marketing_plan(actor: Any) -> Sample:
    marker = _marker()
    return Sample(
        {"planId": plan(actor, name=f"{marker} plan").pk, "changes": {"summary": "More"}}, private=[marker]
    )


@sample("generateMarketingStrategy")
def generate_marketing_strategy(actor: Any) -> Sample:
    return Sample({"brief": "a bakery in Leeds"}, around=metered)


@sample("getMarketingAnalytics")
def get_marketing_analytics(actor: Any) -> Sample:
    _made, marker = _sequence(actor)
    return Sample({}, private=[marker])


@sample("getMarketingRecommendations")
def get_marketing_recommendations(actor: Any) -> Sample:
    return Sample({})


@sample("listCampaignSuggestions")
def list_campaign_suggestions(actor: Any) -> Sample:
    marker = _marker()
    segment(actor, name=f"{marker} never mailed")
    return Sample({}, private=[marker])


# --- landing pages, the brand kit and designs -----------------------------------------------------


def _landing(actor: Any) -> tuple[Any, str]:
    from apps.marketing.tests.factories import landing_page

    marker = _marker()
    return landing_page(actor, name=f"{marker} offer", title=f"{marker} title"), marker


@sample("createLandingPage")
def create_landing_page(actor: Any) -> Sample:
    marker = _marker()
    blocks = [{"type": "heading", "text": f"{marker} offer"}, {"type": "cta", "label": "Go", "url": "#form"}]
    return Sample({"landingPage": {"name": f"{marker} page", "blocks": blocks}})


@sample("updateLandingPage")
def update_landing_page(actor: Any) -> Sample:
    made, marker = _landing(actor)
    return Sample({"pageId": made.pk, "changes": {"description": "Spring"}}, private=[marker])


@sample("deleteLandingPage")
def delete_landing_page(actor: Any) -> Sample:
    made, marker = _landing(actor)
    return Sample({"pageId": made.pk}, private=[marker])


@sample("getBrandKit")
def get_brand_kit(actor: Any) -> Sample:
    return Sample({})


def _design(actor: Any) -> tuple[Any, str]:
    from apps.marketing.tests.factories import design

    marker = _marker()
    return design(actor, name=f"{marker} design", headline=f"{marker} sale"), marker


@sample("createDesign")
def create_design(actor: Any) -> Sample:
    marker = _marker()
    return Sample({"preset": "og-image", "design": {"headline": f"{marker} sale"}})


@sample("refineDesign")
def refine_design(actor: Any) -> Sample:
    made, marker = _design(actor)
    return Sample({"designId": made.pk, "changes": {"layout": "left"}}, private=[marker])


@sample("generateDesignImage")
def generate_design_image(actor: Any) -> Sample:
    from apps.blog.tests.blog_models import metered as drawn

    return Sample({"prompt": "a lighthouse at dawn"}, around=drawn)


@sample("listDesignAssets")
def list_design_assets(actor: Any) -> Sample:
    _made, marker = _design(actor)
    return Sample({}, private=[marker])


@sample("deleteDesignAsset")
def delete_design_asset(actor: Any) -> Sample:
    made, marker = _design(actor)
    return Sample({"assetId": made.pk}, private=[marker])
