"""Briefs and goals for tests, made through the service as a person makes them:
`goal(people["member"], tasks=2)` (a brief answered with the standard questions, a goal a week
ahead with that many Tasks-area tasks of an hour each)."""

from datetime import timedelta
from typing import Any

from django.utils import timezone

from apps.assistant import services
from apps.assistant.models import Brief, Goal, GoalTask, GovernanceCheck, PlanTest, ScheduleProposal
from apps.catalogue.testing import listed
from apps.core import factories
from apps.core.factories import AccessRows, access_rows


def brief(actor: Any, topic: str = "Ship the annual report") -> Brief:
    made, _note = services.brief_start(actor=actor, topic=topic, api_key_id=None)
    return made


def goal(
    actor: Any, *, objective: str = "Ship the annual report", tasks: int = 2, days: int = 7, **fields: Any
) -> Goal:
    started = brief(actor, objective)
    answers = [(number, f"answer {number}") for number in range(1, len(started.rounds) + 1)]
    given = {
        "objective": objective,
        "success_criteria": ["the report is out"],
        "deadline": (timezone.now() + timedelta(days=days)).isoformat(),
        "time_zone": "Europe/Berlin",
        "tasks": [{"title": f"{objective} step {n + 1}", "estimate_minutes": 60} for n in range(tasks)],
        **fields,
    }
    made = services.brief_answer(actor=actor, brief=started, answers=answers, goal=given)
    assert made is not None
    return made


def proposal(actor: Any, made: Goal | None = None) -> ScheduleProposal:
    return services.propose(actor=actor, goal=made or goal(actor))


def _checked(actor: Any) -> GovernanceCheck:
    return services.governance_check(
        actor=actor, proposal=proposal(actor), invite=[], external_approved=False, spend_approved=False
    )


def _tested(actor: Any) -> PlanTest:
    test, _new = services.test_start(actor=actor, proposal=proposal(actor), enqueue=lambda *_: None)
    return test


@access_rows("assistant.Goal")
def _goals(people: dict[str, Any]) -> AccessRows:
    return AccessRows(
        own={"member": [goal(people["member"], tasks=1)], "owner": [goal(people["owner"], tasks=1)]},
        listed=lambda person: listed(person, "paListGoals", {"limit": 100}),
    )


@access_rows("assistant.Brief")
def _briefs(people: dict[str, Any]) -> AccessRows:
    return AccessRows(own={"member": [brief(people["member"])], "owner": [brief(people["owner"])]})


@access_rows("assistant.GoalTask")
def _goal_tasks(people: dict[str, Any]) -> AccessRows:
    return AccessRows(
        own={
            "member": [GoalTask.objects.filter(goal=goal(people["member"], tasks=1)).get()],
            "owner": [GoalTask.objects.filter(goal=goal(people["owner"], tasks=1)).get()],
        }
    )


@access_rows("assistant.ScheduleProposal")
def _proposals(people: dict[str, Any]) -> AccessRows:
    return AccessRows(own={"member": [proposal(people["member"])], "owner": [proposal(people["owner"])]})


@access_rows("assistant.GovernanceCheck")
def _checks(people: dict[str, Any]) -> AccessRows:
    return AccessRows(own={"member": [_checked(people["member"])], "owner": [_checked(people["owner"])]})


@access_rows("assistant.PlanTest")
def _tests(people: dict[str, Any]) -> AccessRows:
    return AccessRows(own={"member": [_tested(people["member"])], "owner": [_tested(people["owner"])]})


@factories.privacy_rows("assistant")
def _private(people: dict[str, Any], marker: str, rows: factories.PrivateRows) -> None:
    """The owner's goal, its brief, tasks, proposal, check and test: the marker in every text."""
    owner = people["owner"]
    made = goal(owner, objective=f"{marker} objective", success_criteria=[f"{marker} criterion"])
    planned = proposal(owner, made)
    services.governance_check(
        actor=owner, proposal=planned, invite=[], external_approved=False, spend_approved=False
    )
    test, _new = services.test_start(actor=owner, proposal=planned, enqueue=lambda *_: None)
    rows.add("goalId", record=made)
    rows.add("briefId", record=made.brief)
    rows.add("proposalId", record=planned)
    rows.add("testId", record=test)
