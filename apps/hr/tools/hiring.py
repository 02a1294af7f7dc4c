"""Hiring (an applicant tracking system): pipelines, candidates, stage moves, search, links."""

from datetime import datetime
from typing import Annotated, Any

from django.db.models import Count
from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.kit import open_tool
from apps.catalogue.registry import Marker, tool
from apps.catalogue.shapes import (
    Changes,
    From,
    Limit,
    Offset,
    Out,
    Page,
    PersonRef,
    id_field,
    page_of,
    paginate,
)
from apps.hr.models import Candidate, HiringPipeline
from apps.hr.permissions import HrPerm
from apps.hr.services import hiring as services

PipelineId = Annotated[int, id_field("getHiringPipelineOverview")]
CandidateId = Annotated[int, id_field("searchHiringCandidates")]
StageId = Annotated[int, id_field("getHiringPipelineOverview")]


def _candidate(
    ctx: ToolContext, candidate_id: int, action: Any = "view", *, trash: bool = False
) -> Candidate:
    return Candidate.objects.select_related("pipeline", "stage").fetch(
        ctx.actor, candidate_id, action, trash=trash
    )


class StageOut(Out):
    id: int
    name: str
    decision: bool


class PipelineOut(Out):
    id: int
    name: str
    location: str
    stages: list[StageOut]


@tool("createHiringPipeline", permission=HrPerm.HIRING, title="Create a hiring pipeline")
def create_hiring_pipeline(
    ctx: ToolContext,
    *,
    name: Annotated[str, Field(min_length=1, max_length=120, description="Unique; e.g. the job")],
    stages: Annotated[
        list[Annotated[str, Field(max_length=80)]], Field(min_length=2, max_length=20, description="In order")
    ],
    decision_stages: Annotated[
        list[Annotated[str, Field(max_length=80)]], Field(max_length=20, description="Default: last stage")
    ] = [],  # noqa: B006
    location: Annotated[str, Field(max_length=200, description="Where the job is")] = "",
) -> PipelineOut:
    """Make a hiring pipeline for a job: ordered stages, and which are hiring decisions."""
    pipeline = services.pipeline_create(
        actor=ctx.actor, name=name, stages=stages, decision_stages=decision_stages or None, location=location
    )
    return PipelineOut.of_record(pipeline)


class CandidateRef(Out):
    id: int
    name: str


class ColumnOut(Out):
    stage: StageOut
    count: int
    candidates: list[CandidateRef] = Field(description="First 20")


class BoardOut(Out):
    id: int
    name: str
    columns: list[ColumnOut]


class OverviewOut(Out):
    pipelines: list[BoardOut]


@tool("getHiringPipelineOverview", permission=HrPerm.HIRING, title="Hiring pipeline overview", read_only=True)
def get_hiring_pipeline_overview(
    ctx: ToolContext,
    *,
    pipeline_id: Annotated[int | None, id_field("getHiringPipelineOverview", description="Only this")] = None,
) -> OverviewOut:
    """The hiring board: each pipeline's stages (with ids) and the candidates on them."""
    pipelines = HiringPipeline.objects.restrict(ctx.actor).prefetch_related("stages")
    if pipeline_id:
        pipelines = pipelines.filter(pk=HiringPipeline.objects.fetch(ctx.actor, pipeline_id).pk)
    live = Candidate.objects.restrict(ctx.actor)
    counts = dict(live.values_list("stage").annotate(n=Count("id")).values_list("stage", "n"))
    boards = []
    for pipeline in pipelines.order_by("name", "id")[:50]:
        columns = [
            ColumnOut(
                stage=StageOut.of_record(stage),
                count=counts.get(stage.pk, 0),
                candidates=[
                    CandidateRef.of_record(c) for c in live.filter(stage=stage).order_by("name", "id")[:20]
                ],
            )
            for stage in pipeline.stages.all()
        ]
        boards.append(BoardOut(id=pipeline.pk, name=pipeline.name, columns=columns))
    return OverviewOut(pipelines=boards)


class CandidateSummary(Out):
    id: int
    name: str
    email: str
    phone: str
    source: str
    pipeline: Annotated[str, From("pipeline.name")]
    stage: StageOut
    consent: bool
    cv_name: str
    duplicate_of: Annotated[int | None, From("duplicate_of_id")]
    anonymised_at: datetime | None

    @classmethod
    def of(cls, candidate: Candidate) -> "CandidateSummary":
        return cls.of_record(candidate)


class LookAlike(Out):
    id: int
    name: str
    why: str


