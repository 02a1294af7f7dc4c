"""The demo workspaces' Deals Pipeline data (`manage.py seed_demo`): idempotent."""

from typing import Any

from apps.deals import demo_outreach


def seed(*, people: list[Any], domain: str) -> None:
    demo_outreach.seed(people=people, domain=domain)
