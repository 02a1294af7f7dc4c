"""The demo workspaces' deals (`manage.py seed_demo`): a sales pipeline with four stages and a
few deals on it, one with a logged call and a follow-up, one won. Made once: a second run finds
the pipeline and changes nothing."""

from datetime import timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

from apps.deals import demo_outreach, services
from apps.deals.models import Pipeline

PIPELINE = "New business"


@transaction.atomic
def seed(*, people: list[Any], domain: str) -> None:
    owner = next(person for person in people if person.role.key == "owner")
    demo_outreach.seed(people=people, domain=domain)
    if Pipeline.objects.filter(name=PIPELINE).exists():
        return
    pipeline = services.pipeline_create(
        actor=owner,
        name=PIPELINE,
        currency="EUR",
        stages=[
            {"name": "Qualified", "probability": 10, "rotting_days": 21},
            {"name": "Demo held", "probability": 30, "rotting_days": 14},
            {"name": "Proposal sent", "probability": 60, "rotting_days": 10},
            {"name": "Negotiation", "probability": 80, "rotting_days": 7},
        ],
    )
    stages = list(pipeline.stages.order_by("position"))
    today = timezone.localdate()
    deals = []
    for title, value, stage, close in (
        ("Northwind: 120 seats", 36000, stages[2], 20),
        ("Blue Harbour renewal", 18000, stages[3], 10),
        ("Kestrel Labs pilot", 6000, stages[0], 45),
        ("Larkspur expansion", 12500, stages[1], 30),
    ):
        deals.append(
            services.deal_create(
                actor=owner,
                pipeline_id=pipeline.pk,
                stage_id=stage.pk,
                fields={"title": title, "value": value, "expected_close": today + timedelta(days=close)},
            )
        )
    services.contact_log(
        actor=owner,
        deal_id=deals[0].pk,
        channel="call",
        summary="Walked the buyer through the proposal; legal review next",
        outcome="Positive",
    )
    services.follow_up_schedule(
        actor=owner, deal_id=deals[0].pk, due=today + timedelta(days=2), summary="Chase the legal review"
    )
    services.deal_update(actor=owner, deal_id=deals[3].pk, fields={"status": "won"})
