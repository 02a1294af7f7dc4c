"""The Personal Assistant area, as the rest of the service knows it (apps.core.areas): a person's
goals, briefed, researched, broken into tasks and scheduled into their free time, written to their
calendar only once they approve."""

from django.utils.translation import gettext_lazy as _

from apps.assistant.permissions import AssistantPerm
from apps.core import areas
from apps.core.navigation import NavItem

TOOLS = (
    "paStartBrief",
    "paAnswerBrief",
    "paListGoals",
    "paGetGoal",
    "paResearchGoal",
    "paListGoalTasks",
    "paAdjustSchedule",
    "paApproveAndSchedule",
    "paGovernanceCheck",
    "paRunTest",
    "paWatchTest",
)

area = areas.declare(
    title=_("Personal Assistant"),
    group=areas.Group.AUTOMATION,
    description=_("Goals briefed, researched, planned into your free time and scheduled once approved"),
    words="assistant goal plan schedule brief time block",
    hints={},
    profiles={"assistant": TOOLS},
    nav=[NavItem("assistant", _("Personal assistant"), "assistant:home", AssistantPerm.VIEW, order=62)],
    kinds=[],
    not_kinds={
        "assistant.Brief": "a person's intake questions for the assistant, reached through paListGoals",
        "assistant.Goal": "a person's own goal for their assistant (paListGoals), not linked or followed",
        "assistant.GoalTask": "a line of a goal pointing at a task of the Tasks area",
        "assistant.ScheduleProposal": "a step of planning a goal (paAdjustSchedule)",
        "assistant.GovernanceCheck": "a step of planning a goal: a plan's check against the rules",
        "assistant.PlanTest": "a step of planning a goal: a plan's acceptance test",
    },
)
