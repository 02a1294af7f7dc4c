"""Teams' failures (apps.core.errors): what a team, a member or a kit did not allow."""

from django.utils.translation import gettext_lazy as _

from apps.core.errors import AppError, Conflict


class KitUnknown(AppError):
    code = "TEAM_KIT_UNKNOWN"
    http_status = 400
    field = "kits"
    msg_format = _(
        "Kit {kit!r} is not one you may give: getAvailableAgentToolkits lists the kits whose tools "
        "you may use."
    )


class MemberFired(Conflict):
    code = "TEAM_MEMBER_FIRED"
    msg_format = _("Member {member} ({name!r}) was fired; hire a new member instead.")


class TeamNotActive(Conflict):
    code = "TEAM_NOT_ACTIVE"
    msg_format = _("Team {team} ({name!r}) is paused; set its status to active with updateAgentTeam first.")


class TeamHasNoMembers(Conflict):
    code = "TEAM_HAS_NO_MEMBERS"
    msg_format = _("Team {team} ({name!r}) has no members to work on a prompt; hire one with hireTeamMember.")


class TeamBudgetSpent(Conflict):
    code = "TEAM_BUDGET_SPENT"
    msg_format = _(
        "Team {team} ({name!r}) has spent its budget ({spent} of {budget} micro-USD); raise it with "
        "updateAgentTeam before sending another prompt."
    )


class TeamBusy(Conflict):
    code = "TEAM_BUSY"
    msg_format = _(
        "Team {team} ({name!r}) already works on {running} prompt(s), the most it may at once; "
        "wait for one to end (getProjectMessages) and send this again."
    )


class TeamModelUnavailable(AppError):
    code = "TEAM_MODEL_UNAVAILABLE"
    http_status = 503
    msg_format = _(
        "The team's members cannot run: {problem}. An administrator sets the model backend "
        "(ATRIUM_GATEWAY_MODEL_BACKEND, ATRIUM_GATEWAY_MODEL_URL, ATRIUM_GATEWAY_MODEL_NAME and its price)."
    )


class ApprovalDecided(Conflict):
    code = "TEAM_APPROVAL_DECIDED"
    msg_format = _("Approval {approval} was decided already ({decision}).")
