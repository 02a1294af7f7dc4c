"""The Credential Vaults of the catalogue (SPEC 4.7): metadata and references, never a value.
A reference (`vault:item/<id>`) is what a server-side part of the service resolves (the MCP
Gateway's server credentials); the value itself never reaches a model."""

from datetime import datetime
from typing import Annotated, Literal

from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _
from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import tool
from apps.catalogue.shapes import Limit, Offset, Out, Page, PersonRef, paginate
from apps.core.errors import invalid
from apps.core.search import matching
from apps.vaults import services
from apps.vaults.errors import VaultItemAmbiguous, VaultItemNotFound
from apps.vaults.models import VaultItem
from apps.vaults.permissions import VaultsPerm

Kind = Literal["api_key", "token", "login", "note"]


class ItemOut(Out):
    id: int
    reference: str = Field(description="What a tool takes instead of the secret")
    name: str
    kind: str
    description: str
    username: str = Field(description="A login's user name (not secret)")
    owner: PersonRef | None
    visibility: str
    shared_roles: list[str]
    allowed_hosts: list[str] = Field(description="Hosts the secret may go to; empty: any configured")
    expires_at: datetime | None
    expired: bool
    value_changed_at: datetime | None
    last_used_at: datetime | None

    @classmethod
    def of(cls, item: VaultItem) -> "ItemOut":
        return cls.of_record(
            item,
            shared_roles=[role.key for role in item.shared_roles.all()],
            expired=item.expires_at is not None and item.expires_at <= timezone.now(),
        )


def _items(ctx: ToolContext) -> object:
    return VaultItem.objects.restrict(ctx.actor).select_related("owner").prefetch_related("shared_roles")


@tool("vaultList", permission=VaultsPerm.VIEW, title="List vault items", read_only=True)
def vault_list(
    ctx: ToolContext,
    *,
    query: Annotated[str, Field(max_length=200, description="Words in name or description")] = "",
    kind: Annotated[Kind | None, Field(description="Default: any")] = None,
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[ItemOut]:
    """List the vault's credentials you may use: metadata and references, never a secret. One by
    name, logged: vaultLookup."""
    rows = _items(ctx)
    if query:
        rows = matching(rows, query, ("name", "description"))
    if kind:
        rows = rows.filter(kind=kind)  # type: ignore[attr-defined]
    return paginate(rows.order_by("name", "id"), limit=limit, offset=offset, item=ItemOut.of)  # type: ignore[attr-defined]


class LookupOut(Out):
    item: ItemOut
    reference: str
    note: str


@tool("vaultLookup", permission=VaultsPerm.VIEW, title="Look up a vault item", read_only=True)
def vault_lookup(
    ctx: ToolContext,
    *,
    name: Annotated[str, Field(max_length=120, description="Its name, case aside; or itemId")] = "",
    item_id: Annotated[int | None, Field(ge=1, description="From vaultList")] = None,
    purpose: Annotated[str, Field(max_length=200, description="What it is for (logged)")] = "",
) -> LookupOut:
    """Find one credential by name or id and answer its reference, never its secret. To browse:
    vaultList. Tools configured with the reference resolve it on the server; each look-up is logged."""
    rows = _items(ctx)
    if item_id is not None:
        found = VaultItem.objects.fetch(ctx.actor, item_id)
    elif name.strip():
        named = list(rows.filter(Q(name__iexact=" ".join(name.split()))))  # type: ignore[attr-defined]
        # Names are each owner's own: one's own item first, else the one of that name.
        own = [each for each in named if each.owner_id == ctx.actor.pk]
        if not named:
            raise VaultItemNotFound()
        if not own and len(named) > 1:
            raise VaultItemAmbiguous(name=" ".join(name.split())[:120])
        found = (own or named)[0]
    else:
        raise invalid("name", _("give the item's name or its itemId"))
    services.looked_up(actor=ctx.actor, item=found, purpose=purpose)
    item = ItemOut.of(found)
    return LookupOut(
        item=item,
        reference=item.reference,
        note=_("A reference, not the secret: tools configured with it resolve it on the server."),
    )
