"""Grievances, HR only and every read recorded: fileGrievance, getGrievances, updateGrievance."""

from datetime import datetime
from typing import Annotated, Literal

from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import tool
from apps.catalogue.shapes import Limit, Offset, Out, Page, PersonRef, id_field, page_of
from apps.hr.models import Grievance
from apps.hr.permissions import HrPerm
from apps.hr.services import grievances as services

Status = Literal["open", "investigating", "resolved", "closed"]


class FiledOut(Out):
    reference: str
    status: str
    note: str


@tool("fileGrievance", permission=HrPerm.VIEW, title="File a grievance")
def file_grievance(
    ctx: ToolContext,
    *,
    category: Annotated[str, Field(min_length=1, max_length=60, description="e.g. bullying, pay")],
    description: Annotated[str, Field(min_length=1, max_length=20_000, description="What happened")],
    about: Annotated[str, Field(max_length=200, description="Who or what it concerns")] = "",
) -> FiledOut:
    """File a confidential grievance with HR for yourself; only HR can read it afterwards."""
    grievance = services.grievance_file(
        actor=ctx.actor, category=category, description=description, about=about
    )
    return FiledOut(
        reference=grievance.reference,
        status=grievance.status,
        note="Only HR sees it; keep the reference to ask about it.",
    )


class EventOut(Out):
    at: datetime
    by: PersonRef | None
    change: str
    note: str


class GrievanceOut(Out):
    id: int
    reference: str
    category: str
    about: str
    description: str
    status: str
    filed_by: PersonRef | None
    handler: PersonRef | None
    outcome: str
    created_at: datetime
    history: list[EventOut]

    @classmethod
    def of(cls, grievance: Grievance) -> "GrievanceOut":
        events = [EventOut.of_record(e) for e in grievance.events.select_related("by")]
        return cls.of_record(grievance, history=events)


@tool("getGrievances", permission=HrPerm.GRIEVANCES, title="Get grievances", read_only=True)
def get_grievances(
    ctx: ToolContext,
    *,
    grievance_id: Annotated[int | None, id_field("getGrievances", description="Only this one")] = None,
    status: Annotated[Status | None, Field(description="Only these")] = None,
    limit: Limit = 10,
    offset: Offset = 0,
) -> Page[GrievanceOut]:
    """Read grievance cases (HR only); each read is recorded in the case's audit trail."""
    rows = Grievance.objects.restrict(ctx.actor).select_related("filed_by", "handler")
    if grievance_id:
        rows = rows.filter(pk=Grievance.objects.fetch(ctx.actor, grievance_id).pk)
    if status:
        rows = rows.filter(status=status)
    rows = rows.order_by("-created_at", "-id")
    window = list(rows[offset : offset + limit])
    services.grievances_read(actor=ctx.actor, grievances=window)
    return page_of([GrievanceOut.of(g) for g in window], total=rows.count(), limit=limit, offset=offset)


@tool("updateGrievance", permission=HrPerm.GRIEVANCES, title="Update a grievance")
def update_grievance(
    ctx: ToolContext,
    *,
    grievance_id: Annotated[int, id_field("getGrievances")],
    status: Annotated[Status | None, Field(description="closed is final")] = None,
    note: Annotated[str, Field(max_length=5000, description="Kept in the history")] = "",
    outcome: Annotated[str | None, Field(max_length=5000, description="Needed to resolve")] = None,
    handler_email: Annotated[str, Field(max_length=254, description="HR person handling it")] = "",
) -> GrievanceOut:
    """Change a grievance's status, handler or outcome, with a note kept in its history."""
    grievance = Grievance.objects.fetch(ctx.actor, grievance_id, "change")
    fields = {"status": status, "note": note, "outcome": outcome, "handler_email": handler_email}
    services.grievance_update(actor=ctx.actor, grievance=grievance, fields=fields)
    grievance = Grievance.objects.select_related("filed_by", "handler").get(pk=grievance.pk)
    services.grievances_read(actor=ctx.actor, grievances=[grievance])
    return GrievanceOut.of(grievance)
