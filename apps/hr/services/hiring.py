"""Hiring pipelines, candidates and their stage moves (apps.hr.models.hiring).

Duplicates: a candidate with the e-mail address of one already on the same pipeline is refused;
one whose address, phone number or name (difflib ratio >= 0.9, accents and case aside) matches a
candidate elsewhere is made and marked `duplicate_of` it, and the answer names the matches."""

import difflib
import logging
import re
import unicodedata
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.accounts.models import person
from apps.core import clean, pipelines, records
from apps.core.actors import Actor, actor_id, require
from apps.core.errors import AppError, invalid
from apps.core.origin import current
from apps.hr.errors import (
    AddressOfAnotherCandidate,
    CandidateAnonymised,
    CandidateInOffer,
    CandidateOnboarding,
    DecisionNeedsBasis,
    DuplicateCandidate,
)
from apps.hr.models import (
    Candidate,
    HiringAdvice,
    HiringPipeline,
    HiringStage,
    OnboardingChecklist,
    StageChange,
)
from apps.hr.permissions import HrPerm

logger = logging.getLogger(__name__)
NAME_SIMILARITY = 0.9
CV_TEXT_MAX = 200_000


# --- pipelines ------------------------------------------------------------------------------------


@transaction.atomic
def pipeline_create(
    *,
    actor: Actor,
    name: str,
    stages: list[str],
    decision_stages: list[str] | None = None,
    description: str = "",
    location: str = "",
) -> HiringPipeline:
    """A pipeline of ordered stages; `decision_stages` (default: the last) record hiring decisions."""
    require(actor, HrPerm.HIRING)
    names = [stage["name"] for stage in pipelines.stage_list([{"name": stage} for stage in stages], least=2)]
    lowered = [stage.lower() for stage in names]
    decisions = {d.strip().lower() for d in (decision_stages or [names[-1]])}
    unknown = decisions - set(lowered)
    if unknown:
        raise invalid("decisionStages", _("{stage!r} is not one of the stages"), stage=sorted(unknown)[0])
    if lowered[0] in decisions:
        raise invalid("decisionStages", _("the first stage is where candidates arrive, not a decision"))
    return pipelines.create(
        HiringPipeline,
        actor=actor,
        name=name,
        stages=[{"name": stage, "decision": stage.lower() in decisions} for stage in names],
        least=2,
        description=description,
        location=clean.text(location, field="location", limit=200),
    )


def stage_of(*, actor: Actor, stage_id: int) -> HiringStage:
    stage: HiringStage = pipelines.stage_of(HiringPipeline, actor=actor, stage_id=stage_id)
    return stage


# --- candidates -----------------------------------------------------------------------------------


def _folded(name: str) -> str:
    decomposed = unicodedata.normalize("NFKD", name)
    return " ".join("".join(c for c in decomposed if not unicodedata.combining(c)).casefold().split())


def _digits(phone: str) -> str:
    return re.sub(r"\D", "", phone or "")


def duplicates_of(candidate: Candidate) -> list[tuple[Candidate, str]]:
    """Live, not anonymised candidates that look like the same person: (candidate, why)."""
    others = Candidate.objects.filter(deleted_at__isnull=True, anonymised_at__isnull=True).exclude(
        pk=candidate.pk
    )
    found: dict[int, tuple[Candidate, str]] = {}
    if candidate.email:
        for other in others.filter(email__iexact=candidate.email):
            found[other.pk] = (other, "same e-mail")
    digits = _digits(candidate.phone)
    if len(digits) >= 7:
        for other in others.exclude(phone="").exclude(pk__in=found):
            if _digits(other.phone)[-9:] == digits[-9:]:
                found[other.pk] = (other, "same phone")
    name = _folded(candidate.name)
    first = name.split(" ")[0] if name else ""
    for other in others.filter(name__icontains=first[:3]).exclude(pk__in=found)[:500] if first else []:
        if difflib.SequenceMatcher(None, name, _folded(other.name)).ratio() >= NAME_SIMILARITY:
            found[other.pk] = (other, "similar name")
    return sorted(found.values(), key=lambda pair: pair[0].pk)


