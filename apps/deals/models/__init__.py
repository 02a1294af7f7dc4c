"""The Deals Pipeline's records, one module per subject (workspace schema).

- `pipelines`: a Pipeline and its ordered Stages (win probability, rotting days);
- `deals`: a Deal (value and currency, stage, open/won/lost, owner, contact or group account),
  its shares;
- `activity`: a deal's stage visits (entered/left), logged contacts and follow-ups, and its
  history of changes.
"""

from apps.deals.models.activity import Activity, DealEvent, StageVisit
from apps.deals.models.deals import Deal, DealShare
from apps.deals.models.pipelines import Pipeline, Stage

__all__ = ["Activity", "Deal", "DealEvent", "DealShare", "Pipeline", "Stage", "StageVisit"]
