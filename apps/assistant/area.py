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
    words="assistant goal plan brief time block",
    hints={
        "paStartBrief": (
            "personal assistant brief intake interview questions about a new goal objective I want to achieve"
        ),
        "paAnswerBrief": (
            "answers reply to the personal assistant's brief intake questions, make the goal and its tasks"
        ),
        "paListGoals": "my personal assistant goals objectives okrs with deadlines status, all of them",
        "paGetGoal": "one personal assistant goal in detail: objective success criteria deadline proposal",
        "paResearchGoal": (
            "research a goal: web search articles sources background reading, workspace records"
        ),
        "paListGoalTasks": "tasks steps of a personal assistant goal, estimates priorities, which belong",
        "paAdjustSchedule": (
            "plan replan a goal's tasks into free time blocks around meetings, rearrange, "
            "slipped behind, moved block, motion reclaim"
        ),
        "paApproveAndSchedule": (
            "approve accept a proposed plan schedule, book write its time blocks onto my calendar, invite"
        ),
        "paGovernanceCheck": (
            "governance policy rules check of an assistant plan: outside sends, spend approval, budget cap"
        ),
        "paRunTest": "run start an acceptance test dry run of a goal's plan: deadlines, overlaps, verify",
        "paWatchTest": "poll a running plan test until it finishes: its status and log, passed or failed",
    },
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
