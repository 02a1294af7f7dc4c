"""Writes of the Deals Pipeline. Each checks the actor's permission and the area's rules, writes
all or nothing, keeps the deal's history (DealEvent, with the agent's tool call that made the
change: apps.core.history) and logs ids only."""

import logging
from datetime import date, datetime, time, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.accounting import api as accounting
from apps.accounts.models import person
from apps.core import clean, history, kinds, pipelines, records, recurrence, sharing
from apps.core.actors import Actor, actor_id, require
from apps.core.errors import NoExchangeRate, invalid
from apps.deals import errors
from apps.deals.models import Activity, Deal, DealEvent, Pipeline, Stage, StageVisit
from apps.deals.permissions import DealsPerm

logger = logging.getLogger(__name__)
MAX_VALUE = Decimal("99999999999999.99")


# --- small checks ---------------------------------------------------------------------------------


def money(value: Any, field: str = "value") -> Decimal:
    """An amount as agents give it (JSON: a number) as a Decimal of cents, 0 or more."""
    try:
        amount = Decimal(str(value if value is not None else 0)).quantize(Decimal("0.01"))
    except (InvalidOperation, ValueError):
        raise invalid(field, _("{value!r} is not an amount"), value=value) from None
    if amount < 0 or amount > MAX_VALUE:
        raise invalid(field, _("must be between 0 and 99,999,999,999,999.99"))
    return amount


def zone_of(user: Any) -> Any:
    """A person's time zone (their own, else the workspace's)."""
    return recurrence.zone_named(getattr(user, "time_zone", "") or None)


def record_event(deal: Deal, *, actor: Actor | None, kind: str, **told: Any) -> DealEvent:
    """Keeps what happened in the deal's history (`summary`, `changes`), with the agent's tool call
    that did it (apps.core.history)."""
    return history.record(DealEvent, actor=actor, deal=deal, kind=kind, **told)


# --- pipelines and stages -------------------------------------------------------------------------


def _stage_fields(value: dict[str, Any], *, field: str) -> dict[str, Any]:
    name = pipelines.stage_name(value.get("name"), field=field)
    probability = value.get("probability", 0)
    if probability is None or not 0 <= int(probability) <= 100:
        raise invalid(field, _("win probability of {name!r} must be 0 to 100"), name=name)
    rotting = value.get("rotting_days")
    if rotting is not None and not 1 <= int(rotting) <= 3650:
        raise invalid(field, _("rotting days of {name!r} must be 1 to 3650, or null for never"), name=name)
    return {"name": name, "probability": int(probability), "rotting_days": rotting}


def pipeline_create(
    *, actor: Actor, name: str, stages: list[dict[str, Any]], description: str = "", currency: str = "EUR"
) -> Pipeline:
    require(actor, DealsPerm.PIPELINES)
    return pipelines.create(
        Pipeline,
        actor=actor,
        name=name,
        stages=[_stage_fields(stage, field="stages") for stage in stages],
        description=description,
        currency=clean.currency(currency),
    )


def stage_of(*, actor: Actor, stage_id: int, pipeline: Pipeline | None = None) -> Stage:
    """A stage of a live pipeline the actor sees (of `pipeline` when given)."""
    stage: Stage = pipelines.stage_of(Pipeline, actor=actor, stage_id=stage_id, pipeline=pipeline)
    return stage


