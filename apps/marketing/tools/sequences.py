"""Marketing's e-mail sequences: steps with delays and conditions, activation, enrolment and a step
the model writes. Thin doors onto apps.marketing.sequences."""

from datetime import datetime
from typing import Annotated, Any, Literal

from django.utils.translation import gettext as _
from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import Marker, tool
from apps.catalogue.shapes import Changes, In, Out, PersonRef, id_field
from apps.core.errors import invalid
from apps.core.records import Action
from apps.marketing import proposals, sequences
from apps.marketing.errors import MarketingModelCallFailed, SequenceState
from apps.marketing.models import EmailSequence, Enrollment, Segment
from apps.marketing.permissions import MarketingPerm
from apps.marketing.shapes import SegmentId

SequenceId = Annotated[int, id_field("getMarketingAnalytics")]
BULK = 10  # enrolling more contacts than this at once asks for a person's confirmation


def _sequence(ctx: ToolContext, sequence_id: int, action: Action = "view") -> EmailSequence:
    found: EmailSequence = EmailSequence.objects.select_related("owner", "mailbox").fetch(
        ctx.actor, sequence_id, action
    )
    return found


class Step(In):
    subject: Annotated[str, Field(min_length=1, max_length=200, description="One line; {first_name}")]
    body: Annotated[str, Field(min_length=1, max_length=20_000, description="Text; links tracked")]
    delay_hours: Annotated[int, Field(ge=0, le=8760, description="After the step before (or enrolling)")] = 0
    condition: Literal["", "opened", "clicked", "not_opened", "not_clicked"] = Field(
        "", description="On the message before; unmet: step skipped"
    )


class SequenceFields(Changes):
    name: Annotated[str, Field(min_length=1, max_length=120)] | None = None
    steps: Annotated[list[Step], Field(max_length=20, description="All of them, in order")] | None = None
    goal_stage: Literal["", "lead", "prospect", "customer", "partner", "supplier", "former"] | None = Field(
        None, description="A contact reaching this lifecycle stage leaves (the goal)"
    )
    mailbox_id: Annotated[int, Field(ge=1, description="Sent from; default: yours")] | None = None
    visibility: Literal["workspace", "private"] | None = None

    def fields(self, *, required: bool = False) -> dict[str, Any]:
        given = self.given(required=required)
        if given.get("steps") is not None:
            given["steps"] = [
                {"subject": s.subject, "body": s.body, "delayHours": s.delay_hours, "condition": s.condition}
                for s in given["steps"]
            ]
        return given


class StepOut(Out):
    position: int
    subject: str
    body: str
    delay_hours: int
    condition: str
    ai_generated: bool


class SequenceOut(Out):
    id: int
    name: str
    status: str
    goal_stage: str
    visibility: str
    owner: PersonRef | None
    mailbox_id: int | None
    steps: list[StepOut]
    activated_at: datetime | None
    updated_at: datetime

    @classmethod
    def of(cls, sequence: EmailSequence) -> "SequenceOut":
        return cls.of_record(
            sequence,
            mailbox_id=sequence.mailbox_id,
            steps=[
                StepOut(
                    position=index,
                    subject=step["subject"],
                    body=step["body"],
                    delay_hours=step["delayHours"],
                    condition=step.get("condition", ""),
                    ai_generated=bool(step.get("aiGenerated")),
                )
                for index, step in enumerate(sequence.steps)
            ],
        )


class SequenceFiguresOut(Out):
    enrollments: dict[str, int] = Field(
        description="By state: active, completed, replied, unsubscribed, goal…"
    )
    sent: int
    sent_by_step: list[int]
    failed: int
    skipped: int = Field(description="Steps skipped: their condition unmet")
    unique_clicks: int
    unsubscribes: int
    bounced: int
    conversions: int = Field(description="Left by reaching the goal")
    opens: int = Field(description="Unreliable (Apple Mail Privacy Protection): clicks first")

    @classmethod
    def of(cls, found: dict[str, Any]) -> "SequenceFiguresOut":
        return cls(
            **{name: found[name] for name in cls.model_fields if name in found},
            unique_clicks=found["clickers"],
        )


