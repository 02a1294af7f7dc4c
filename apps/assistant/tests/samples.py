"""A normal call of every Personal Assistant tool, for the catalogue's contract test."""

import uuid
from typing import Any

from apps.assistant import services
from apps.assistant.tests.factories import brief, goal, proposal
from apps.catalogue.testing import Sample, sample


def _marker() -> str:
    return f"Goal{uuid.uuid4().hex[:8]}"


@sample("paStartBrief")
def pa_start_brief(actor: Any) -> Sample:
    return Sample({"topic": "Plan the office move"})


@sample("paAnswerBrief")
def pa_answer_brief(actor: Any) -> Sample:
    marker = _marker()
    made = brief(actor, f"{marker} topic")
    return Sample({"briefId": made.pk, "answers": [{"number": 1, "answer": "A tidy move"}]}, private=[marker])


@sample("paListGoals")
def pa_list_goals(actor: Any) -> Sample:
    marker = _marker()
    goal(actor, objective=f"{marker} move", tasks=1)
    return Sample({"query": marker}, private=[marker])


@sample("paGetGoal")
def pa_get_goal(actor: Any) -> Sample:
    marker = _marker()
    return Sample({"goalId": goal(actor, objective=f"{marker} move", tasks=1).pk}, private=[marker])


@sample("paListGoalTasks")
def pa_list_goal_tasks(actor: Any) -> Sample:
    marker = _marker()
    return Sample({"goalId": goal(actor, objective=f"{marker} move", tasks=2).pk}, private=[marker])


@sample("paResearchGoal")
def pa_research_goal(actor: Any) -> Sample:
    marker = _marker()
    made = goal(actor, objective=f"{marker} move", tasks=1)
    return Sample({"goalId": made.pk, "query": f"{marker} move", "web": False}, private=[marker])


@sample("paAdjustSchedule")
def pa_adjust_schedule(actor: Any) -> Sample:
    marker = _marker()
    return Sample({"goalId": goal(actor, objective=f"{marker} move", tasks=2).pk}, private=[marker])


@sample("paApproveAndSchedule")
def pa_approve_and_schedule(actor: Any) -> Sample:
    marker = _marker()
    made = goal(actor, objective=f"{marker} move", tasks=1)
    planned = proposal(actor, made)
    return Sample({"goalId": made.pk, "proposalId": planned.pk}, private=[marker])


def _planned(actor: Any) -> Sample:
    marker = _marker()
    made = goal(actor, objective=f"{marker} move", tasks=1)
    proposal(actor, made)
    return Sample({"goalId": made.pk}, private=[marker])


sample("paGovernanceCheck")(_planned)
sample("paRunTest")(_planned)


@sample("paWatchTest")
def pa_watch_test(actor: Any) -> Sample:
    marker = _marker()
    made = goal(actor, objective=f"{marker} move", tasks=1)
    test, _new = services.test_start(actor=actor, proposal=proposal(actor, made), enqueue=lambda *_: None)
    return Sample({"testId": test.pk}, private=[marker])