@transaction.atomic
def pipeline_manage(*, actor: Actor, pipeline_id: int, action: str, **given: Any) -> tuple[Pipeline, str]:
    """One change to a pipeline (`action`), and a sentence saying what it did."""
    require(actor, DealsPerm.PIPELINES)
    pipeline = Pipeline.objects.fetch(actor, pipeline_id, "change", trash=action == "restore", lock=True)
    if action == "rename":
        pipelines.rename(pipeline, name=given.get("name"), description=given.get("description"))
        return pipeline, f"Pipeline {pipeline.pk} is now {pipeline.name!r}."
    if action == "archive":
        if pipeline.deals.filter(status=Deal.Status.OPEN, deleted_at__isnull=True).exists():
            raise errors.PipelineInUse(pipeline=pipeline.name)
        pipeline.trash(actor)
        return pipeline, f"Pipeline {pipeline.name!r} archived; restore it with action restore."
    if action == "restore":
        pipelines.restore(pipeline)
        return pipeline, f"Pipeline {pipeline.name!r} restored."
    if pipeline.in_trash:
        raise Pipeline.access.in_trash(Pipeline, pipeline.pk)
    if action == "add_stage":
        new = pipelines.add_stage(pipeline, _stage_fields(given.get("stage") or {}, field="stage"))
        return pipeline, f"Stage {new.name!r} ({new.pk}) added last; action reorder moves it."
    if action == "reorder":
        pipelines.reorder(pipeline, list(given.get("stage_ids") or []))
        return pipeline, "Stages reordered."
    stage = stage_of(actor=actor, stage_id=given.get("stage_id") or 0, pipeline=pipeline)
    if action == "update_stage":
        current = {"name": stage.name, "probability": stage.probability, "rotting_days": stage.rotting_days}
        pipelines.update_stage(stage, _stage_fields(current | (given.get("stage") or {}), field="stage"))
        return pipeline, f"Stage {stage.pk} updated."
    if action == "remove_stage":

        def move_deals() -> None:
            on_it = Deal.objects.filter(stage=stage)
            if not on_it.exists():
                return
            target_id = given.get("move_to_stage_id")
            if not target_id:
                raise errors.StageInUse(stage=stage.name, count=on_it.count())
            target = stage_of(actor=actor, stage_id=target_id, pipeline=pipeline)
            if target.pk == stage.pk:
                raise invalid("moveToStageId", _("another stage than the one removed"))
            for deal in on_it.select_for_update():
                _move(actor, deal, target)

        pipelines.remove_stage(stage, empty=move_deals)
        return pipeline, f"Stage {stage.name!r} removed."
    raise invalid("action", _("unknown action {action!r}"), action=action)


# --- deals ----------------------------------------------------------------------------------------


def _pipeline_for(actor: Actor, pipeline_id: int | None) -> Pipeline:
    if pipeline_id:
        return Pipeline.objects.fetch(actor, pipeline_id)
    live = list(Pipeline.objects.restrict(actor)[:2])
    if len(live) != 1:
        raise invalid(
            "pipelineId",
            _("no pipeline yet: make one with createPipeline")
            if not live
            else _("several pipelines: give pipelineId (getPipelineOverview lists them)"),
        )
    return live[0]


def _party(actor: Actor, entity_type: str, entity_id: int | None) -> Any:
    if entity_id is None:
        return None
    return kinds.resolve(actor=actor, entity_type=entity_type, entity_id=entity_id).instance


def _given_rate(given: Any) -> Decimal:
    try:
        rate = Decimal(str(given)).quantize(Decimal("0.00000001"))
    except (InvalidOperation, ValueError):
        raise invalid("rate", _("{given!r} is not a number"), given=given) from None
    if not Decimal("0.00000001") <= rate <= Decimal("1000000000"):
        raise invalid("rate", _("must be more than 0 and at most 1,000,000,000"))
    return rate


def _rate(deal: Deal, given: Any) -> None:
    """The deal's rate to its pipeline's currency (apps.accounting.api.rate): 1 for the same
    currency, else the one given, kept with the day it was given."""
    deal.rate_date = timezone.localdate()
    source, target = deal.currency, deal.pipeline.currency
    if given is not None and source == target and _given_rate(given) != 1:
        raise invalid(
            "rate",
            _(
                "the deal is in {currency}, its pipeline's currency: its rate is 1 (a rate goes with "
                "another currency)"
            ),
            currency=source,
        )
    checked = _given_rate(given) if given is not None and source != target else None
    try:
        found = accounting.rate(source=source, target=target, on=deal.rate_date, given=checked, look_up=False)
    except NoExchangeRate:
        raise errors.NoDealRate(
            source=source, target=target, details={"rate": ["required for another currency"]}
        ) from None
    deal.exchange_rate = found.value