@tool("createEmailSequence", permission=MarketingPerm.EDIT, title="Create an e-mail sequence")
def create_email_sequence(
    ctx: ToolContext, *, sequence: Annotated[SequenceFields, Field(description="name is required")]
) -> SequenceOut:
    """Write a drip sequence of e-mails sent after delays to each enrolled contact (a draft).
    Then: activateEmailSequence, enrollInEmailSequence."""
    made = sequences.sequence_create(actor=ctx.actor, fields=sequence.fields())
    return SequenceOut.of(_sequence(ctx, made.pk))


class SequenceDetailOut(Out):
    sequence: SequenceOut
    figures: SequenceFiguresOut


@tool("getEmailSequence", permission=MarketingPerm.VIEW, title="Get an e-mail sequence", read_only=True)
def get_email_sequence(ctx: ToolContext, *, sequence_id: SequenceId) -> SequenceDetailOut:
    """One sequence: its steps, status, goal and enrolment figures (who is active or left, and why)."""
    found = _sequence(ctx, sequence_id)
    return SequenceDetailOut(
        sequence=SequenceOut.of(found), figures=SequenceFiguresOut.of(sequences.figures(found))
    )


@tool(
    "updateEmailSequence", permission=MarketingPerm.EDIT, title="Update an e-mail sequence", idempotent=True
)
def update_email_sequence(
    ctx: ToolContext,
    *,
    sequence_id: SequenceId,
    changes: Annotated[SequenceFields, Field(description="Only these; steps while not active")],
) -> SequenceOut:
    """Change a sequence's name, goal, mailbox or steps (steps while a draft or paused)."""
    found = _sequence(ctx, sequence_id, "change")
    sequences.sequence_update(actor=ctx.actor, sequence=found, fields=changes.fields(required=True))
    return SequenceOut.of(_sequence(ctx, sequence_id))


class SequenceDeletedOut(Out):
    id: int
    name: str


def _deletable(ctx: ToolContext, *, sequence_id: int) -> bool:
    _sequence(ctx, sequence_id, "delete")
    return True


@tool(
    "deleteEmailSequence",
    permission=MarketingPerm.DELETE,
    title="Delete an e-mail sequence",
    markers=Marker.DESTRUCTIVE,
    confirm_if=_deletable,
)
def delete_email_sequence(ctx: ToolContext, *, sequence_id: SequenceId) -> SequenceDeletedOut:
    """Delete a sequence to the trash; its enrolled contacts get nothing more."""
    found = _sequence(ctx, sequence_id, "delete")
    sequences.sequence_delete(actor=ctx.actor, sequence=found)
    return SequenceDeletedOut(id=found.pk, name=found.name)


class ActivatedOut(Out):
    sequence: SequenceOut
    was: str
    message: str


def _activatable(ctx: ToolContext, *, sequence_id: int, pause: bool = False) -> bool:
    found = _sequence(ctx, sequence_id, "change")
    if pause:
        return False
    sequences.activate_check(found)
    return True


@tool(
    "activateEmailSequence",
    permission=MarketingPerm.LAUNCH,
    title="Activate an e-mail sequence",
    markers=Marker.HIGH_RISK,
    confirm_if=_activatable,
)
def activate_email_sequence(
    ctx: ToolContext,
    *,
    sequence_id: SequenceId,
    pause: bool = Field(False, description="true: pause an active one instead"),
) -> ActivatedOut:
    """Start sending a sequence's steps to its enrolled contacts, or pause it."""
    found = _sequence(ctx, sequence_id, "change")
    was = sequences.sequence_activate(actor=ctx.actor, sequence=found, active=not pause)
    active = found.enrollments.filter(state=Enrollment.State.ACTIVE).count()
    message = (
        _("Paused: nobody gets a step until it is activated again.")
        if pause
        else _("Active: {n} enrolled contacts get its steps when due.").format(n=active)
    )
    return ActivatedOut(sequence=SequenceOut.of(_sequence(ctx, sequence_id)), was=was, message=message)


class EnrolledOut(Out):
    sequence_id: int
    members: int = Field(description="Contacts asked for that you see, with an address")
    enrolled: int
    skipped_by_reason: dict[str, int] = Field(
        description="no_consent, unsubscribed, already_enrolled, left_…"
    )
    enrolled_sample: list[str]


def _enroll_arguments(segment_id: int | None, contact_ids: list[int]) -> None:
    if (segment_id is None) == (not contact_ids):
        raise invalid("contactIds", _("give contactIds or a segmentId, not both and not neither"))


