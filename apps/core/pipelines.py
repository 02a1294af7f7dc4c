"""Pipelines of ordered stages that an area's records move along (Deals' sales pipelines, Events'
planning pipelines, HR's hiring pipelines): the abstract models and the services every area
applies to them the same way.

An area's models name their pipeline's access, their own fields and their constraints' names:

    class HiringPipeline(Pipeline):
        access = Access(HrPerm, visibility="workspace", ...)
        location = models.CharField(_("location"), max_length=200, blank=True)

        class Meta(Pipeline.Meta):
            verbose_name = _("hiring pipeline")
            constraints = [records.name_once("hr_hiring_pipeline_name_once")]

    class HiringStage(Stage):
        pipeline = models.ForeignKey(HiringPipeline, on_delete=models.CASCADE, related_name="stages")
        decision = models.BooleanField(_("decision"), default=False)

        class Meta(Stage.Meta):
            verbose_name = _("hiring stage")
            constraints = Stage.once("hr_hiring_stage")

(`records.name_once`: one live pipeline of a name, case aside). A stage's model is found from its
pipeline's (the `stages` of a pipeline), and the tool that lists the stages from the pipeline's
access (`find_with`). The services check what a person or an agent
gives (names, counts, stages of the right pipeline) and keep the positions 1, 2, 3...; checking
the actor's permission, and what moving a record means (a deal's stage visits, a candidate's
decision), stay the area's.
"""

import logging
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

from django.db import models
from django.db.models.functions import Lower
from django.utils.translation import gettext_lazy as _

from apps.core import clean
from apps.core.actors import Actor, actor_id
from apps.core.errors import invalid
from apps.core.records import Record, unique_name

logger = logging.getLogger(__name__)
P = TypeVar("P", bound="Pipeline")
MAX_STAGES = 20
STAGE_NAME_LIMIT = 80


class Pipeline(Record):
    """A pipeline: a name (once among the live ones, case aside) and what it is for."""

    name = models.CharField(_("name"), max_length=120)
    description = models.CharField(_("description"), max_length=500, blank=True)

    class Meta:
        abstract = True
        ordering = ["name", "id"]

    def __str__(self) -> str:
        return self.name


class Stage(models.Model):
    """A stage of a pipeline (the concrete model declares `pipeline`, its foreign key with
    `related_name="stages"`), at its position, 1 first."""

    name = models.CharField(_("name"), max_length=STAGE_NAME_LIMIT)
    position = models.PositiveIntegerField(_("position"))

    class Meta:
        abstract = True
        ordering = ["pipeline", "position", "id"]
        verbose_name = _("stage")

    def __str__(self) -> str:
        return self.name

    @staticmethod
    def once(prefix: str, *, deferred: bool = False) -> list[models.BaseConstraint]:
        """The constraints `<prefix>_position_once` and `<prefix>_name_once`: each position, and
        each name (case aside), once in a pipeline. `deferred`: positions are checked at the end
        of the transaction, so stages may pass through each other while they are reordered."""
        return [
            models.UniqueConstraint(
                fields=["pipeline", "position"],
                name=f"{prefix}_position_once",
                deferrable=models.Deferrable.DEFERRED if deferred else None,
            ),
            models.UniqueConstraint("pipeline", Lower("name"), name=f"{prefix}_name_once"),
        ]


# --- reading ----------------------------------------------------------------------------------------


def stage_model(pipeline_model: type[Pipeline]) -> Any:
    """The stage model of a pipeline model (the model of its `stages`)."""
    # The abstract base has no `stages`: each concrete stage model declares the foreign key.
    return pipeline_model._meta.get_field("stages").related_model  # type: ignore[misc]


def ordered(pipeline: Pipeline) -> list[Any]:
    """The pipeline's stages, first to last."""
    return list(pipeline.stages.order_by("position", "id"))  # type: ignore[attr-defined]


def first_stage(pipeline: Pipeline) -> Any:
    """Where a record that names no stage starts: the pipeline's first stage (None: it has none)."""
    return pipeline.stages.order_by("position", "id").first()  # type: ignore[attr-defined]


def stage_of(pipeline_model: type[Pipeline], *, actor: Actor, stage_id: int, pipeline: Any = None) -> Any:
    """A stage of a pipeline the actor sees (of `pipeline` when given), with its pipeline; a
    validation failure of `stageId` naming the tool that lists the stages otherwise."""
    rows = stage_model(pipeline_model).objects.filter(
        pk=stage_id,
        pipeline__in=pipeline_model.objects.restrict(actor),
    )
    if pipeline is not None:
        rows = rows.filter(pipeline=pipeline)
    stage = rows.select_related("pipeline").first()
    if stage is None:
        if pipeline is not None:
            raise invalid(
                "stageId",
                _("no stage {stage_id} of pipeline {pipeline}; {lister} lists the stages"),
                stage_id=stage_id,
                pipeline=pipeline.pk,
                lister=_lister(pipeline_model),
            )
        raise invalid(
            "stageId",
            _("no stage {stage_id}; {lister} lists the stages"),
            stage_id=stage_id,
            lister=_lister(pipeline_model),
        )
    return stage


def on_pipeline(stage: Any, pipeline: Pipeline, *, what: str) -> None:
    """Refuses a stage of another pipeline than `pipeline`, the one `what` (a record) is on."""
    if stage.pipeline_id != pipeline.pk:
        raise invalid(
            "stageId",
            _(
                "stage {stage} ({name}) is in pipeline {its!r}, but {what} is on pipeline {pipeline!r}; "
                "pick one of that pipeline's stages ({lister} lists them)"
            ),
            stage=stage.pk,
            name=stage.name,
            its=stage.pipeline.name,
            what=what,
            pipeline=pipeline.name,
            lister=_lister(type(pipeline)),
        )