def _worker(email: str, deal: Deal | None = None) -> Any:
    """The person named by `email` to own a deal or a follow-up: one whose role may work deals,
    and who may see `deal` (a follow-up they could not see would wait on them for ever)."""
    someone = clean.able(
        clean.person_by_email(email, field="ownerEmail"), DealsPerm.MANAGE, field="ownerEmail"
    )
    if deal is not None and not Deal.objects.restrict(someone).filter(pk=deal.pk).exists():
        raise invalid(
            "ownerEmail",
            _("{email} may not see deal {deal}: share it with them first (shareDeal)"),
            email=someone.email,
            deal=deal.pk,
        )
    return someone


def _apply(actor: Actor, deal: Deal, fields: dict[str, Any], creating: bool) -> None:
    if "title" in fields:
        deal.title = clean.text(fields["title"], field="title", limit=200, required=True)
    if "value" in fields:
        deal.value = money(fields["value"])
    if "currency" in fields:
        deal.currency = clean.currency(fields["currency"])
    if creating or {"currency", "rate"} & fields.keys():
        _rate(deal, fields.get("rate"))
    if "expected_close" in fields:
        deal.expected_close = fields["expected_close"]
    if "notes" in fields:
        deal.notes = str(fields["notes"] or "")[:10000]
    if "contact_id" in fields:
        deal.contact = _party(actor, "contact", fields["contact_id"])
    if "group_account_id" in fields:
        deal.group_account = _party(actor, "group_account", fields["group_account_id"])
    if "owner_email" in fields:
        deal.owner = _worker(fields["owner_email"]) if fields["owner_email"] else None
    if "visibility" in fields:
        if fields["visibility"] not in sharing.Visibility.values:
            raise invalid("visibility", _("workspace or private"))
        deal.visibility = fields["visibility"]


def _placed(actor: Actor, pipeline_id: int | None, stage_id: int | None) -> tuple[Pipeline, Stage]:
    """Where a new deal goes: the stage given (of the pipeline given), else the pipeline's first."""
    pipeline = (
        stage_of(actor=actor, stage_id=stage_id).pipeline if stage_id else _pipeline_for(actor, pipeline_id)
    )
    if pipeline_id and pipeline.pk != pipeline_id:
        raise invalid(
            "stageId",
            _("stage {stage_id} is not a stage of pipeline {pipeline_id}"),
            stage_id=stage_id,
            pipeline_id=pipeline_id,
        )
    stage = stage_of(actor=actor, stage_id=stage_id) if stage_id else pipelines.first_stage(pipeline)
    if stage is None:
        raise invalid(
            "pipelineId",
            _("pipeline {pipeline} has no stages; add one with managePipeline"),
            pipeline=pipeline.pk,
        )
    return pipeline, stage


def deal_check(
    *, actor: Actor, pipeline_id: int | None, stage_id: int | None, fields: dict[str, Any]
) -> None:
    """Refuses what `deal_create` would refuse, writing nothing (an imported row's check)."""
    require(actor, DealsPerm.MANAGE)
    pipeline, stage = _placed(actor, pipeline_id, stage_id)
    deal = Deal(pipeline=pipeline, stage=stage, owner_id=actor_id(actor), created_by_id=actor_id(actor))
    _apply(actor, deal, fields, True)


