"""The brand kit, designs rendered from it and images a model draws. Thin doors onto
apps.marketing.brand and apps.marketing.designs."""

from datetime import datetime
from typing import Annotated, Any, Literal, get_args

from django.db.models import Q
from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import Marker, tool
from apps.catalogue.shapes import In, Limit, Offset, Out, Page, PersonRef, id_field, paginate
from apps.core.records import Action
from apps.marketing import brand, designs
from apps.marketing.models import DesignAsset
from apps.marketing.permissions import MarketingPerm

AssetId = Annotated[int, id_field("listDesignAssets")]
Preset = Literal["instagram-square", "instagram-portrait", "story", "og-image", "facebook-cover", "a4-poster"]
assert set(get_args(Preset)) == set(designs.PRESETS), "the presets offered are the ones drawn"
Layout = Literal["center", "left", "top"]
Colour = Annotated[str, Field(pattern=r"^#[0-9a-fA-F]{6}$", description="#RRGGBB; default: the kit's")]


def _asset(ctx: ToolContext, asset_id: int, action: Action = "view") -> DesignAsset:
    found: DesignAsset = DesignAsset.objects.select_related("owner").fetch(ctx.actor, asset_id, action)
    return found


class BrandKitOut(Out):
    colours: list[str] = Field(description="Primary, accent, light, dark, then the rest")
    heading_font: str
    body_font: str
    logo_file_ids: list[int] = Field(description="Files ids, the main logo first")
    voice: str
    updated_at: datetime


@tool("getBrandKit", permission=MarketingPerm.VIEW, title="Get brand kit", read_only=True)
def get_brand_kit(ctx: ToolContext) -> BrandKitOut:
    """The brand's colours, fonts, logos and voice that designs and written copy follow."""
    kit = brand.kit()
    return BrandKitOut(
        colours=brand.colours(),
        heading_font=kit.heading_font,
        body_font=kit.body_font,
        logo_file_ids=[int(value) for value in kit.logo_file_ids],
        voice=kit.voice,
        updated_at=kit.updated_at,
    )


class DesignIn(In):
    headline: Annotated[str, Field(max_length=120)] | None = None
    body: Annotated[str, Field(max_length=500)] | None = None
    background: Colour | None = None
    text_colour: Colour | None = None
    accent: Colour | None = None
    layout: Layout | None = None
    logo: bool | None = Field(None, description="The kit's logo; default: yes")

    def fields(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.model_fields_set}


class AssetOut(Out):
    id: int
    name: str
    kind: str = Field(description="design or image (generated)")
    preset: str
    width: int
    height: int
    version: int
    spec: dict[str, Any] = Field(description="A design's headline, body, colours, layout")
    png_file_id: int | None
    svg_file_id: int | None
    ai_generated: bool = Field(description="Made by a model: labelled where it is used")
    visibility: str
    owner: PersonRef | None
    updated_at: datetime

    @classmethod
    def of(cls, asset: DesignAsset) -> "AssetOut":
        return cls.of_record(asset)


class DesignOut(AssetOut):
    versions: list[dict[str, Any]] = Field(description="Earlier versions with their files")

    @classmethod
    def of(cls, asset: DesignAsset) -> "DesignOut":
        return cls.of_record(asset, versions=asset.history)


@tool("createDesign", permission=MarketingPerm.EDIT, title="Create design")
def create_design(
    ctx: ToolContext,
    *,
    preset: Annotated[Preset, Field(description="Size: og-image 1200x630, story 1080x1920…")],
    design: Annotated[DesignIn, Field(description="headline required; colours from the brand kit")],
    name: Annotated[str, Field(max_length=120, description="Default: the headline")] = "",
    visibility: Annotated[
        Literal["workspace", "private"], Field(description="private: yours alone")
    ] = "workspace",
) -> DesignOut:
    """Render a social image, story, OG image or poster from the brand kit as SVG and PNG in Files."""
    made = designs.create(
        actor=ctx.actor, name=name.strip(), preset=preset, fields=design.fields(), visibility=visibility
    )
    return DesignOut.of(made)


