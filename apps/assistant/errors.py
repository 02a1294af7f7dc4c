"""The Personal Assistant's failures (apps.core.errors)."""

from django.utils.translation import gettext_lazy as _

from apps.core.errors import AppError, Conflict


class BriefFinished(Conflict):
    code = "PA_BRIEF_FINISHED"
    msg_format = _("Brief {id} is finished: its goal is {goal}. Plan it with paAdjustSchedule.")


class BriefUnanswered(Conflict):
    code = "PA_BRIEF_UNANSWERED"
    msg_format = _(
        "Brief {id} still has {count} unanswered question(s) (first: number {first}); answer them with "
        "paAnswerBrief before the goal is made."
    )


class ProposalStale(Conflict):
    code = "PA_PROPOSAL_STALE"
    msg_format = _(
        "Schedule proposal {id} is stale: {reason}. Nothing was written; make a new one with "
        "paAdjustSchedule and approve that."
    )


class ProposalNotApprovable(Conflict):
    code = "PA_PROPOSAL_NOT_APPROVABLE"
    msg_format = _("Schedule proposal {id} is {status}; only the goal's latest proposal is approved.")


class NothingToSchedule(Conflict):
    code = "PA_NOTHING_TO_SCHEDULE"
    msg_format = _(
        "Goal {id} has no open task to schedule; give it tasks with paAnswerBrief or addTasks in "
        "paAdjustSchedule."
    )


class NoProposal(Conflict):
    code = "PA_NO_PROPOSAL"
    msg_format = _("Goal {id} has no schedule proposal yet; make one with paAdjustSchedule.")


class AssistantResearchFailed(AppError):
    code = "PA_RESEARCH_FAILED"
    http_status = 503
    msg_format = _("The research found nothing to use: {problem}.")