@transaction.atomic
def deal_create(
    *, actor: Actor, pipeline_id: int | None, stage_id: int | None, fields: dict[str, Any]
) -> Deal:
    require(actor, DealsPerm.MANAGE)
    pipeline, stage = _placed(actor, pipeline_id, stage_id)
    now = timezone.now()
    deal = records.create(
        Deal,
        actor=actor,
        permission=DealsPerm.MANAGE,
        fields=fields,
        apply=_apply,
        pipeline=pipeline,
        stage=stage,
        stage_entered_at=now,
        owner_id=actor_id(actor),
    )
    StageVisit.objects.create(
        deal=deal, stage=stage, stage_name=stage.name, pipeline_name=pipeline.name, entered_at=now
    )
    record_event(
        deal,
        actor=actor,
        kind=DealEvent.Kind.CREATED,
        summary=f"Created on stage {stage.name}",
    )
    return deal


UPDATABLE = (
    "title",
    "value",
    "currency",
    "exchange_rate",
    "expected_close",
    "notes",
    "contact",
    "group_account",
    "owner",
    "visibility",
)


@transaction.atomic
def deal_update(*, actor: Actor, deal_id: int, fields: dict[str, Any]) -> tuple[Deal, list[str]]:
    """Changes a deal's fields; `status` closes it (won, or lost with `lost_reason`) or reopens it."""
    deal = Deal.objects.select_related("pipeline", "stage").fetch(actor, deal_id, "change", lock=True)
    status = fields.pop("status", None)
    reason = fields.pop("lost_reason", None)
    before = {name: getattr(deal, name) for name in UPDATABLE}
    changed = records.update(
        deal, actor=actor, permission=DealsPerm.MANAGE, fields=fields, apply=_apply, names=UPDATABLE
    )
    if changed:
        record_event(
            deal,
            actor=actor,
            kind=DealEvent.Kind.UPDATED,
            summary="Changed " + ", ".join(changed),
            changes={name: (before[name], getattr(deal, name)) for name in changed},
        )
    if status is not None and status != deal.status:
        changed.append("status")
        _set_status(actor, deal, status, reason)
    elif reason is not None and deal.status == Deal.Status.LOST:
        old = deal.lost_reason
        deal.lost_reason = clean.text(reason, field="lostReason", limit=300, required=True)
        if deal.lost_reason != old:
            deal.save(update_fields=["lost_reason", "updated_at"])
            changed.append("lost_reason")
            record_event(
                deal,
                actor=actor,
                kind=DealEvent.Kind.UPDATED,
                summary="Changed lost_reason",
                changes={"lost_reason": (old, deal.lost_reason)},
            )
    elif reason is not None:
        raise invalid("lostReason", _("only for a lost deal (status lost)"))
    return deal, changed


def _set_status(actor: Actor, deal: Deal, status: str, reason: Any) -> None:
    """Won and lost are terminal: a closed deal changes only by being reopened, which is logged."""
    old = deal.status
    if status == Deal.Status.OPEN:
        deal.status, deal.closed_at, deal.lost_reason = Deal.Status.OPEN, None, ""
        # Its time on the stage starts again: a reopened deal is not rotting from the day it closed.
        deal.stage_entered_at = timezone.now()
        kind, summary = DealEvent.Kind.REOPENED, f"Reopened (was {old})" + (f": {reason}" if reason else "")
    elif old != Deal.Status.OPEN:
        raise errors.DealFinal(deal=deal.pk, status=old)
    elif status == Deal.Status.WON:
        if reason:
            raise invalid("lostReason", _("only for a lost deal"))
        deal.status, deal.closed_at = Deal.Status.WON, timezone.now()
        kind, summary = DealEvent.Kind.WON, "Won"
    elif status == Deal.Status.LOST:
        deal.lost_reason = clean.text(reason, field="lostReason", limit=300, required=True)
        deal.status, deal.closed_at = Deal.Status.LOST, timezone.now()
        kind, summary = DealEvent.Kind.LOST, f"Lost: {deal.lost_reason}"
    else:
        raise invalid("status", _("open, won or lost"))
    deal.save()
    record_event(deal, actor=actor, kind=kind, summary=summary, changes={"status": (old, deal.status)})


