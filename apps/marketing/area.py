"""The Marketing area, as the rest of the service knows it (apps.core.areas): segments of the
workspace's contacts, e-mail campaigns sent through the mail app with consent, one-click
unsubscribe and the shared suppression list, and their figures. Built in steps: docs/marketing.md
says which of SPEC.md's 48 tools exist yet."""

from celery.schedules import crontab
from django.utils.translation import gettext_lazy as _

from apps.core import areas
from apps.core.kinds import Kind, page
from apps.core.navigation import NavItem
from apps.marketing.permissions import MarketingPerm

area = areas.declare(
    title=_("Marketing"),
    group=areas.Group.CONTENT,
    description=_("E-mail campaigns to segments of contacts, with consent, unsubscribe and their figures"),
    words="marketing campaign newsletter segment audience email blast mailing list subscriber",
    hints={},
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
        )
    ],
    not_kinds={
        "marketing.Segment": "an audience of contacts by rules (listMarketingSegments)",
        "marketing.Send": "one recipient of a launched campaign, reached through the campaign",
        "marketing.Click": "a click on a campaign's link, counted in its figures",
        "marketing.Consent": "a contact's consent to marketing mail, reached through the contact",
    },
    periodic={
        # The sending campaigns' due messages (quiet hours over, a run cut short resumed).
        "marketing-send": areas.Periodic("apps.marketing.tasks.send_campaigns", crontab(minute="*")),
    },
)
