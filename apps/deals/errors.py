"""The Deals Pipeline's failures (apps.core.errors): each names the problem and what to do next."""

from django.utils.translation import gettext_lazy as _

from apps.core.errors import AppError, Conflict, ValidationFailed


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


class ProviderFailed(AppError):
    code = "ENRICHMENT_PROVIDER_FAILED"
    http_status = 502
    data_fields = ("problem",)
    msg_format = _(
        "The deal finder could not search the enrichment provider: {problem}. Nothing was bought. "
        "Leave out the provider source, or try again later."
    )


class WrongCampaignState(Conflict):
    code = "CAMPAIGN_STATE"
    data_fields = ("campaign", "status", "action")
    msg_format = _(
        "Campaign {campaign} is {status}: it cannot {action}. getReachoutCampaign shows its state."
    )


class WrongFinderState(Conflict):
    code = "FINDER_STATE"
    data_fields = ("finder", "status", "action")
    msg_format = _("Deal finder {finder} is {status}: it cannot {action}.")