@tool("refineDesign", permission=MarketingPerm.EDIT, title="Refine design")
def refine_design(
    ctx: ToolContext,
    *,
    design_id: AssetId,
    changes: Annotated[DesignIn, Field(description="Only these")],
    preset: Annotated[Preset | None, Field(description="Another size")] = None,
) -> DesignOut:
    """Change a design's text, colours or layout: a new version, the earlier one kept."""
    found = _asset(ctx, design_id, "change")
    return DesignOut.of(
        designs.refine(actor=ctx.actor, asset=found, fields=changes.fields(), preset=preset or "")
    )


class GeneratedImageOut(Out):
    asset: AssetOut
    model: str
    cost_micro_usd: int


@tool("generateDesignImage", permission=MarketingPerm.EDIT, title="Generate design image", open_world=True)
def generate_design_image(
    ctx: ToolContext,
    *,
    prompt: Annotated[str, Field(min_length=3, max_length=2000, description="What the image shows")],
    size: Annotated[
        Literal["1024x1024", "1536x1024", "1024x1536"], Field(description="Pixels, WxH")
    ] = "1024x1024",
    name: Annotated[str, Field(max_length=120, description="Default: from the prompt")] = "",
    visibility: Annotated[
        Literal["workspace", "private"], Field(description="private: yours alone")
    ] = "workspace",
) -> GeneratedImageOut:
    """Have a model draw an image (PNG in Files, labelled AI-made); spends credits."""
    made = designs.generate(
        actor=ctx.actor,
        api_key_id=ctx.principal.api_key_id,
        name=name.strip(),
        prompt=prompt.strip(),
        size=size,
        visibility=visibility,
    )
    return GeneratedImageOut(
        asset=AssetOut.of(made.asset), model=made.model, cost_micro_usd=made.cost_micro_usd
    )


@tool("listDesignAssets", permission=MarketingPerm.VIEW, title="List design assets", read_only=True)
def list_design_assets(
    ctx: ToolContext,
    *,
    query: Annotated[str, Field(max_length=200, description="Words in name or headline")] = "",
    kind: Annotated[Literal["design", "image"] | None, Field(description="Only this kind")] = None,
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[AssetOut]:
    """The designs and generated images, newest first, with their Files ids."""
    rows = DesignAsset.objects.restrict(ctx.actor, "view").select_related("owner")
    for word in query.split():
        rows = rows.filter(
            Q(name__icontains=word) | Q(spec__headline__icontains=word) | Q(prompt__icontains=word)
        )
    if kind:
        rows = rows.filter(kind=kind)
    return paginate(rows, limit=limit, offset=offset, item=AssetOut.of)


class DeletedAssetOut(Out):
    id: int
    name: str
    restored: bool
    file_ids: list[int] = Field(description="Its files, to Files' trash or back with it")


def _deletable(ctx: ToolContext, *, asset_id: int, restore: bool = False) -> bool:
    found = DesignAsset.objects.fetch(ctx.actor, asset_id, "delete", trash=restore)
    if restore:
        designs.check_restore(found)
    return not restore


@tool(
    "deleteDesignAsset",
    permission=MarketingPerm.DELETE,
    title="Delete design asset",
    markers=Marker.DESTRUCTIVE,
    confirm_if=_deletable,
)
def delete_design_asset(
    ctx: ToolContext,
    *,
    asset_id: AssetId,
    restore: Annotated[bool, Field(description="true: undo a deletion, its files too")] = False,
) -> DeletedAssetOut:
    """Move a design or generated image to the trash, its files in Files with it."""
    found: DesignAsset = DesignAsset.objects.fetch(ctx.actor, asset_id, "delete", trash=restore)
    if restore:
        moved = designs.restore(actor=ctx.actor, asset=found)
    else:
        moved = designs.delete(actor=ctx.actor, asset=found)
    return DeletedAssetOut(id=found.pk, name=found.name, restored=restore, file_ids=moved)
