"""The Deals Pipeline's failures (apps.core.errors): each names the problem and what to do next."""

from apps.core.errors import Conflict, ValidationFailed


class DealClosed(Conflict):
    code = "DEAL_CLOSED"


class PipelineInUse(Conflict):
    code = "PIPELINE_IN_USE"


class PipelineArchived(Conflict):
    code = "PIPELINE_ARCHIVED"


class StageInUse(Conflict):
    code = "STAGE_IN_USE"


class NoRate(ValidationFailed):
    code = "NO_EXCHANGE_RATE"
