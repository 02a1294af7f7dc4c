"""Possible duplicates: keep both, dismiss, or reopen (merging is mergeContacts)."""

from typing import Annotated, Literal

from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import tool
from apps.contacts import selectors, services
from apps.contacts.permissions import ContactsPerm
from apps.contacts.shapes import ConflictOut


@tool(
    "updateConflictResolution",
    permission=ContactsPerm.EDIT,
    title="Decide on a possible duplicate",
    idempotent=True,
)
def update_conflict_resolution(
    ctx: ToolContext,
    *,
    conflict_id: Annotated[int, Field(ge=1, description="From getContact's openConflicts")],
    resolution: Annotated[
        Literal["keep_both", "dismissed", "reopen"],
        Field(description="keep_both: they differ; dismissed: ignore it; reopen: decide later"),
    ],
    note: Annotated[str, Field(max_length=500, description="Why, for the next person")] = "",
) -> ConflictOut:
    """Decide on a possible duplicate: keep both, dismiss or reopen it. To merge them: mergeContacts."""
    conflict = selectors.conflict_get(actor=ctx.actor, conflict_id=conflict_id)
    return ConflictOut.of_record(
        services.conflict_resolve(actor=ctx.actor, conflict=conflict, resolution=resolution, note=note)
    )
