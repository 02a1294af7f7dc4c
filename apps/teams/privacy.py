"""Personal data in Teams (docs/privacy.md): a person's teams (with their members, projects,
cards and log) are theirs, exported with them and erased with them; their comments and prompts on
cards keep no author after erasure."""

from apps.core import privacy
from apps.teams.models import (
    AgentTeam,
    BudgetReservation,
    CardComment,
    ProjectMessage,
    TeamCard,
    TeamMember,
    TeamProject,
)

privacy.register(AgentTeam, user="created_by", erase="delete")
privacy.register(CardComment, user="author", erase={"author": None, "body": ""})
privacy.register(ProjectMessage, user="author", erase={"author": None, "content": ""})
privacy.register(TeamCard, user="created_by", erase={"created_by": None})
privacy.not_personal(TeamMember, reason="an agent of a team, erased with its team")
privacy.not_personal(TeamProject, reason="a board of a team, erased with its team")
privacy.not_personal(BudgetReservation, reason="an amount held against a team's budget")
