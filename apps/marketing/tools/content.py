"""Marketing content: e-mail, social, blog and ad copy with variants, written by people or a model,
and published where its type says. Thin doors onto apps.marketing.content."""

from datetime import datetime
from typing import Annotated, Any, Literal

from django.db.models import Q
from django.utils.translation import gettext as _
from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import Marker, tool
from apps.catalogue.shapes import Changes, In, Limit, Offset, Out, Page, PersonRef, aware, id_field, paginate
from apps.core.records import Action
from apps.marketing import brand, content
from apps.marketing.models import ContentItem
from apps.marketing.permissions import MarketingPerm
from apps.marketing.shapes import CampaignSummary
from apps.social import api as social

ContentId = Annotated[int, id_field("searchMarketingContent")]
ContentType = Literal["email", "social", "blog", "ad"]


def _item(ctx: ToolContext, content_id: int, action: Action = "view") -> ContentItem:
    found: ContentItem = ContentItem.objects.select_related("owner").fetch(ctx.actor, content_id, action)
    return found


class VariantIn(In):
    label: Annotated[str, Field(max_length=20, description="Default: B, C…")] = ""
    body: Annotated[str, Field(min_length=1, max_length=100_000)]


class ContentFields(Changes):
    name: Annotated[str, Field(min_length=1, max_length=120)] | None = None
    type: ContentType | None = Field(None, description="Fixed once made")
    title: Annotated[str, Field(max_length=200, description="E-mail: the subject; else headline")] | None = (
        None
    )
    body: Annotated[str, Field(max_length=100_000, description="HTML (sanitised); social: text")] | None = (
        None
    )
    variants: Annotated[list[VariantIn], Field(max_length=5, description="Versions to test")] | None = None
    visibility: Literal["workspace", "private"] | None = None

    def fields(self, *, required: bool = False) -> dict[str, Any]:
        given = self.given(required=required)
        if given.get("variants") is not None:
            given["variants"] = [variant.model_dump() for variant in given["variants"]]
        return given


class VariantOut(Out):
    label: str
    body: str


class ContentSummary(Out):
    id: int
    name: str
    type: str
    title: str
    status: str = Field(description="draft, scheduled or published")
    visibility: str
    owner: PersonRef | None
    ai_generated: bool = Field(description="Written by a model: labelled where it is published")
    published_to: str = Field(description="campaign:<id> or social:<post id>")
    published_at: datetime | None
    updated_at: datetime

    @classmethod
    def of(cls, item: ContentItem) -> "ContentSummary":
        return cls.of_record(item)


class ContentOut(ContentSummary):
    body: str
    variants: list[VariantOut]
    sanitised: bool = Field(False, description="Unsafe HTML (scripts, handlers) was taken out")

    @classmethod
    def of(cls, item: ContentItem) -> "ContentOut":
        return cls.of_record(
            item,
            variants=[VariantOut(**variant) for variant in item.variants],
            sanitised=getattr(item, "sanitised", False),
        )


@tool("createMarketingContent", permission=MarketingPerm.EDIT, title="Create marketing content")
def create_marketing_content(
    ctx: ToolContext,
    *,
    content_item: Annotated[ContentFields, Field(description="name, type, body required")],
) -> ContentOut:
    """Write e-mail, social, blog or ad copy with variants to test; a draft until published."""
    return ContentOut.of(content.create(actor=ctx.actor, fields=content_item.fields()))


@tool("getMarketingContent", permission=MarketingPerm.VIEW, title="Get marketing content", read_only=True)
def get_marketing_content(ctx: ToolContext, *, content_id: ContentId) -> ContentOut:
    """One content item with its body, variants and where it was published."""
    return ContentOut.of(_item(ctx, content_id))


@tool(
    "updateMarketingContent",
    permission=MarketingPerm.EDIT,
    title="Update marketing content",
    idempotent=True,
)
def update_marketing_content(
    ctx: ToolContext,
    *,
    content_id: ContentId,
    changes: Annotated[ContentFields, Field(description="Only these")],
) -> ContentOut:
    """Change a draft's name, title, body or variants (published content: its name only)."""
    found = _item(ctx, content_id, "change")
    content.update(actor=ctx.actor, item=found, fields=changes.fields(required=True))
    answer = ContentOut.of(_item(ctx, content_id))
    answer.sanitised = getattr(found, "sanitised", False)
    return answer


class DeletedOut(Out):
    id: int
    name: str


def _deletable(ctx: ToolContext, *, content_id: int) -> bool:
    _item(ctx, content_id, "delete")
    return True


@tool(
    "deleteMarketingContent",
    permission=MarketingPerm.DELETE,
    title="Delete marketing content",
    markers=Marker.DESTRUCTIVE,
    confirm_if=_deletable,
)
def delete_marketing_content(ctx: ToolContext, *, content_id: ContentId) -> DeletedOut:
    """Move content to the trash; what was published (a campaign, a post) stays."""
    found = _item(ctx, content_id, "delete")
    content.delete(actor=ctx.actor, item=found)
    return DeletedOut(id=found.pk, name=found.name)


