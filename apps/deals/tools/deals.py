"""Deals: create, read, change, list and search, move between stages, open, share, and the
Platform tools on deals (deleteDeal to the bin, restoreDeal, getDealHistory)."""

from datetime import date
from typing import Annotated, Literal

from django.db.models import Q
from django.utils.translation import gettext as _
from pydantic import Field

from apps.catalogue.customfields import FieldsOf
from apps.catalogue.dispatch import ToolContext
from apps.catalogue.kit import open_tool, share_tool
from apps.catalogue.registry import Marker, tool
from apps.catalogue.shapes import Changes, HistoryOut, Limit, Offset, Out, Page, paginate
from apps.contacts import api as contacts_api
from apps.core import customfields, search
from apps.core.errors import invalid
from apps.deals import services
from apps.deals.models import Deal, DealEvent
from apps.deals.permissions import DealsPerm
from apps.deals.shapes import DealId, DealOut, DealSummary, StageId
from apps.groupaccounts import api as groupaccounts_api
from apps.tenancy import links

Money = Annotated[float, Field(ge=0, le=10**13, description="In currency")]
Rate = Annotated[float | None, Field(gt=0, le=10**9, description="1 unit in pipeline currency")]
Status = Annotated[Literal["open", "won", "lost"] | None, Field(description="Default: any")]
Owner = Annotated[str | None, Field(max_length=254, description="A person's e-mail")]
Currency = Annotated[str, Field(min_length=3, max_length=3, description="ISO 4217")]


def _deal(ctx: ToolContext, deal_id: int, *, as_left: bool = False) -> DealOut:
    """The deal as `ctx`'s person sees it; `as_left`: as they just left it, though they may not
    see it any more (a private deal they handed over)."""
    rows = Deal.objects.select_related("pipeline", "stage", "owner", "contact", "group_account")
    # With its custom field values, in the same statement (apps.core.customfields).
    rows = customfields.annotate(rows, "deals")
    deal = rows.get(pk=deal_id) if as_left else rows.fetch(ctx.actor, deal_id, trash=True)
    customfields.seen("deals", deal)
    return DealOut.of(deal, url=links.page("deals:detail", deal_id=deal.pk), reader=ctx.actor)


@tool(
    "createDeal",
    permission=DealsPerm.MANAGE,
    title="Create a deal",
    custom_fields=FieldsOf("deals", "create"),
)
def create_deal(
    ctx: ToolContext,
    *,
    title: Annotated[str, Field(min_length=1, max_length=200, description="e.g. Acme: 40 seats")],
    value: Money = 0,
    currency: Currency = "EUR",
    rate: Rate = None,
    pipeline_id: Annotated[int | None, Field(ge=1, description="Default: the only one")] = None,
    stage_id: Annotated[int | None, Field(ge=1, description="Default: first stage")] = None,
    contact_id: Annotated[int | None, Field(ge=1, description="From searchContacts")] = None,
    group_account_id: Annotated[int | None, Field(ge=1, description="From searchGroupAccounts")] = None,
    expected_close: Annotated[date | None, Field(description="Day it should close")] = None,
    owner_email: Annotated[str | None, Field(max_length=254, description="Default: you")] = None,
) -> DealOut:
    """Open a deal (sales opportunity) on a pipeline stage, yours or a colleague's. Then: updateDeal."""
    fields: dict[str, object] = {
        "title": title,
        "value": value,
        "currency": currency,
        "rate": rate,
        "expected_close": expected_close,
        "contact_id": contact_id,
        "group_account_id": group_account_id,
    }
    if owner_email:
        fields["owner_email"] = owner_email
    deal = services.deal_create(actor=ctx.actor, pipeline_id=pipeline_id, stage_id=stage_id, fields=fields)
    return _deal(ctx, deal.pk)


@tool(
    "getDeal",
    permission=DealsPerm.VIEW,
    title="Get a deal",
    read_only=True,
    custom_fields=FieldsOf("deals", "get"),
)
def get_deal(ctx: ToolContext, *, deal_id: DealId) -> DealOut:
    """Read a deal: value, weighted value, stage history, contact, open follow-ups."""
    return _deal(ctx, deal_id)


class DealChanges(Changes):
    title: Annotated[str, Field(min_length=1, max_length=200)] = ""
    value: Money | None = None
    currency: Annotated[str, Field(min_length=3, max_length=3)] = ""
    rate: Rate = None
    expected_close: date | None = None
    contact_id: Annotated[int | None, Field(ge=1)] = None
    group_account_id: Annotated[int | None, Field(ge=1)] = None
    owner_email: Annotated[str | None, Field(max_length=254)] = None
    notes: Annotated[str, Field(max_length=10000)] = ""
    status: Literal["open", "won", "lost"] | None = Field(default=None, description="open reopens")
    lost_reason: Annotated[str | None, Field(max_length=300, description="With status lost")] = None


class UpdatedOut(Out):
    deal: DealOut
    changed: list[str]


@tool(
    "updateDeal",
    permission=DealsPerm.MANAGE,
    title="Update a deal",
    custom_fields=FieldsOf("deals", "update", answer="deal"),
)
def update_deal(
    ctx: ToolContext,
    *,
    deal_id: DealId,
    changes: Annotated[DealChanges, Field(description="Only what changes; null clears")],
) -> UpdatedOut:
    """Change a deal's fields, mark it won or lost (with reason), or reopen it. Stage: moveDealStage."""
    given = changes.given(required=True)
    for name in ("title", "value", "currency", "status"):
        if name in given and given[name] is None:
            raise invalid(name, _("cannot be cleared"))
    deal, changed = services.deal_update(actor=ctx.actor, deal_id=deal_id, fields=given)
    # A private deal handed to someone else is theirs now: the answer shows it as it was left.
    handed = (
        "owner" in changed
        and not Deal.objects.restrict(ctx.actor, trash="include").filter(pk=deal.pk).exists()
    )
    return UpdatedOut(deal=_deal(ctx, deal.pk, as_left=handed), changed=changed)


