"""The Marketing area, as the rest of the service knows it (apps.core.areas): segments of the
workspace's contacts, e-mail campaigns sent through the mail app with consent, one-click
unsubscribe and the shared suppression list, and their figures. Built in steps: docs/marketing.md
says which of SPEC.md's 48 tools exist yet."""

from typing import Any

from celery.schedules import crontab
from django.utils.translation import gettext_lazy as _

from apps.core import areas
from apps.core.kinds import Kind, page
from apps.core.navigation import NavItem
from apps.mail import api as mail
from apps.marketing.permissions import MarketingPerm

area = areas.declare(
    title=_("Marketing"),
    group=areas.Group.CONTENT,
    description=_("E-mail campaigns to segments of contacts, with consent, unsubscribe and their figures"),
    words="marketing newsletter segment audience blast mailing subscriber",
    hints={
        "createMarketingSegment": (
            "new marketing segment: group subscribers or contacts into an audience list by rules"
        ),
        "updateMarketingSegment": "change the rules or conditions of a marketing segment audience",
        "deleteMarketingSegment": "delete an old marketing segment audience",
        "listMarketingSegments": "marketing segments audiences we have with their rules",
        "previewSegmentContacts": (
            "preview check the recipients a newsletter mailing blast reaches before it goes out, "
            "who is skipped"
        ),
        "createMarketingCampaign": (
            "new newsletter mailing or bulk email campaign to subscribers in a segment, draft an offer"
        ),
        "updateMarketingCampaign": "change a newsletter mailing campaign's subject line, text or segment",
        "getMarketingCampaign": "open show one newsletter mailing campaign with its text and figures",
        "searchMarketingCampaigns": (
            "find list the newsletter mailing campaigns sent or drafts, by words or status"
        ),
        "deleteMarketingCampaign": "delete a newsletter mailing campaign",
        "launchMarketingCampaign": "send launch a newsletter mailing blast campaign to its segment now",
        "pauseMarketingCampaign": "pause hold a newsletter mailing campaign that is sending",
        "setCampaignAutonomy": (
            "whether the agent may launch a newsletter campaign alone or needs my approval"
        ),
        "getCampaignPerformance": "newsletter campaign results, click rate, bounces, unsubscribes",
        "getMarketingDashboard": "marketing overview, newsletter campaigns and their results, segments",
        # Content and social posting.
        "listSocialAccounts": "which Mastodon Bluesky social media accounts are connected, scheduled posts",
        "scheduleSocialPost": "post or schedule a toot skeet on Mastodon Bluesky social media at a time",
        "manageSocialPost": "reschedule edit cancel a scheduled social media post, did it go out, its status",
        "createMarketingContent": (
            "write marketing copy: email social post blog article ad text with variants"
        ),
        "getMarketingContent": "open show marketing copy content item text and variants",
        "updateMarketingContent": "edit change marketing copy content text, headline, A/B variants",
        "deleteMarketingContent": "delete remove marketing copy content item",
        "searchMarketingContent": "find list marketing copy content we wrote, ad texts, social post drafts",
        "publishMarketingContent": (
            "publish marketing copy: email content into a campaign, social to Mastodon"
        ),
        "generateMarketingContent": "AI write generate marketing copy, ad text, social post in brand voice",
        # E-mail sequences, plans and analytics.
        "createEmailSequence": (
            "new drip email sequence, automated welcome onboarding nurture series of emails, autoresponder"
        ),
        "getEmailSequence": "show one drip email sequence nurture flow, its steps, who is enrolled or left",
        "updateEmailSequence": "change edit a drip email sequence series: its steps, delays, goal",
        "deleteEmailSequence": "delete remove a drip email sequence",
        "activateEmailSequence": (
            "activate turn on start a drip email sequence automation (onboarding, welcome), or pause it"
        ),
        "enrollInEmailSequence": "enroll add put contacts leads or a segment into a drip email sequence",
        "generateSequenceStep": "AI write generate the next follow up email step of a drip sequence series",
        "createMarketingPlan": "new marketing plan: goals, channels, budget and period for the quarter year",
        "getMarketingPlan": "show our marketing plan, its goals, channels and budget",
        "updateMarketingPlan": "change a marketing plan's budget, goals or channels, link campaigns to it",
        "generateMarketingStrategy": "AI propose suggest a marketing strategy or go-to-market plan",
        "getMarketingAnalytics": (
            "marketing analytics report per campaign and sequence over a period, conversions, unsubscribes"
        ),
        "getMarketingRecommendations": "recommendations what to improve in our marketing, from the numbers",
        "listCampaignSuggestions": "ideas suggestions for the next email campaign mailing to run",
        # Landing pages, the brand kit and designs.
        "createLandingPage": "new landing page for a campaign or offer with a signup form, web page",
        "updateLandingPage": "edit publish a landing page: headline, text, button, signup form",
        "deleteLandingPage": "delete take down a landing page",
        "getBrandKit": "our brand kit: brand colours, fonts, logo, tone of voice",
        "createDesign": (
            "design a social media graphic, instagram post, story, poster, banner in brand colours"
        ),
        "refineDesign": "refine edit a design graphic poster: its colours, headline text, layout, size",
        "generateDesignImage": "AI generate draw an image picture illustration for an ad, banner or design",
        "listDesignAssets": "list our marketing designs, graphics, posters and AI images",
        "deleteDesignAsset": "delete remove a marketing design graphic, poster or AI image",
    },
    profiles={
        "marketing": (
            "getMarketingDashboard",
            "createMarketingSegment",
            "updateMarketingSegment",
            "deleteMarketingSegment",
            "listMarketingSegments",
            "previewSegmentContacts",
            "createMarketingCampaign",
            "updateMarketingCampaign",
            "getMarketingCampaign",
            "searchMarketingCampaigns",
            "deleteMarketingCampaign",
            "launchMarketingCampaign",
            "pauseMarketingCampaign",
            "setCampaignAutonomy",
            "getCampaignPerformance",
        ),
        "content": (
            "listSocialAccounts",
            "scheduleSocialPost",
            "manageSocialPost",
            "createMarketingContent",
            "getMarketingContent",
            "updateMarketingContent",
            "deleteMarketingContent",
            "searchMarketingContent",
            "publishMarketingContent",
            "generateMarketingContent",
            "createLandingPage",
            "updateLandingPage",
            "deleteLandingPage",
            "getBrandKit",
            "createDesign",
            "refineDesign",
            "generateDesignImage",
            "listDesignAssets",
            "deleteDesignAsset",
        ),
        "growth": (
            "getMarketingDashboard",
            "listMarketingSegments",
            "previewSegmentContacts",
            "getCampaignPerformance",
            "createEmailSequence",
            "getEmailSequence",
            "updateEmailSequence",
            "deleteEmailSequence",
            "activateEmailSequence",
            "enrollInEmailSequence",
            "generateSequenceStep",
            "createMarketingPlan",
            "getMarketingPlan",
            "updateMarketingPlan",
            "generateMarketingStrategy",
            "getMarketingAnalytics",
            "getMarketingRecommendations",
            "listCampaignSuggestions",
        ),
    },
    nav=[NavItem("marketing", _("Marketing"), "marketing:home", MarketingPerm.VIEW, order=42)],
    kinds=[
        Kind(
            "marketing_campaign",
            "marketing.Campaign",
            title="name",
            url=page("marketing:home", anchor="campaign-"),
            search=("name", "subject"),
            named=_("Marketing campaign"),
        ),
        Kind(
            "marketing_content",
            "marketing.ContentItem",
            title="name",
            url=page("marketing:home", anchor="content-"),
            search=("name", "title"),
            named=_("Marketing content"),
        ),
        Kind(
            "marketing_sequence",
            "marketing.EmailSequence",
            title="name",
            url=page("marketing:home", anchor="sequence-"),
            search=("name",),
            named=_("E-mail sequence"),
        ),
        Kind(
            "marketing_plan",
            "marketing.MarketingPlan",
            title="name",
            url=page("marketing:home", anchor="plan-"),
            search=("name", "summary"),
            named=_("Marketing plan"),
        ),
        Kind(
            "marketing_landing_page",
            "marketing.LandingPage",
            title="name",
            url=page("marketing:home", anchor="landing-"),
            search=("name", "title", "slug"),
            named=_("Landing page"),
        ),
        Kind(
            "marketing_design",
            "marketing.DesignAsset",
            title="name",
            url=page("marketing:home", anchor="design-"),
            search=("name",),
            named=_("Design"),
        ),
    ],
    not_kinds={
        "marketing.Segment": "an audience of contacts by rules (listMarketingSegments)",
        "marketing.Send": "one recipient of a launched campaign, reached through the campaign",
        "marketing.Click": "a click on a campaign's link, counted in its figures",
        "marketing.Consent": "a contact's consent to marketing mail, reached through the contact",
        "marketing.Enrollment": "a contact's way through an e-mail sequence, reached through the sequence",
        "marketing.StepSend": "one step's message to an enrolled contact, counted in the sequence's figures",
    },
    settings={
        # A contact's marketing messages that bounced for now (4.x.x) before their address is
        # suppressed as bounced (apps.marketing.bounces).
        "ATRIUM_MARKETING_SOFT_BOUNCES": 3,
    },
    periodic={
        # The sending campaigns' due messages (quiet hours over, a run cut short resumed).
        "marketing-send": areas.Periodic("apps.marketing.tasks.send_campaigns", crontab(minute="*")),
        # The active e-mail sequences: who left (replied, unsubscribed, goal), then the due steps.
        "marketing-sequences": areas.Periodic("apps.marketing.tasks.send_sequences", crontab(minute="*")),
    },
)


def _delivery_report(report: Any) -> None:
    """A bounce or a complaint the mail app read on a mailbox's IMAP side (apps.marketing.bounces)."""
    from apps.marketing import bounces

    bounces.received(report)


mail.on_delivery_report(_delivery_report)
