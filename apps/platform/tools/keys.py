"""The API keys of the message gateway and of agents, as their owners (and the admins of the
workspace's people) read and revoke them: through apps.core.spending, which the API-keys door fills."""

from datetime import datetime
from typing import Annotated

from django.utils.translation import gettext_lazy as _
from pydantic import Field

from apps.accounts.permissions import PeoplePerm
from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import Marker, tool
from apps.catalogue.shapes import Out, id_field
from apps.core import spending
from apps.core.actors import can
from apps.core.errors import RecordNotFound
from apps.platform.permissions import PlatformPerm


class ApiKeyOut(Out):
    id: int
    label: str
    owner_email: str
    last_four: str = Field(description="The key's last four characters; the key itself is never shown")
    profile: str
    budget_usd_cents: int | None
    budget_period: str
    spent_in_period_micro_usd: int
    spent_total_micro_usd: int
    created_at: datetime
    last_used_at: datetime | None
    revoked_at: datetime | None


class ApiKeysOut(Out):
    keys: list[ApiKeyOut]


@tool("listApiKeys", permission=PlatformPerm.VIEW, title="List API keys", read_only=True)
def list_api_keys(
    ctx: ToolContext,
    *,
    everyone: Annotated[bool, Field(description="Every person's keys (admins of people only)")] = False,
    active_only: Annotated[bool, Field(description="false: revoked keys too")] = True,
) -> ApiKeysOut:
    """List your API keys with their budgets and spend, never the key values; revokeApiKey revokes one."""
    owner = None if everyone and can(ctx.actor, PeoplePerm.MANAGE) else ctx.actor.pk
    listed = spending.keys().listed(owner_id=owner, active_only=active_only)
    return ApiKeysOut(keys=[ApiKeyOut.model_validate(key) for key in listed])


@tool(
    "revokeApiKey",
    permission=PlatformPerm.VIEW,
    title="Revoke an API key",
    markers=Marker.DESTRUCTIVE,
    idempotent=True,
)
def revoke_api_key(ctx: ToolContext, *, key_id: Annotated[int, id_field("listApiKeys")]) -> ApiKeyOut:
    """Revoke an API key for good, at once everywhere: yours, or anyone's for admins of people."""
    revoked = spending.keys().revoke(
        actor=ctx.actor, key_id=key_id, any_owner=can(ctx.actor, PeoplePerm.MANAGE)
    )
    if revoked is None:
        raise RecordNotFound(label=_("API key"), id=key_id, find_with="listApiKeys")
    return ApiKeyOut.model_validate(revoked)