def _segment(ctx: ToolContext, segment_id: int | None) -> Segment | None:
    if segment_id is None:
        return None
    found: Segment = Segment.objects.fetch(ctx.actor, segment_id)
    return found


def _bulk(
    ctx: ToolContext,
    *,
    sequence_id: int,
    contact_ids: list[int] | None = None,
    segment_id: int | None = None,
    again: bool = False,
) -> bool:
    """Everything checked first (nobody to enrol is refused); bulk enrolment asks a person."""
    found = _sequence(ctx, sequence_id, "change")
    _enroll_arguments(segment_id, contact_ids or [])
    sequences.enroll(
        actor=ctx.actor,
        sequence=found,
        contact_ids=contact_ids or [],
        segment=_segment(ctx, segment_id),
        again=again,
        dry_run=True,
    )
    return segment_id is not None or len(contact_ids or []) > BULK


@tool(
    "enrollInEmailSequence",
    permission=MarketingPerm.LAUNCH,
    title="Enroll contacts in an e-mail sequence",
    markers=Marker.HIGH_RISK,
    confirm_if=_bulk,
)
def enroll_in_email_sequence(
    ctx: ToolContext,
    *,
    sequence_id: SequenceId,
    contact_ids: Annotated[list[int], Field(max_length=500, description="Or segmentId")] = [],  # noqa: B006
    segment_id: SegmentId | None = None,
    again: bool = Field(False, description="Re-enrol contacts who left it before"),
) -> EnrolledOut:
    """Add contacts or a segment's members to an e-mail sequence. Those without consent or
    unsubscribed are skipped, with the reason; a segment or over 10 contacts asks to confirm."""
    found = _sequence(ctx, sequence_id, "change")
    _enroll_arguments(segment_id, contact_ids)
    result = sequences.enroll(
        actor=ctx.actor,
        sequence=found,
        contact_ids=contact_ids,
        segment=_segment(ctx, segment_id),
        again=again,
    )
    return EnrolledOut(
        sequence_id=found.pk,
        members=result.members,
        enrolled=len(result.enrolled),
        skipped_by_reason=result.by_reason(),
        enrolled_sample=[row.email for row in result.enrolled[:20]],
    )


class GeneratedStepOut(Out):
    sequence: SequenceOut
    position: int
    model: str
    cost_micro_usd: int


@tool(
    "generateSequenceStep", permission=MarketingPerm.EDIT, title="Generate a sequence step", open_world=True
)
def generate_sequence_step(
    ctx: ToolContext,
    *,
    sequence_id: SequenceId,
    brief: Annotated[str, Field(min_length=3, max_length=1000, description="What the e-mail should say")],
    delay_hours: Annotated[int, Field(ge=0, le=8760, description="After the step before")] = 72,
    position: Annotated[int, Field(ge=0, le=19, description="Default: last")] | None = None,
) -> GeneratedStepOut:
    """Add a step whose subject and text the model writes from a brief (labelled AI-made). Spends
    credits."""
    found = _sequence(ctx, sequence_id, "change")
    if found.status == EmailSequence.Status.ACTIVE:
        raise SequenceState(
            id=found.pk, status=found.status, what=_("steps are added to"), allowed=_("a draft or paused")
        )
    proposed = proposals.ask(
        api_key_id=ctx.principal.api_key_id,
        tool="generateSequenceStep",
        system=(
            "You write marketing e-mails for a drip sequence. Given the sequence's name, the subjects of "
            'its steps and a brief, write the next e-mail: {"subject": one line, "body": plain text '
            "that may use {first_name}}. No unsubscribe footer: it is added."
        ),
        given={
            "sequence": found.name,
            "steps": [step["subject"] for step in found.steps],
            "brief": brief.strip(),
        },
    )
    subject = " ".join(str(proposed.data.get("subject") or "").split())
    body = str(proposed.data.get("body") or "").strip()
    if not subject or not body:
        raise MarketingModelCallFailed(tool="generateSequenceStep", problem="it wrote no subject or no text")
    step = {
        "subject": subject[:200],
        "body": body[:20_000],
        "delayHours": delay_hours,
        "condition": "",
        "aiGenerated": True,
    }
    at = sequences.steps_add(actor=ctx.actor, sequence=found, step=step, position=position)
    return GeneratedStepOut(
        sequence=SequenceOut.of(_sequence(ctx, sequence_id)),
        position=at,
        model=proposed.model,
        cost_micro_usd=proposed.cost_micro_usd,
    )