def _cv(actor: Actor, file_id: int) -> tuple[str, str]:
    """(file name, extracted text) of a CV in the Files area."""
    from apps.files import api as files

    file = files.file(actor=actor, file_id=file_id)
    try:
        text = files.file_text(file)
    except AppError as error:
        raise invalid(
            "cvFileId",
            _("file {file_id} ({name}) has no text to read: {message}"),
            file_id=file_id,
            name=file.name,
            message=error.message,
        ) from None
    if not text.strip():
        raise invalid(
            "cvFileId",
            _(
                "file {file_id} ({name}) has no text in it (a scan or an empty file): give a CV whose "
                "words can be read"
            ),
            file_id=file_id,
            name=file.name,
        )
    return file.name[:255], text[:CV_TEXT_MAX]


def _apply(actor: Actor, candidate: Candidate, fields: dict[str, Any], creating: bool) -> None:
    if "name" in fields:
        candidate.name = clean.text(fields["name"], field="name", limit=200, required=True)
    if "email" in fields:
        candidate.email = clean.email(clean.text(fields["email"], field="email", limit=254))
    if "phone" in fields:
        phone = clean.text(fields["phone"], field="phone", limit=40)
        if phone and not re.fullmatch(r"[+()\d\s./-]{5,40}", phone):
            raise invalid("phone", _("{phone!r} is not a phone number"), phone=phone)
        candidate.phone = phone
    if "source" in fields:
        candidate.source = clean.text(fields["source"], field="source", limit=100)
    if "notes" in fields:
        candidate.notes = clean.long_text(fields["notes"], field="notes", limit=10_000)
    if "consent" in fields and fields["consent"] is not None and bool(fields["consent"]) != candidate.consent:
        candidate.consent = bool(fields["consent"])
        candidate.consent_at = timezone.now() if candidate.consent else None
    if fields.get("cv_file_id"):
        candidate.cv_name, candidate.cv_text = _cv(actor, fields["cv_file_id"])
        candidate.cv_file_id = fields["cv_file_id"]
    if not candidate.email and not candidate.phone:
        raise invalid("email", _("give an e-mail address or a phone number to reach the candidate"))
    candidate.last_activity_at = timezone.now()


@transaction.atomic
def candidate_create(
    *, actor: Actor, pipeline: HiringPipeline, fields: dict[str, Any], stage: HiringStage | None = None
) -> tuple[Candidate, list[tuple[Candidate, str]]]:
    """A candidate on `pipeline` (its first stage unless `stage`), and the look-alikes found."""
    require(actor, HrPerm.HIRING)
    stage = stage or pipelines.first_stage(pipeline)
    if stage is None or stage.pipeline_id != pipeline.pk:
        raise invalid(
            "stageId",
            _("stage {stage} is not a stage of pipeline {name!r}"),
            stage=getattr(stage, "pk", "?"),
            name=pipeline.name,
        )
    if stage.decision:
        raise invalid(
            "stageId",
            _("{name!r} is a decision stage: add the candidate, then move them there"),
            name=stage.name,
        )
    email = (fields.get("email") or "").strip()
    if email:
        same = Candidate.objects.filter(
            pipeline=pipeline, email__iexact=email, deleted_at__isnull=True
        ).first()
        if same is not None:
            raise DuplicateCandidate(
                candidate=same.pk, pipeline=pipeline.name, email=email, details={"email": ["duplicate"]}
            )
    candidate = records.create(
        Candidate,
        actor=actor,
        permission=HrPerm.HIRING,
        fields=fields,
        apply=_apply,
        pipeline=pipeline,
        stage=stage,
    )
    StageChange.objects.create(candidate=candidate, to_stage=stage, by=person(actor), origin=_origin())
    looks = duplicates_of(candidate)
    if looks:
        candidate.duplicate_of = looks[0][0]
        candidate.save(update_fields=["duplicate_of"])
    return candidate, looks