def _lister(pipeline_model: type[Pipeline]) -> str:
    return pipeline_model.access.find_with or "the pipeline overview"


# --- writing ----------------------------------------------------------------------------------------


def stage_name(value: Any, *, field: str = "stages") -> str:
    return clean.text(value, field=field, limit=STAGE_NAME_LIMIT, required=True)


def stage_list(stages: Iterable[dict[str, Any]], *, least: int = 1) -> list[dict[str, Any]]:
    """The stages of a new pipeline as given, in order (each the fields of a stage, its `name`
    at least): each name tidied and once (case aside), from `least` to MAX_STAGES of them."""
    named = [{**stage, "name": stage_name(stage.get("name"))} for stage in stages]
    if not least <= len(named) <= MAX_STAGES:
        raise invalid("stages", _("give {least} to {most} stages, in order"), least=least, most=MAX_STAGES)
    lowered = [stage["name"].lower() for stage in named]
    if len(set(lowered)) != len(lowered):
        raise invalid("stages", _("each stage once (names are compared without case)"))
    return named


def create(
    model: type[P],
    *,
    actor: Actor,
    name: Any,
    stages: Sequence[dict[str, Any]],
    description: Any = "",
    least: int = 1,
    **fields: Any,
) -> P:
    """A pipeline of `model` made by `actor` (whose permission the area checked), named `name`
    (once among the live pipelines), with the area's own `fields` (checked already) and its
    `stages` in order (`stage_list`'s rules, `least` of them at the fewest)."""
    named = stage_list(stages, least=least)
    pipeline = model(
        created_by_id=actor_id(actor),
        description=clean.text(description, field="description", limit=_limit(model, "description")),
        **fields,
    )
    pipeline.name = unique_name(pipeline, name, what="a pipeline", limit=_limit(model, "name"))
    pipeline.save()
    stages_of = stage_model(model)
    stages_of.objects.bulk_create(
        [stages_of(pipeline=pipeline, position=index, **stage) for index, stage in enumerate(named, start=1)]
    )
    logger.info("%s %s created", model._meta.model_name, pipeline.pk)
    return pipeline


def rename(pipeline: Pipeline, *, name: Any = None, description: Any = None) -> None:
    """A new name and/or description (None: left as it is)."""
    if not name and description is None:
        raise invalid("name", _("give a new name and/or description"))
    if name:
        pipeline.name = unique_name(pipeline, name, what="a pipeline", limit=_limit(type(pipeline), "name"))
    if description is not None:
        pipeline.description = clean.text(
            description, field="description", limit=_limit(type(pipeline), "description")
        )
    pipeline.save()


def restore(pipeline: Pipeline) -> None:
    """Brings an archived pipeline back (its name, if a live pipeline took it meanwhile, is refused)."""
    if pipeline.in_trash:
        pipeline.name = unique_name(
            pipeline, pipeline.name, what="a pipeline", limit=_limit(type(pipeline), "name")
        )
        pipeline.untrash(also=["name"])


def add_stage(pipeline: Pipeline, fields: dict[str, Any], *, field: str = "stage") -> Any:
    """A stage (`fields`, its name tidied already) added last."""
    stages = ordered(pipeline)
    if len(stages) >= MAX_STAGES:
        raise invalid("action", _("a pipeline has at most {most} stages"), most=MAX_STAGES)
    _name_free(stages, fields["name"], field=field)
    return stage_model(type(pipeline)).objects.create(pipeline=pipeline, position=len(stages) + 1, **fields)


def update_stage(stage: Any, fields: dict[str, Any], *, field: str = "stage") -> None:
    """Sets a stage's `fields` (its name tidied already, not another stage's)."""
    others = [other for other in ordered(stage.pipeline) if other.pk != stage.pk]
    _name_free(others, fields["name"], field=field)
    for name, value in fields.items():
        setattr(stage, name, value)
    stage.save()


def _name_free(stages: Iterable[Any], name: str, *, field: str) -> None:
    if any(stage.name.lower() == name.lower() for stage in stages):
        raise invalid(field, _("the pipeline has a stage {name!r} already"), name=name)


def reorder(pipeline: Pipeline, stage_ids: Sequence[int]) -> None:
    """Puts the stages in the order of `stage_ids`, which names each of them once."""
    stages = ordered(pipeline)
    if sorted(stage_ids) != sorted(stage.pk for stage in stages):
        raise invalid("stageIds", _("list every stage of the pipeline once, in the new order"))
    by_id = {stage.pk: stage for stage in stages}
    renumber([by_id[pk] for pk in stage_ids])


def remove_stage(stage: Any, *, empty: Callable[[], None] = lambda: None) -> None:
    """Removes a stage (a pipeline keeps one at least) and closes the gap in the positions;
    `empty()` first moves what is on the stage elsewhere (the area's records, each moved with its
    own history)."""
    others = [other for other in ordered(stage.pipeline) if other.pk != stage.pk]
    if not others:
        raise invalid("stageId", _("a pipeline keeps at least one stage"))
    empty()
    stage.delete()
    renumber(others)


def renumber(stages: Sequence[Any]) -> None:
    """Positions 1, 2, 3... in the order given (saving only the stages that move). Where positions
    may pass through each other, the model's position constraint is deferred (`Stage.once`)."""
    for position, stage in enumerate(stages, start=1):
        if stage.position != position:
            stage.position = position
            stage.save(update_fields=["position"])


def _limit(model: type[models.Model], field: str) -> int:
    return model._meta.get_field(field).max_length or 0  # type: ignore[union-attr]
