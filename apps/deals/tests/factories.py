"""Pipelines and deals for tests, made through the services as a person makes them
(apps.core.factories): `PipelineFactory(actor=people["admin"])`,
`DealFactory(actor=people["member"], pipeline=pipeline, value=1000)`."""

from typing import Any

import factory

from apps.core.factories import ServiceFactory, fake, numbered
from apps.deals import services
from apps.deals.models import Deal, Pipeline

STAGES = [
    {"name": "Qualified", "probability": 10, "rotting_days": 14},
    {"name": "Proposal", "probability": 40, "rotting_days": 10},
    {"name": "Negotiation", "probability": 70, "rotting_days": 7},
]


def _pipeline(*, actor: Any, fields: dict[str, Any]) -> Pipeline:
    return services.pipeline_create(actor=actor, **fields)


class PipelineFactory(ServiceFactory):
    class Meta:
        model = Pipeline

    name = numbered(fake.word, " pipeline ")
    stages = factory.LazyFunction(lambda: [dict(stage) for stage in STAGES])
    currency = "EUR"
    _service = staticmethod(_pipeline)


def _deal(*, actor: Any, fields: dict[str, Any]) -> Deal:
    pipeline = fields.pop("pipeline", None)
    stage = fields.pop("stage", None)
    return services.deal_create(
        actor=actor,
        pipeline_id=pipeline.pk if pipeline is not None else None,
        stage_id=stage.pk if stage is not None else None,
        fields=fields,
    )


class DealFactory(ServiceFactory):
    class Meta:
        model = Deal

    title = numbered(fake.company, " deal ")
    value = 10000
    currency = "EUR"
    _service = staticmethod(_deal)