def _move(actor: Actor, deal: Deal, stage: Stage) -> None:
    now = timezone.now()
    old_name = deal.stage.name
    StageVisit.objects.filter(deal=deal, left_at__isnull=True).update(left_at=now)
    StageVisit.objects.create(
        deal=deal, stage=stage, stage_name=stage.name, pipeline_name=stage.pipeline.name, entered_at=now
    )
    changes: dict[str, Any] = {"stage": (old_name, stage.name)}
    if deal.pipeline_id != stage.pipeline_id:
        target = stage.pipeline.currency
        if target != deal.pipeline.currency and deal.currency != target:
            # Its rate is to the pipeline it leaves: none is known to the one it goes to.
            raise errors.NoRateToPipeline(
                pipeline=stage.pipeline.name,
                target=target,
                deal=deal.pk,
                source=deal.currency,
                rate_to=deal.pipeline.currency,
                details={"stageId": ["another reporting currency"]},
            )
        changes["pipeline"] = (deal.pipeline.name, stage.pipeline.name)
        deal.pipeline = stage.pipeline
        if deal.currency == target:
            deal.exchange_rate = Decimal(1)
    deal.stage, deal.stage_entered_at = stage, now
    deal.save()
    record_event(
        deal,
        actor=actor,
        kind=DealEvent.Kind.MOVED,
        summary=f"{old_name} → {stage.name}",
        changes=changes,
    )


@transaction.atomic
def deal_move(*, actor: Actor, deal_id: int, stage_id: int) -> tuple[Deal, bool]:
    """Puts an open deal on a stage (of its pipeline, or another: the deal moves pipeline); the
    stage it leaves gets its left time. (deal, whether it moved)."""
    require(actor, DealsPerm.MANAGE)
    deal = Deal.objects.select_related("pipeline", "stage").fetch(actor, deal_id, "change", lock=True)
    stage = stage_of(actor=actor, stage_id=stage_id)
    if deal.status != Deal.Status.OPEN:
        raise errors.ClosedDealStays(deal=deal.pk, status=deal.status)
    if stage.pk == deal.stage_id:
        return deal, False
    _move(actor, deal, stage)
    return deal, True


@transaction.atomic
def deal_trash(*, actor: Actor, deal_id: int) -> Deal:
    require(actor, DealsPerm.MANAGE)
    deal = Deal.objects.fetch(actor, deal_id, "delete", lock=True)
    deal.trash(actor)
    record_event(deal, actor=actor, kind=DealEvent.Kind.DELETED, summary="Moved to the bin")
    logger.info("deal %s moved to the bin", deal.pk)
    return deal


@transaction.atomic
def deal_restore(*, actor: Actor, deal_id: int) -> Deal:
    require(actor, DealsPerm.MANAGE)
    deal = Deal.objects.select_related("pipeline").fetch(actor, deal_id, "delete", trash=True, lock=True)
    if not deal.in_trash:
        return deal
    if deal.pipeline.in_trash:
        raise errors.DealPipelineArchived(deal=deal.pk, pipeline=deal.pipeline.name)
    deal.untrash()
    record_event(deal, actor=actor, kind=DealEvent.Kind.RESTORED, summary="Restored from the bin")
    return deal


def after_share(actor: Actor, deal: Deal, before: tuple[str, list[tuple[int, str]]]) -> None:
    """shareDeal changed who sees the deal: kept in its history (person ids, no addresses)."""
    from apps.catalogue.kit import shared_state

    now = shared_state(deal)
    record_event(
        deal,
        actor=actor,
        kind=DealEvent.Kind.SHARED,
        summary=f"Visibility {now[0]}, shared with {len(now[1])} person(s)",
        changes={"visibility": (before[0], now[0]), "shares": (before[1], now[1])},
    )


# --- contacts and follow-ups ----------------------------------------------------------------------


