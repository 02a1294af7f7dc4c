"""Personal data in the Personal Assistant (docs/privacy.md): a person's briefs and goals (and, with
a goal, its tasks' links, proposals, checks and tests) are theirs, exported and erased with them.
The Tasks-area tasks and calendar events made for them are those areas' own records."""

from apps.assistant.models import Brief, Goal, GoalTask, GovernanceCheck, PlanTest, ScheduleProposal
from apps.core import privacy

privacy.register(Brief, user="owner")
privacy.register(Goal, user="owner")
for model in (GoalTask, ScheduleProposal, GovernanceCheck, PlanTest):
    privacy.register(model, user="goal__owner")
