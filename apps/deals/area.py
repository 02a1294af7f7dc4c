"""The Deals Pipeline area, as the rest of the service knows it (apps.core.areas)."""

from typing import Any

from celery.schedules import crontab
from django.utils.translation import gettext_lazy as _

from apps.core import areas, env
from apps.core.kinds import Kind, page
from apps.core.navigation import NavItem
from apps.deals.permissions import DealsPerm
from apps.mail import api as mail

area = areas.declare(
    title=_("Deals Pipeline"),
    group=areas.Group.SALES,
    description=_(
        "Sales pipelines with ordered stages, deals from first contact to won or lost, "
        "follow-ups, deal finders and reachout campaigns"
    ),
    words="deal deals opportunity opportunities sales pipeline funnel prospect lead won lost forecast crm",
    hints={
        "createPipeline": "set up a new sales funnel with stages and win probabilities rotting days",
        "managePipeline": (
            "rename archive restore a pipeline, add remove reorder rename stages of a sales pipeline"
        ),
        "getPipelineOverview": (
            "sales board kanban how is the pipeline doing forecast per stage, stage ids win percentages"
        ),
        "briefDealPipeline": (
            "summary of the sales pipeline what needs attention this week, stale rotting deals, forecast, "
            "won and lost lately, a quick rundown of how sales are going"
        ),
        "createDeal": "new opportunity add a deal for a customer worth amount, expected close date",
        "getDeal": "details of an opportunity value weighted value stage history contact follow-ups",
        "updateDeal": (
            "change a deal's value amount close date owner title, mark won or lost with a reason, reopen"
        ),
        "listDeals": "which deals are open won lost closing this month this quarter, someone's deals, mine",
        "searchDeals": "find look up an opportunity by name customer company",
        "moveDealStage": (
            "advance an opportunity to the next sales stage proposal negotiation, move it along"
        ),
        "logDealContact": (
            "record note a call meeting email with the customer on a deal, stop it rotting, mark a "
            "follow-up done"
        ),
        "scheduleDealFollowUp": "remind me to call back chase follow up the customer next week on a deal",
        "getDealFollowUpsDue": "which deals need a follow up today overdue callbacks chasers due",
        "openDeal": "show link to a deal page",
        "openDeals": "take me to the sales pipeline board page",
        "shareDeal": (
            "give a colleague access to an opportunity, let someone see or edit a deal, make it private"
        ),
        "deleteDeal": "remove an opportunity put a deal in the bin trash",
        "restoreDeal": "undelete bring back a deleted deal from the bin",
        "getDealHistory": "audit trail who changed a deal and when, stage changes log",
        # Deal finders, reachout campaigns and the area's e-mail.
        "createDealFinder": "set up a prospecting search find prospects matching ideal customer profile icp",
        "controlDealFinder": "run pause stop a prospecting search deal finder now",
        "getDealFinder": "leads prospects a deal finder found, what a prospecting search has turned up",
        "listDealFinders": "my prospecting searches deal finders",
        "createReachoutCampaign": "cold outreach sequence to prospects drip follow-ups",
        "controlReachoutCampaign": "start launch pause resume stop an outreach sequence",
        "getReachoutCampaign": "how is the outreach sequence doing replies bounces unsubscribes",
        "listReachoutCampaigns": "outbound email sequences cold outreach campaigns",
        "previewReachoutRecipients": "who will the outreach sequence email next skipped recipients",
        "getInboxMessage": "read open an email message about a deal",
        "searchMail": (
            "search emails mail from a prospect customer about a deal, search my email inbox for a message"
        ),
        "replyEmail": "reply answer respond to an email",
        "sendDraft": "send off my draft now",
        "requestDealInfoEmail": "email the deal contact asking for budget timeline decision information",
    },
    kinds=[
        Kind("deal", "deals.Deal", url=page("deals:detail", "deal_id"), search=("title", "notes")),
        Kind(
            "deal_pipeline",
            "deals.Pipeline",
            named=_("Deals pipeline"),
            title="name",
            url=page("deals:board", anchor="pipeline-"),
            search=("name", "description"),
        ),
        Kind(
            "reachout_campaign",
            "deals.ReachoutCampaign",
            title="name",
            search=("name",),
            named=_("Reach-out campaign"),
        ),
        Kind("deal_finder", "deals.DealFinder", title="name", search=("name",)),
    ],
    not_kinds={
        "deals.Activity": "a follow-up or a logged contact of a deal, reached through the deal",
        "deals.CampaignStep": "an e-mail of a campaign's sequence, reached through the campaign",
        "deals.CampaignRecipient": "a person on a campaign's list, reached through the campaign",
        "deals.CampaignMessage": "a message a campaign sent, part of its recipient's history",
        "deals.FoundLead": "a deal finder's result, reviewed in its finder; taken, a contact or deal",
    },
    profiles={
        "sales": (
            "createDeal",
            "getDeal",
            "listDeals",
            "searchDeals",
            "updateDeal",
            "moveDealStage",
            "logDealContact",
            "scheduleDealFollowUp",
            "getDealFollowUpsDue",
            "getPipelineOverview",
            "briefDealPipeline",
            "requestDealInfoEmail",
            "openDeal",
        ),
        "billing": ("searchDeals",),
        "marketing": (
            "createReachoutCampaign",
            "controlReachoutCampaign",
            "getReachoutCampaign",
            "listReachoutCampaigns",
            "previewReachoutRecipients",
            "createDealFinder",
            "controlDealFinder",
            "getDealFinder",
            "listDealFinders",
            "searchMail",
            "getInboxMessage",
            "replyEmail",
            "sendDraft",
        ),
        "admin": ("createPipeline", "managePipeline", "openDeals"),
        "housekeeping": ("deleteDeal", "restoreDeal", "getDealHistory", "shareDeal"),
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


def _delivery_report(report: Any) -> None:
    """A bounce or a complaint about a reachout campaign's message (apps.deals.reachout)."""
    from apps.deals import reachout

    reachout.report_received(report)


mail.on_delivery_report(_delivery_report)