@transaction.atomic
def contact_log(
    *,
    actor: Actor,
    deal_id: int,
    channel: str,
    summary: str,
    outcome: str = "",
    happened_at: datetime | None = None,
    follow_up_id: int | None = None,
) -> tuple[Activity, Activity | None]:
    """A contact with the customer on a deal (it stops the deal rotting); `follow_up_id`: the
    follow-up it answers, marked done."""
    require(actor, DealsPerm.MANAGE)
    deal = Deal.objects.fetch(actor, deal_id, "change", lock=True)
    now = timezone.now()
    when = happened_at or now
    if when.tzinfo is None:
        when = when.replace(tzinfo=zone_of(actor))
    if when > now + timedelta(minutes=5):
        raise invalid(
            "happenedAt", _("a logged contact has happened: not in the future (scheduleDealFollowUp)")
        )
    done = None
    if follow_up_id:
        done = Activity.objects.filter(deal=deal, kind=Activity.Kind.FOLLOW_UP, pk=follow_up_id).first()
        if done is None:
            raise invalid(
                "followUpId",
                _("deal {deal} has no follow-up {follow_up_id} (getDealFollowUpsDue)"),
                deal=deal.pk,
                follow_up_id=follow_up_id,
            )
    activity = Activity.objects.create(
        deal=deal,
        kind=Activity.Kind.CONTACT,
        channel=channel,
        summary=clean.text(summary, field="summary", limit=1000, required=True),
        outcome=clean.text(outcome, field="outcome", limit=300),
        happened_at=when,
        owner=person(actor),
        created_by=person(actor),
    )
    if deal.last_contact_at is None or when > deal.last_contact_at:
        deal.last_contact_at = when
        deal.save(update_fields=["last_contact_at", "updated_at"])
    record_event(
        deal,
        actor=actor,
        kind=DealEvent.Kind.CONTACT_LOGGED,
        summary=f"{channel}: {activity.summary}"[:300],
    )
    if done is not None and done.done_at is None:
        done.done_at = now
        done.save(update_fields=["done_at", "updated_at"])
        record_event(deal, actor=actor, kind=DealEvent.Kind.FOLLOW_UP_DONE, summary=done.summary[:300])
    return activity, done


def due_time(due: date | datetime, zone: Any) -> datetime:
    """A follow-up's due time: a day is its start in the owner's zone, a time without a zone is
    theirs too."""
    if isinstance(due, datetime):
        return due if due.tzinfo is not None else due.replace(tzinfo=zone)
    return datetime.combine(due, time(0, 0), tzinfo=zone)


@transaction.atomic
def follow_up_schedule(
    *,
    actor: Actor,
    deal_id: int,
    due: date | datetime,
    summary: str,
    channel: str = "call",
    owner_email: str | None = None,
) -> Activity:
    require(actor, DealsPerm.MANAGE)
    deal = Deal.objects.select_related("owner").fetch(actor, deal_id, "change", lock=True)
    if deal.status != Deal.Status.OPEN:
        raise errors.ClosedDealNeedsNoFollowUp(deal=deal.pk, status=deal.status)
    owner = _worker(owner_email, deal) if owner_email else (deal.owner or person(actor))
    zone = zone_of(owner)
    due_at = due_time(due, zone)
    if due_at.astimezone(zone).date() < timezone.now().astimezone(zone).date():
        raise invalid(
            "due", _("{day} is past in {zone}"), day=due_at.astimezone(zone).date().isoformat(), zone=zone.key
        )
    follow_up = Activity.objects.create(
        deal=deal,
        kind=Activity.Kind.FOLLOW_UP,
        channel=channel,
        summary=clean.text(summary, field="summary", limit=1000, required=True),
        owner=owner,
        due_at=due_at,
        time_zone=zone.key,
        created_by=person(actor),
    )
    record_event(
        deal,
        actor=actor,
        kind=DealEvent.Kind.FOLLOW_UP,
        summary=f"Due {due_at.astimezone(zone).isoformat()}: {follow_up.summary}"[:300],
    )
    return follow_up