def _live(candidate: Candidate) -> None:
    if candidate.anonymised_at is not None:
        raise CandidateAnonymised(
            candidate=candidate.pk,
            anonymised=candidate.anonymised_at,
            details={"candidateId": ["anonymised"]},
        )


@transaction.atomic
def candidate_update(*, actor: Actor, candidate: Candidate, fields: dict[str, Any]) -> list[str]:
    candidate = Candidate.objects.fetch(actor, candidate.pk, "change", lock=True)
    _live(candidate)
    email = (fields.get("email") or "").strip()
    if email and email.lower() != candidate.email:
        same = (
            Candidate.objects.filter(
                pipeline=candidate.pipeline, email__iexact=email, deleted_at__isnull=True
            )
            .exclude(pk=candidate.pk)
            .first()
        )
        if same is not None:
            raise AddressOfAnotherCandidate(candidate=same.pk, email=email, details={"email": ["duplicate"]})
    names = ["name", "email", "phone", "source", "notes", "consent", "cv_file_id", "cv_name", "cv_text"]
    return records.update(
        candidate, actor=actor, permission=HrPerm.HIRING, fields=fields, apply=_apply, names=names
    )


def _origin() -> str:
    origin = current()
    return f"{origin.door}:{origin.tool}"[:200] if origin else ""


@transaction.atomic
def candidate_move(*, actor: Actor, candidate: Candidate, stage: HiringStage, basis: str = "") -> StageChange:
    """Moves a candidate to a stage of their own pipeline. A decision stage is a person's hiring
    decision: `basis` (why) is required and kept with who decided."""
    require(actor, HrPerm.HIRING)
    candidate = Candidate.objects.select_related("pipeline", "stage").fetch(
        actor, candidate.pk, "change", lock=True
    )
    _live(candidate)
    pipelines.on_pipeline(
        stage, candidate.pipeline, what=_("candidate {candidate}").format(candidate=candidate.pk)
    )
    if stage.pk == candidate.stage_id:
        raise invalid(
            "stageId",
            _("candidate {candidate} is on {name!r} already"),
            candidate=candidate.pk,
            name=stage.name,
        )
    basis = clean.text(basis, field="basis", limit=1000)
    if stage.decision and not basis:
        raise DecisionNeedsBasis(stage=stage.name, details={"basis": ["required for a decision stage"]})
    change = StageChange.objects.create(
        candidate=candidate,
        from_stage=candidate.stage,
        to_stage=stage,
        by=person(actor),
        basis=basis,
        origin=_origin(),
    )
    candidate.stage = stage
    candidate.last_activity_at = timezone.now()
    candidate.save(update_fields=["stage", "last_activity_at", "updated_at"])
    logger.info("candidate %s moved to stage %s by %s", candidate.pk, stage.pk, actor_id(actor))
    return change


# --- ranking (advice) -----------------------------------------------------------------------------

RANKING_METHOD = "words of the request found in name, source, notes and CV text; CV words count once each"


