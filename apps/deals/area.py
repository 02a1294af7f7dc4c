"""The Deals Pipeline area, as the rest of the service knows it (apps.core.areas)."""

from celery.schedules import crontab
from django.utils.translation import gettext_lazy as _

from apps.core import areas, env
from apps.core.navigation import NavItem
from apps.deals.permissions import DealsPerm

area = areas.declare(
    title=_("Deals Pipeline"),
    description=_(
        "Sales pipelines with ordered stages, deals from first contact to won or lost, "
        "follow-ups, deal finders and reachout campaigns"
    ),
    words="deal deals opportunity opportunities sales pipeline funnel prospect lead won lost forecast crm",
    # Search hints come with each tool (atrium.E105: only for tools the area has).
    hints={
        # Deal finders, reachout campaigns and the area's e-mail.
        "createDealFinder": "set up a prospecting search find prospects matching ideal customer profile icp",
        "controlDealFinder": "run pause stop a prospecting search deal finder now",
        "getDealFinder": "leads prospects a deal finder found",
        "listDealFinders": "my prospecting searches deal finders",
        "createReachoutCampaign": "cold outreach sequence to prospects drip follow-ups",
        "controlReachoutCampaign": "start pause stop an outreach sequence",
        "getReachoutCampaign": "how is the outreach sequence doing replies bounces unsubscribes",
        "listReachoutCampaigns": "outbound email sequences cold outreach campaigns",
        "previewReachoutRecipients": "who will the outreach sequence email next skipped recipients",
        "getInboxMessage": "read open an email message about a deal",
        "searchMail": "search emails mail from a prospect customer about a deal",
        "replyEmail": "reply answer respond to an email",
        "sendDraft": "send off my draft now",
        "requestDealInfoEmail": "email the deal contact asking for budget timeline decision information",
    },
    nav=[
        NavItem("deals", _("Deals"), "deals:board", DealsPerm.VIEW, order=37),
        NavItem("deals-outreach", _("Outreach"), "deals:outreach", DealsPerm.VIEW, order=38),
    ],
    periodic={
        # Deal finders whose scheduled run is due (daily or weekly each).
        "run-deal-finders": areas.Periodic("apps.deals.tasks.run_due_finders", crontab(minute="*/15")),
        # Running reachout campaigns: answers checked, due steps sent within the daily caps.
        "send-reachout-campaigns": areas.Periodic("apps.deals.tasks.send_campaigns", crontab(minute="*")),
    },
    settings={
        # The enrichment provider of deal finders (a JSON REST person search, apps.deals.enrichment);
        # empty: finders search the workspace's contacts and group accounts only.
        "ATRIUM_DEALS_ENRICHMENT_URL": env.str("ATRIUM_DEALS_ENRICHMENT_URL", ""),
        "ATRIUM_DEALS_ENRICHMENT_KEY": env.str("ATRIUM_DEALS_ENRICHMENT_KEY", ""),
        "ATRIUM_DEALS_ENRICHMENT_TIMEOUT_SECONDS": env.int(
            "ATRIUM_DEALS_ENRICHMENT_TIMEOUT_SECONDS", 15, min=1
        ),
    },
)
