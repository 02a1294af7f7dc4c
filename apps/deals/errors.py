"""The Deals Pipeline's failures (apps.core.errors): each names the problem and what to do next."""

from django.utils.translation import gettext_lazy as _

from apps.core.errors import AppError, Conflict, InTrash, NoExchangeRate


class DealDeleted(InTrash):
    """A deal in the bin (its model's `Access(trash_error=...)`)."""

    code = "DEAL_DELETED"


class PipelineArchived(InTrash):
    """An archived pipeline (its model's `Access(trash_error=...)`)."""

    code = "PIPELINE_ARCHIVED"


class DealPipelineArchived(PipelineArchived):
    defaults = {}
    msg_format = _(
        "Deal {deal}'s pipeline {pipeline!r} is archived: restore it first (managePipeline action restore)."
    )


class DealClosed(Conflict):
    """A won or lost deal asked to do what only an open one does."""

    code = "DEAL_CLOSED"


class DealFinal(DealClosed):
    msg_format = _(
        "Deal {deal} is {status}; won and lost are final. Reopen it (status open) first to change that."
    )


class ClosedDealStays(DealClosed):
    msg_format = _("Deal {deal} is {status}; reopen it (updateDeal status open) before moving it.")


class ClosedDealNeedsNoFollowUp(DealClosed):
    msg_format = _("Deal {deal} is {status}; reopen it before planning follow-ups.")


class PipelineInUse(Conflict):
    code = "PIPELINE_IN_USE"
    msg_format = _(
        "Pipeline {pipeline!r} still has open deals: move them (moveDealStage) or close them (updateDeal "
        "status won/lost) first."
    )


class StageInUse(Conflict):
    code = "STAGE_IN_USE"
    msg_format = _(
        "Stage {stage!r} holds {count} deal(s): give moveToStageId, the stage of this pipeline they move to."
    )


class NoDealRate(NoExchangeRate):
    """A deal in another currency than its pipeline's, without the rate to it (one given today)."""

    msg_format = _(
        "The deal is in {source} and its pipeline reports in {target}: give `rate` (one {source} in "
        "{target} today)."
    )


class NoRateToPipeline(NoExchangeRate):
    """A deal moved to a pipeline in another currency than the one its rate is to."""

    msg_format = _(
        "Pipeline {pipeline!r} reports in {target}, deal {deal} is in {source} with a rate to {rate_to} "
        "only: give the deal in {target} first (updateDeal currency and value), or pick a stage of a "
        "pipeline in the same currency."
    )


class ProviderFailed(AppError):
    code = "ENRICHMENT_PROVIDER_FAILED"
    http_status = 502
    msg_format = _(
        "The deal finder could not search the enrichment provider: {problem}. Nothing was bought. "
        "Leave out the provider source, or try again later."
    )


class ProviderAnswered(ProviderFailed):
    problem_format = _("the provider answered {status}")


class WrongCampaignState(Conflict):
    code = "CAMPAIGN_STATE"
    msg_format = _(
        "Campaign {campaign} is {status}: it cannot {action}. getReachoutCampaign shows its state."
    )


class WrongFinderState(Conflict):
    code = "FINDER_STATE"
    msg_format = _("Deal finder {finder} is {status}: it cannot {action}.")
