"""The Deals Pipeline's records, one module per subject (workspace schema).

- `pipelines`: a Pipeline and its ordered Stages (win probability, rotting days);
- `deals`: a Deal (value and currency, stage, open/won/lost, owner, contact or group account),
  its shares;
- `activity`: a deal's stage visits (entered/left), logged contacts and follow-ups, and its
  history of changes;
- `finders`: deal finders (saved ideal-customer searches) and the leads they found;
- `campaigns`: reachout campaigns, their steps, recipients and the messages sent to them.
"""

from apps.deals.models.activity import Activity, DealEvent, StageVisit
from apps.deals.models.campaigns import CampaignMessage, CampaignRecipient, CampaignStep, ReachoutCampaign
from apps.deals.models.deals import Deal, DealShare
from apps.deals.models.finders import DealFinder, FoundLead
from apps.deals.models.pipelines import Pipeline, Stage

__all__ = [
    "Activity",
    "CampaignMessage",
    "CampaignRecipient",
    "CampaignStep",
    "Deal",
    "DealEvent",
    "DealFinder",
    "DealShare",
    "FoundLead",
    "Pipeline",
    "ReachoutCampaign",
    "Stage",
    "StageVisit",
]