def _listed(ctx: ToolContext, pipeline_id: int | None, status: str | None, owner_email: str | None) -> object:
    rows = Deal.objects.restrict(ctx.actor).select_related("stage", "owner")
    if pipeline_id:
        rows = rows.filter(pipeline_id=pipeline_id)
    if status:
        rows = rows.filter(status=status)
    return search.narrowed(rows, owner_email=owner_email)


@tool("listDeals", permission=DealsPerm.VIEW, title="List deals", read_only=True)
def list_deals(
    ctx: ToolContext,
    *,
    pipeline_id: Annotated[int | None, Field(ge=1, description="From getPipelineOverview")] = None,
    stage_id: Annotated[int | None, Field(ge=1, description="From getPipelineOverview")] = None,
    status: Status = None,
    owner_email: Owner = None,
    closing_by: Annotated[date | None, Field(description="Closes by")] = None,
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[DealSummary]:
    """List deals by pipeline, stage, status, owner or close date. By words: searchDeals."""
    rows = _listed(ctx, pipeline_id, status, owner_email)
    if stage_id:
        rows = rows.filter(stage_id=stage_id)  # type: ignore[attr-defined]
    if closing_by:
        rows = rows.filter(expected_close__lte=closing_by)  # type: ignore[attr-defined]
    rows = rows.order_by("expected_close", "-value", "id")  # type: ignore[attr-defined]
    return paginate(rows, limit=limit, offset=offset, item=DealSummary.of)


@tool("searchDeals", permission=DealsPerm.VIEW, title="Search deals", read_only=True)
def search_deals(
    ctx: ToolContext,
    *,
    query: Annotated[str, Field(min_length=1, max_length=200, description="Words to find")],
    status: Status = None,
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[DealSummary]:
    """Find deals by words in their title, notes, contact or account name. By filters: listDeals."""
    rows = _listed(ctx, None, status, None)
    # The deal's contact and account by name only where the reader may see them: a private
    # contact's name finds nothing for someone who may not (as getDeal blanks it for them).
    people, accounts = contacts_api.contacts(ctx.actor), groupaccounts_api.accounts(ctx.actor)

    def linked(word: str) -> Q:
        return Q(contact__in=people.filter(search.holds(word, ("first_name", "last_name")))) | Q(
            group_account__in=accounts.filter(search.holds(word, ("name",)))
        )

    rows = search.matching(rows, query, ("title", "notes"), also=linked).order_by("-updated_at", "id")
    return paginate(rows, limit=limit, offset=offset, item=DealSummary.of)


class MovedOut(Out):
    deal: DealSummary
    moved: bool = Field(description="False: it was on that stage")


@tool("moveDealStage", permission=DealsPerm.MANAGE, title="Move a deal to a stage", idempotent=True)
def move_deal_stage(ctx: ToolContext, *, deal_id: DealId, stage_id: StageId) -> MovedOut:
    """Put an open deal on another stage; its stage history keeps entered/left times."""
    deal, moved = services.deal_move(actor=ctx.actor, deal_id=deal_id, stage_id=stage_id)
    return MovedOut(deal=DealSummary.of(deal), moved=moved)


open_tool(
    "openDeal",
    permission=DealsPerm.VIEW,
    title="Open a deal",
    description="A link to a deal's page in the workspace, to open in the browser.",
    page="deals:detail",
    id_argument=("deal_id", DealId),
    fetch=lambda actor, deal_id: Deal.objects.fetch(actor, deal_id, trash=True),
    named=lambda deal: deal.title,
)
open_tool(
    "openDeals",
    permission=DealsPerm.VIEW,
    title="Open the deals board",
    description="A link to the Deals page (every pipeline's board), to open in the browser.",
    page="deals:board",
    named="Deals",
    section=("pipeline_id", Annotated[int | None, Field(ge=1, description="Its board")], "pipeline-{}"),
)


share_tool(
    "shareDeal",
    model=Deal,
    permission=DealsPerm.MANAGE,
    title="Share a deal",
    id_argument=("deal_id", DealId),
    after=services.after_share,
)


class BinOut(Out):
    id: int
    title: str
    in_trash: bool


@tool("deleteDeal", permission=DealsPerm.MANAGE, title="Delete a deal", markers=Marker.DESTRUCTIVE)
def delete_deal(ctx: ToolContext, *, deal_id: DealId) -> BinOut:
    """Move a deal to the bin; restoreDeal brings it back with its history."""
    return BinOut.of_record(services.deal_trash(actor=ctx.actor, deal_id=deal_id))


@tool("restoreDeal", permission=DealsPerm.MANAGE, title="Restore a deal", idempotent=True)
def restore_deal(ctx: ToolContext, *, deal_id: DealId) -> DealOut:
    """Bring a deal back from the bin, as it was (deleteDeal put it there)."""
    deal = services.deal_restore(actor=ctx.actor, deal_id=deal_id)
    return _deal(ctx, deal.pk)


@tool("getDealHistory", permission=DealsPerm.VIEW, title="Get a deal's history", read_only=True)
def get_deal_history(
    ctx: ToolContext,
    *,
    deal_id: DealId,
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[HistoryOut]:
    """A deal's changes, newest first: who, when, what; deleted deals too (restore: restoreDeal)."""
    deal = Deal.objects.fetch(ctx.actor, deal_id, trash=True)
    events = DealEvent.objects.filter(deal=deal).select_related("actor")
    return paginate(events, limit=limit, offset=offset, item=HistoryOut.of_record)
