"""Held-out requests for the Personal Assistant, written from AREAS.md 2.12 and SPEC.md 4.7 before
any search hints; never used to tune (see test_search_quality.py)."""

HELD_OUT: list[tuple[str, str | tuple[str, ...]]] = [
    ("brief my personal assistant on something I want to achieve", "paStartBrief"),
    ("reply to the questions the assistant asked me", "paAnswerBrief"),
    ("show all the goals I gave my assistant", "paListGoals"),
    ("get my goal's objective and deadline", "paGetGoal"),
    ("look up articles on the web for my goal", "paResearchGoal"),
    ("which tasks belong to this goal", "paListGoalTasks"),
    ("reschedule my goal because I fell behind", "paAdjustSchedule"),
    ("put the approved plan on my calendar", "paApproveAndSchedule"),
    ("governance check of the assistant's plan", "paGovernanceCheck"),
    ("start a test of the plan", "paRunTest"),
    ("watch the plan test until it finishes", "paWatchTest"),
]