class CreatedCandidateOut(Out):
    candidate: CandidateSummary
    possible_duplicates: list[LookAlike]


Text200 = Annotated[str, Field(max_length=200)]


@tool("createHiringCandidate", permission=HrPerm.HIRING, title="Add a hiring candidate")
def create_hiring_candidate(
    ctx: ToolContext,
    *,
    pipeline_id: PipelineId,
    name: Annotated[str, Field(min_length=1, max_length=200, description="Full name")],
    email: Annotated[str, Field(max_length=254, description="Or phone")] = "",
    phone: Annotated[str, Field(max_length=40, description="Or email")] = "",
    source: Annotated[str, Field(max_length=100, description="referral, job board...")] = "",
    consent: Annotated[bool, Field(description="Agreed to be kept past retention")] = False,
    cv_file_id: Annotated[int | None, id_field("listFiles", description="CV in Files")] = None,
) -> CreatedCandidateOut:
    """Add a candidate to a pipeline's first stage, with CV and source; flags duplicates."""
    pipeline = HiringPipeline.objects.fetch(ctx.actor, pipeline_id)
    fields = {"name": name, "email": email, "phone": phone, "source": source, "consent": consent}
    if cv_file_id:
        fields["cv_file_id"] = cv_file_id
    candidate, looks = services.candidate_create(actor=ctx.actor, pipeline=pipeline, fields=fields)
    return CreatedCandidateOut(
        candidate=CandidateSummary.of(candidate),
        possible_duplicates=[LookAlike(id=c.pk, name=c.name, why=why) for c, why in looks],
    )


class MoveOut(Out):
    at: datetime
    from_stage: str | None
    to_stage: str
    by: PersonRef | None
    basis: str


class CandidateOut(CandidateSummary):
    notes: str
    history: list[MoveOut]
    cv_text: str | None = Field(description="With withCv")


def _history(candidate: Candidate) -> list[MoveOut]:
    rows = candidate.history.select_related("from_stage", "to_stage", "by")
    return [
        MoveOut(
            at=c.at,
            from_stage=c.from_stage.name if c.from_stage else None,
            to_stage=c.to_stage.name,
            by=PersonRef.of(c.by),
            basis=c.basis,
        )
        for c in rows
    ]


@tool("getHiringCandidate", permission=HrPerm.HIRING, title="Get a hiring candidate", read_only=True)
def get_hiring_candidate(
    ctx: ToolContext,
    *,
    candidate_id: CandidateId,
    with_cv: Annotated[bool, Field(description="Add the CV's text")] = False,
) -> CandidateOut:
    """Read a candidate: contact, source, consent, stage history and, if asked, CV text."""
    candidate = _candidate(ctx, candidate_id)
    return CandidateOut.of_record(
        candidate,
        history=_history(candidate),
        cv_text=candidate.cv_text if with_cv else None,
    )


class CandidateChanges(Changes):
    name: Annotated[str, Field(min_length=1, max_length=200)] = ""
    email: Annotated[str, Field(max_length=254)] = ""
    phone: Annotated[str, Field(max_length=40)] = ""
    source: Annotated[str, Field(max_length=100)] = ""
    notes: Annotated[str, Field(max_length=10_000)] = ""
    consent: bool = False
    cv_file_id: Annotated[int, id_field("listFiles")] = 0


class UpdatedCandidateOut(Out):
    candidate: CandidateSummary
    changed: list[str]


@tool("updateHiringCandidate", permission=HrPerm.HIRING, title="Update a hiring candidate")
def update_hiring_candidate(
    ctx: ToolContext,
    *,
    candidate_id: CandidateId,
    changes: Annotated[CandidateChanges, Field(description="Only the fields to change")],
) -> UpdatedCandidateOut:
    """Change a candidate's contact, source, notes, consent or CV. Stage: moveHiringCandidateStage."""
    given = changes.given(required=True)
    candidate = _candidate(ctx, candidate_id, "change")
    changed = services.candidate_update(actor=ctx.actor, candidate=candidate, fields=given)
    return UpdatedCandidateOut(candidate=CandidateSummary.of(_candidate(ctx, candidate_id)), changed=changed)


