"""Personal data in the Deals Pipeline (docs/privacy.md).

A person's deals are those they own: private ones are put in the bin then erased, workspace ones
stay as the workspace's records with no owner. The deals whose contact has the person's address are
about them: exported with theirs, and kept (the link goes with the contact). Shares with the person
are erased; the follow-ups they own and the history entries they made stay with the deal, without
them. Pipelines, stages and a deal's stage visits name no one.
"""

from django.db.models import QuerySet

from apps.core import privacy, sharing
from apps.deals.models import Activity, Deal, DealEvent, DealShare, Pipeline, Stage, StageVisit


def _deals_about(subject: privacy.Subject) -> QuerySet[Deal]:
    if not subject.email:
        return Deal._base_manager.none()
    return Deal._base_manager.filter(contact__email__iexact=subject.email)


privacy.register(
    Deal,
    user="owner",
    mentions=_deals_about,
    soft_delete=sharing.trash_private,
    erase=sharing.erase_owned,
    order=50,
)
privacy.register(DealShare, user="user")
privacy.register(Activity, user="owner", erase={"owner": None}, order=40)
privacy.register(DealEvent, user="actor", erase={"actor": None}, order=40)
privacy.not_personal(Pipeline, reason="names and stages of the workspace's sales pipelines")
privacy.not_personal(Stage, reason="names, win probabilities and rotting days of pipeline stages")
privacy.not_personal(StageVisit, reason="when a deal entered and left its stages")


# --- deal finders and reachout campaigns -------------------------------------------------------
# A finder or campaign is its owner's like a deal (private ones go, workspace ones stay without
# them). A lead or a recipient is someone found or written to: found by their address, and erased
# with what was sent to them (the suppression list, in the mail app, keeps their objection).

from apps.deals.models import (  # noqa: E402  (this block's own models)
    CampaignMessage,
    CampaignRecipient,
    CampaignStep,
    DealFinder,
    FoundLead,
    ReachoutCampaign,
)


def _trash_private_finders(rows: QuerySet[DealFinder]) -> int:
    return sharing.trash_private(rows, status=DealFinder.Status.STOPPED)


def _campaign_messages(subject: privacy.Subject) -> QuerySet[CampaignMessage]:
    if not subject.email:
        return CampaignMessage.objects.none()
    return CampaignMessage.objects.filter(recipient__email__iexact=subject.email)


privacy.register(
    DealFinder, user="owner", soft_delete=_trash_private_finders, erase=sharing.erase_owned, order=50
)
privacy.register(FoundLead, email="email")
privacy.register(ReachoutCampaign, user="owner", erase={"owner": None}, order=40)
privacy.register(CampaignMessage, find=_campaign_messages, order=10)
privacy.register(CampaignRecipient, email="email", order=20)
privacy.not_personal(CampaignStep, reason="a campaign's subject and text, written for every recipient")
