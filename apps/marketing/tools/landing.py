"""Landing pages: blocks with an embedded Form Builder form, served on the workspace's host at
/p/<slug>/ while published. Thin doors onto apps.marketing.landing."""

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import Marker, tool
from apps.catalogue.shapes import Changes, Out, PersonRef, id_field
from apps.core.records import Action
from apps.marketing import landing
from apps.marketing.models import LandingPage
from apps.marketing.permissions import MarketingPerm
from apps.tenancy import links

PageId = Annotated[int, id_field("getMarketingDashboard")]  # its landingPages
Block = Annotated[
    dict[str, Any],
    Field(
        description='{"type":"heading","text"} | {"type":"text","html"} | {"type":"image","url","alt"}'
        ' | {"type":"cta","label","url"} | {"type":"form","formId"}'
    ),
]


def _page(ctx: ToolContext, page_id: int, action: Action = "view") -> LandingPage:
    found: LandingPage = LandingPage.objects.select_related("owner").fetch(ctx.actor, page_id, action)
    return found


class PageFields(Changes):
    name: Annotated[str, Field(min_length=1, max_length=120)] | None = None
    slug: Annotated[str, Field(max_length=80, description="Its address /p/<slug>/")] | None = None
    title: Annotated[str, Field(max_length=200)] | None = None
    description: Annotated[str, Field(max_length=300, description="For link previews")] | None = None
    blocks: Annotated[list[Block], Field(max_length=40)] | None = None
    campaign_id: Annotated[int | None, Field(description="Counted in its figures")] = None
    status: Literal["draft", "published"] | None = Field(None, description="published: public")
    visibility: Literal["workspace", "private"] | None = None


class PageOut(Out):
    id: int
    name: str
    slug: str
    url: str = Field(description="The public address")
    title: str
    description: str
    blocks: list[dict[str, Any]]
    campaign_id: int | None
    status: str
    visibility: str
    owner: PersonRef | None
    visits: int
    conversions: int
    published_at: datetime | None
    sanitised: bool = Field(False, description="Unsafe HTML was taken out")

    @classmethod
    def of(cls, page: LandingPage) -> "PageOut":
        return cls.of_record(
            page,
            url=links.page("marketing:landing", slug=page.slug),
            sanitised=getattr(page, "sanitised", False),
        )


def _creatable(ctx: ToolContext, *, landing_page: PageFields) -> bool:
    return landing.check(actor=ctx.actor, page=None, fields=landing_page.given(required=True))


@tool(
    "createLandingPage",
    permission=MarketingPerm.EDIT,
    title="Create landing page",
    markers=Marker.HIGH_RISK,
    confirm_if=_creatable,
)
def create_landing_page(
    ctx: ToolContext,
    *,
    landing_page: Annotated[PageFields, Field(description="name and blocks required; a draft by default")],
) -> PageOut:
    """Make a landing page of blocks with a form; published (HIGH RISK) it is public at /p/<slug>/."""
    return PageOut.of(landing.create(actor=ctx.actor, fields=landing_page.given(required=True)))


def _updatable(ctx: ToolContext, *, page_id: int, changes: PageFields) -> bool:
    found = _page(ctx, page_id, "change")
    return landing.check(actor=ctx.actor, page=found, fields=changes.given(required=True))


@tool(
    "updateLandingPage",
    permission=MarketingPerm.EDIT,
    title="Update landing page",
    markers=Marker.HIGH_RISK,
    confirm_if=_updatable,
    idempotent=True,
)
def update_landing_page(
    ctx: ToolContext,
    *,
    page_id: PageId,
    changes: Annotated[PageFields, Field(description="Only these; status published: public")],
) -> PageOut:
    """Change a landing page's blocks, address or form, publish it or take it down (draft). A person
    confirms publishing and every change of a published page."""
    found = _page(ctx, page_id, "change")
    landing.update(actor=ctx.actor, page=found, fields=changes.given(required=True))
    return PageOut.of(found)


class DeletedPageOut(Out):
    id: int
    name: str
    slug: str
    status: str = Field(description="A restored page is a draft")
    restored: bool


def _deletable(ctx: ToolContext, *, page_id: int, restore: bool = False) -> bool:
    found = LandingPage.objects.fetch(ctx.actor, page_id, "delete", trash=restore)
    if restore:
        landing.check_restore(page=found)
    return not restore


@tool(
    "deleteLandingPage",
    permission=MarketingPerm.DELETE,
    title="Delete landing page",
    markers=Marker.DESTRUCTIVE,
    confirm_if=_deletable,
)
def delete_landing_page(
    ctx: ToolContext,
    *,
    page_id: PageId,
    restore: Annotated[bool, Field(description="true: undo a deletion")] = False,
) -> DeletedPageOut:
    """Move a landing page to the trash: its address answers 404 at once; its figures stay."""
    found: LandingPage = LandingPage.objects.fetch(ctx.actor, page_id, "delete", trash=restore)
    if restore:
        landing.restore(actor=ctx.actor, page=found)
    else:
        landing.delete(actor=ctx.actor, page=found)
    return DeletedPageOut(
        id=found.pk, name=found.name, slug=found.slug, status=found.status, restored=restore
    )
