"""What goes wrong in the Deals Pipeline, each a clear error naming the problem."""

from django.utils.translation import gettext_lazy as _

from apps.core.errors import AppError, Conflict


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