@tool("listHiringCandidates", permission=HrPerm.HIRING, title="List hiring candidates", read_only=True)
def list_hiring_candidates(
    ctx: ToolContext,
    *,
    pipeline_id: Annotated[int | None, id_field("getHiringPipelineOverview", description="Only this")] = None,
    stage_id: Annotated[int | None, id_field("getHiringPipelineOverview", description="Only this")] = None,
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[CandidateSummary]:
    """List candidates by name, on a pipeline or stage. By words or skills: searchHiringCandidates."""
    rows = Candidate.objects.restrict(ctx.actor).select_related("pipeline", "stage")
    if pipeline_id:
        rows = rows.filter(pipeline=HiringPipeline.objects.fetch(ctx.actor, pipeline_id))
    if stage_id:
        rows = rows.filter(stage=services.stage_of(actor=ctx.actor, stage_id=stage_id))
    return paginate(rows.order_by("name", "id"), limit=limit, offset=offset, item=CandidateSummary.of)


class RankedOut(CandidateSummary):
    score: int


class SearchOut(Page[RankedOut]):
    advice: str


@tool("searchHiringCandidates", permission=HrPerm.HIRING, title="Search hiring candidates", read_only=True)
def search_hiring_candidates(
    ctx: ToolContext,
    *,
    query: Annotated[str, Field(min_length=1, max_length=200, description="Words: skills, name, source")],
    pipeline_id: Annotated[int | None, id_field("getHiringPipelineOverview", description="Only this")] = None,
    limit: Limit = 25,
    offset: Offset = 0,
) -> SearchOut:
    """Find candidates by words in name, notes or CV, ranked by matches (advice; logged)."""
    pipeline = HiringPipeline.objects.fetch(ctx.actor, pipeline_id) if pipeline_id else None
    scored, advice = services.candidates_ranked(actor=ctx.actor, query=query, pipeline=pipeline)
    window = scored[offset : offset + limit]
    items = [RankedOut.of_record(c, score=s) for c, s in window]
    found = page_of(items, total=len(scored), limit=limit, offset=offset)
    return SearchOut(
        **found.model_dump(by_alias=False),
        advice=f"Ranking {advice.pk} is advice, logged; a person decides every move.",
    )


@tool("moveHiringCandidateStage", permission=HrPerm.HIRING, title="Move a candidate to a stage")
def move_hiring_candidate_stage(
    ctx: ToolContext,
    *,
    candidate_id: CandidateId,
    stage_id: StageId,
    basis: Annotated[str, Field(max_length=1000, description="A person's reason; needed at decisions")] = "",
) -> CandidateOut:
    """Move a candidate to a stage of their pipeline; decisions need the person's basis."""
    candidate = _candidate(ctx, candidate_id, "change")
    stage = services.stage_of(actor=ctx.actor, stage_id=stage_id)
    services.candidate_move(actor=ctx.actor, candidate=candidate, stage=stage, basis=basis)
    candidate = _candidate(ctx, candidate_id)
    return CandidateOut.of_record(
        candidate,
        history=_history(candidate),
        cv_text=None,
    )


class DeletedCandidateOut(Out):
    candidate_id: int
    deleted: bool = True
    stage_changes: int = Field(description="Stage history entries deleted with them")
    cv_files: int = Field(description="CV files erased from Files")


def _deletable(ctx: ToolContext, *, candidate_id: int) -> bool:
    """deleteHiringCandidate's confirmation, asked once the candidate is known to be deletable."""
    services.delete_check(_candidate(ctx, candidate_id, "delete", trash=True))
    return True


@tool(
    "deleteHiringCandidate",
    permission=HrPerm.HIRING,
    title="Delete a hiring candidate",
    markers=Marker.DESTRUCTIVE,
    confirm_if=_deletable,
)
def delete_hiring_candidate(ctx: ToolContext, *, candidate_id: CandidateId) -> DeletedCandidateOut:
    """Delete a candidate for good with their CV file, notes and stage history (erasure, retention).

    Refused during an open offer or onboarding. To change a candidate instead: updateHiringCandidate."""
    candidate = _candidate(ctx, candidate_id, "delete", trash=True)
    gone = services.candidate_delete(actor=ctx.actor, candidate=candidate)
    return DeletedCandidateOut(
        candidate_id=candidate_id, stage_changes=gone["stage_changes"], cv_files=gone["cv_files"]
    )


open_tool(
    "openHiringCandidate",
    permission=HrPerm.HIRING,
    title="Open a hiring candidate",
    description="A link to a candidate's page in the workspace's Hiring settings, to open in a browser.",
    page="hr:candidate",
    id_argument=("candidate_id", CandidateId),
    fetch=lambda actor, candidate_id: Candidate.objects.fetch(actor, candidate_id),
    named=lambda candidate: candidate.name,
)
