"""The Teams area, as the rest of the service knows it (apps.core.areas): agent teams whose
members work on prompts with kits of catalogue tools, acting with their creator's permissions."""

from celery.schedules import crontab
from django.utils.translation import gettext_lazy as _

from apps.core import areas, env
from apps.core.navigation import NavItem
from apps.teams.permissions import TeamsPerm

area = areas.declare(
    title=_("Teams"),
    group=areas.Group.AUTOMATION,
    description=_("AI agent teams: members with kits of tools, projects of cards, a budget and a log"),
    words="agent agents crew ai toolkit kit",
    hints={
        "getAgentTeamStatus": "list my agent teams with their members, kits, spend, how the team is doing",
        "reassignMemberKits": "an agent member's toolkits: different kits, its tools taken away",
        "addTeamCardComment": "leave a note comment for the agents on their team card",
    },
    profiles={
        "teams": (
            "createAgentTeam",
            "updateAgentTeam",
            "getAgentTeamStatus",
            "hireTeamMember",
            "fireTeamMember",
            "reassignMemberKits",
            "getTeamProjects",
            "getProjectMessages",
            "sendTeamPrompt",
            "addTeamCardComment",
            "getAvailableAgentToolkits",
        )
    },
    nav=[NavItem("teams", _("Agent teams"), "teams:teams", TeamsPerm.VIEW, order=62)],
    kinds=[],
    not_kinds={
        "teams.AgentTeam": "a person's own agents, reached through getAgentTeamStatus, not named or followed",
        "teams.TeamMember": "an agent of a team, reached through its team",
        "teams.TeamProject": "a team's board, reached through its team",
        "teams.TeamCard": "a prompt on a team's board, reached through its project",
        "teams.CardComment": "a person's words on a card, reached through the card",
        "teams.ProjectMessage": "a line of a team's log",
    },
    periodic={
        # Queued cards whose task was lost (a broker down) or that waited for the workspace's cap.
        "teams-start-queued": areas.Periodic("apps.teams.tasks.start_queued", crontab(minute="*")),
    },
    settings={
        # The most model calls a member may make on one card (a team's maxTurns is at most this).
        "ATRIUM_TEAMS_MAX_TURNS": env.int("ATRIUM_TEAMS_MAX_TURNS", 12, min=1, max=100),
        # Output tokens one model call of a member may use.
        "ATRIUM_TEAMS_MAX_TOKENS": env.int("ATRIUM_TEAMS_MAX_TOKENS", 2000, min=64, max=64_000),
        # Cards a team may have queued or running at once.
        "ATRIUM_TEAMS_OPEN_CARDS": env.int("ATRIUM_TEAMS_OPEN_CARDS", 3, min=1, max=50),
        # Cards the workspace's teams may run at once (the others wait, queued).
        "ATRIUM_TEAMS_RUNNING": env.int("ATRIUM_TEAMS_RUNNING", 4, min=1, max=100),
        # How long a budget reservation holds (past it, a worker that died holds nothing).
        "ATRIUM_TEAMS_RESERVATION_SECONDS": env.int("ATRIUM_TEAMS_RESERVATION_SECONDS", 900, min=60),
    },
)
