"""Personal data in Teams (docs/privacy.md): a person's teams (with their members, projects,
cards and log) are theirs, exported with them and erased with them; their comments and prompts on
cards keep no author after erasure."""

from django.db.models import Q, QuerySet

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


def _messages(subject: privacy.Subject) -> QuerySet:
    """The lines the person wrote, and every line of their teams' logs (what members answered them)."""
    if subject.user is None:
        return ProjectMessage.objects.none()
    return ProjectMessage.objects.filter(Q(author=subject.user) | Q(project__team__created_by=subject.user))


privacy.register(AgentTeam, user="created_by", erase="delete")
privacy.register(TeamMember, user="team__created_by", erase="delete")
privacy.register(TeamProject, user="team__created_by", erase="delete")
privacy.register(CardComment, user="author", erase={"author": None, "body": ""})
privacy.register(ProjectMessage, find=_messages, erase={"author": None, "content": ""})
privacy.register(TeamCard, user="created_by", erase={"created_by": None})
privacy.not_personal(BudgetReservation, reason="an amount held against a team's budget")