def candidates_ranked(
    *, actor: Actor, query: str, pipeline: HiringPipeline | None = None
) -> tuple[list[tuple[Candidate, int]], HiringAdvice]:
    """Candidates matching every word of `query`, best first by how often the words occur: a
    ranking for a person to weigh, never a decision; logged as HiringAdvice."""
    from apps.core import search

    require(actor, HrPerm.HIRING)
    words = search.words(query)
    if not words:
        raise invalid("query", _("give at least one word to look for"))
    rows = Candidate.objects.restrict(actor).filter(anonymised_at__isnull=True)
    if pipeline is not None:
        rows = rows.filter(pipeline=pipeline)
    rows = search.matching(rows, query, ("name", "email", "source", "notes", "cv_text"))
    scored = []
    for candidate in rows.select_related("stage", "pipeline")[:500]:
        haystack = " ".join((candidate.name, candidate.source, candidate.notes, candidate.cv_text)).casefold()
        scored.append((candidate, sum(min(haystack.count(word.casefold()), 5) for word in words)))
    scored.sort(key=lambda pair: (-pair[1], pair[0].name, pair[0].pk))
    advice = HiringAdvice.objects.create(
        asked_by=person(actor),
        query=query[:200],
        pipeline=pipeline,
        ranking=[{"candidate": c.pk, "score": s} for c, s in scored[:200]],
        method=RANKING_METHOD[:200],
    )
    return scored, advice


# --- deleting --------------------------------------------------------------------------------------


def delete_check(candidate: Candidate) -> None:
    """Refuses to delete a candidate with an open offer (at a decision stage before the pipeline's
    last: offered, not yet concluded) or being onboarded (an employee with their address and an
    onboarding checklist not completed)."""
    stage = candidate.stage
    last = candidate.pipeline.stages.order_by("-position").values_list("pk", flat=True).first()
    if stage.decision and stage.pk != last:
        raise CandidateInOffer(candidate=candidate.pk, stage=stage.name)
    address = candidate.email.strip()
    if address and (
        OnboardingChecklist.objects.filter(completed_at__isnull=True, deleted_at__isnull=True)
        .filter(Q(employee__email__iexact=address) | Q(employee__user__email__iexact=address))
        .exists()
    ):
        raise CandidateOnboarding(candidate=candidate.pk)


@transaction.atomic
def candidate_delete(*, actor: Actor, candidate: Candidate) -> dict[str, int]:
    """Deletes a candidate for good with their personal data: their CV file (erased from the Files
    area), notes and CV text, and their stage history. The rankings that listed them keep only
    their id. Returns what went: {"stageChanges": n, "cvFiles": n}."""
    from apps.files import api as files

    require(actor, HrPerm.HIRING)
    candidate = (
        Candidate.objects.select_for_update(of=("self",))
        .select_related("stage", "pipeline")
        .get(pk=candidate.pk)
    )
    delete_check(candidate)
    cv, pk = candidate.cv_file_id, candidate.pk
    moves = StageChange.objects.filter(candidate=candidate).count()
    candidate.delete()  # its stage changes go with it (CASCADE); duplicates of it are unmarked
    if cv:
        files.erase([cv])
    logger.info("candidate %s deleted by %s", pk, actor_id(actor))
    return {"stage_changes": moves, "cv_files": 1 if cv else 0}


# --- retention ------------------------------------------------------------------------------------


def anonymise(candidate: Candidate) -> None:
    """Removes what identifies a candidate (and their CV file); stage history stays, without it."""
    from apps.files import api as files

    cv = candidate.cv_file_id
    Candidate.objects.filter(pk=candidate.pk).update(
        name=f"Anonymised candidate {candidate.pk}",
        email="",
        phone="",
        notes="",
        cv_file_id=None,
        cv_name="",
        cv_text="",
        duplicate_of=None,
        anonymised_at=timezone.now(),
    )
    if cv:
        files.erase([cv])


def anonymise_expired() -> int:
    """Anonymises, in the current workspace, candidates without consent whose last activity is
    older than ATRIUM_HR_CANDIDATE_RETENTION_DAYS. Returns how many."""
    cutoff = timezone.now() - timedelta(days=settings.ATRIUM_HR_CANDIDATE_RETENTION_DAYS)
    due = Candidate.objects.filter(Q(consent=False), anonymised_at__isnull=True, last_activity_at__lt=cutoff)
    count = 0
    for candidate in due.order_by("pk")[:1000]:
        with transaction.atomic():
            anonymise(candidate)
        count += 1
    if count:
        logger.info("%s candidates anonymised after the retention period", count)
    return count
