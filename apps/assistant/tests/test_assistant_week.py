"""What a week with the assistant found: a goal's budget or planned spend past the 64 bits a goal
keeps crashed the brief's answer on the server; it is now refused naming the field. Far dates, NUL
bytes and another person's goals were already answered well."""

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.assistant.models import Goal
from apps.assistant.tests.factories import brief
from apps.catalogue.testing import refused


def _answers(made) -> list[dict]:
    return [{"number": n, "answer": f"answer {n}"} for n in range(1, len(made.rounds) + 1)]


@pytest.mark.parametrize("field", ["budgetMicroUsd", "spendMicroUsd"])
def test_a_budget_past_what_is_kept_is_refused_not_a_crash(people, field):
    member = people["member"]
    started = brief(member, "Plan the offsite")
    deadline = (timezone.now() + timedelta(days=10)).isoformat()
    text = refused(
        member,
        "paAnswerBrief",
        {
            "briefId": started.pk,
            "answers": _answers(started),
            "goal": {"objective": "Plan the offsite", "deadline": deadline, field: 10**20},
        },
    )
    assert field in text
    assert not Goal.objects.filter(owner=member).exists()