@tool(
    "searchMarketingContent",
    permission=MarketingPerm.VIEW,
    title="Search marketing content",
    read_only=True,
)
def search_marketing_content(
    ctx: ToolContext,
    *,
    query: Annotated[str, Field(max_length=200, description="Words in name, title or body")] = "",
    type: Annotated[ContentType | None, Field(description="Only this kind of copy")] = None,
    status: Annotated[
        Literal["draft", "scheduled", "published"] | None, Field(description="Only content in this state")
    ] = None,
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[ContentSummary]:
    """Find e-mail, social, blog and ad copy by words, type or status, newest first."""
    rows = ContentItem.objects.restrict(ctx.actor, "view").select_related("owner")
    for word in query.split():
        rows = rows.filter(Q(name__icontains=word) | Q(title__icontains=word) | Q(body__icontains=word))
    if type:
        rows = rows.filter(type=type)
    if status:
        rows = rows.filter(status=status)
    return paginate(rows, limit=limit, offset=offset, item=ContentSummary.of)


def _publishable(
    ctx: ToolContext,
    *,
    content_id: int,
    variant: str = "",
    campaign_id: int | None = None,
    account_id: int | None = None,
    at: datetime | None = None,
) -> bool:
    found = _item(ctx, content_id, "change")
    content.publish_check(
        actor=ctx.actor,
        item=found,
        variant=variant,
        campaign_id=campaign_id,
        account_id=account_id,
        at=aware(at),
    )
    return True


class PublishedOut(Out):
    content: ContentSummary
    campaign: CampaignSummary | None = Field(description="E-mail: the draft campaign it became")
    social_post: social.PostOut | None
    message: str


@tool(
    "publishMarketingContent",
    permission=MarketingPerm.LAUNCH,
    title="Publish marketing content",
    markers=Marker.HIGH_RISK,
    confirm_if=_publishable,
    open_world=True,
)
def publish_marketing_content(
    ctx: ToolContext,
    *,
    content_id: ContentId,
    variant: Annotated[str, Field(max_length=20, description="Default: A, the body")] = "",
    campaign_id: Annotated[
        int | None, Field(description="E-mail: into this draft campaign; default: a new draft")
    ] = None,
    account_id: Annotated[int | None, Field(description="Social: post there (listSocialAccounts)")] = None,
    at: Annotated[datetime | None, Field(description="Social: post at this time; default: now")] = None,
) -> PublishedOut:
    """Publish copy where its type says: e-mail into a draft campaign, social posted now or later."""
    found = _item(ctx, content_id, "change")
    done = content.publish(
        actor=ctx.actor,
        item=found,
        variant=variant,
        campaign_id=campaign_id,
        account_id=account_id,
        at=aware(at),
    )
    if done.campaign is not None:
        message = _(
            "Campaign {id} is a draft with this content: launch it with launchMarketingCampaign."
        ).format(id=done.campaign.pk)
    else:
        message = (
            _("Social post {id}: {state}. {reason}")
            .format(id=done.social_post.pk, state=done.social_post.state, reason=done.social_post.reason)
            .strip()
        )
    return PublishedOut(
        content=ContentSummary.of(found),
        campaign=CampaignSummary.of(done.campaign) if done.campaign is not None else None,
        social_post=social.PostOut.of(done.social_post) if done.social_post is not None else None,
        message=message,
    )


class GeneratedOut(Out):
    content: ContentOut
    model: str
    cost_micro_usd: int


@tool(
    "generateMarketingContent",
    permission=MarketingPerm.EDIT,
    title="Generate marketing content",
    open_world=True,
)
def generate_marketing_content(
    ctx: ToolContext,
    *,
    type: Annotated[
        ContentType, Field(description="What to write: an e-mail, a social post, a blog article, an ad")
    ],
    brief: Annotated[str, Field(min_length=3, max_length=2000, description="What it is about, for whom")],
    name: Annotated[str, Field(max_length=120, description="Default: from the title")] = "",
    variants: Annotated[int, Field(ge=0, le=4, description="Other versions to test")] = 1,
) -> GeneratedOut:
    """Have a model write e-mail, social, blog or ad copy in the brand's voice, as a draft.
    Labelled AI-made; spends credits. By hand: createMarketingContent."""
    written = content.write(
        api_key_id=ctx.principal.api_key_id,
        tool="generateMarketingContent",
        kind=type,
        brief=brief.strip(),
        voice=brand.voice(),
        variants=variants,
    )
    fields = {
        "name": content.free_name(name.strip() or written.title or brief.strip()[:60]),
        "type": type,
        "title": written.title,
        "body": written.body,
        "variants": written.variants,
        "ai_generated": True,
    }
    made = content.create(actor=ctx.actor, fields=fields)
    return GeneratedOut(
        content=ContentOut.of(made), model=written.model, cost_micro_usd=written.cost_micro_usd
    )
