"""Administering the workspace through tools, as the settings pages do, through the same services
(apps.accounts.services): inviting a person, changing a role, deactivating someone. The tools are
shown to holders of platform.admin (the built-in admins and owners); each service still checks
people.manage, that nobody hands out (or takes away) more than their own role allows, and that the
workspace keeps an active owner."""

from typing import Annotated, Any, cast

from django.utils.translation import gettext_lazy as _
from pydantic import Field

from apps.accounts import selectors as people
from apps.accounts import services
from apps.accounts.models import Role, User
from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import Marker, tool
from apps.catalogue.shapes import id_field
from apps.core import clean
from apps.core.errors import NotFound, RecordNotFound
from apps.platform import errors
from apps.platform.permissions import PlatformPerm
from apps.platform.tools.workspace import PersonOut, _role
from apps.tenancy import links

RoleKey = Annotated[str, Field(min_length=1, max_length=64, description="A role's key, from listRoles")]
PersonId = Annotated[int, id_field("listWorkspaceUsers")]


class InvitedOut(PersonOut):
    invited: bool = Field(description="true: an invitation was e-mailed to choose a password and sign in")


def _facts(user: User) -> dict[str, Any]:
    return {
        "id": user.pk,
        "name": user.get_full_name(),
        "email": user.email,
        "role": _role(user),
        "active": user.is_active,
        "joined_at": user.date_joined,
    }


def _person_out(user: User) -> PersonOut:
    return PersonOut(**_facts(user))


def _role_named(key: str) -> Role:
    role = Role.objects.filter(key=key.strip().lower()).first()
    if role is None:
        raise errors.UnknownRole(role=key)
    return role


def _person(ctx: ToolContext, user_id: int) -> User:
    """Someone of the workspace the caller may see (people.view), or "not found"."""
    try:
        return people.user_get(actor=cast(User, ctx.actor), user_id=user_id)
    except NotFound:
        raise RecordNotFound(label=_("Person"), id=user_id, find_with="listWorkspaceUsers") from None


@tool(
    "inviteWorkspaceUser",
    permission=PlatformPerm.ADMIN,
    title="Invite a person",
    markers=Marker.HIGH_RISK,
)
def invite_workspace_user(
    ctx: ToolContext,
    *,
    email: Annotated[str, Field(min_length=3, max_length=254, description="Their e-mail address")],
    role: RoleKey,
    full_name: Annotated[str, Field(max_length=150)] = "",
) -> InvitedOut:
    """Invite a person to the workspace with a role; they get an e-mail to choose a password.

    A role allowing more than yours is refused. Change a role later: updateUserRole."""
    address = clean.email(email, field="email", required=True)
    name = clean.text(full_name, field="fullName", limit=150)
    user = services.user_invite(
        actor=cast(User, ctx.actor),
        email=address,
        role=_role_named(role),
        full_name=name,
        origin=links.site_origin(),
    )
    return InvitedOut(**_facts(user), invited=True)


@tool(
    "updateUserRole",
    permission=PlatformPerm.ADMIN,
    title="Change a person's role",
    markers=Marker.HIGH_RISK,
    idempotent=True,
)
def update_user_role(ctx: ToolContext, *, user_id: PersonId, role: RoleKey) -> PersonOut:
    """Give a person another role, effective at once on every connection.

    The last active owner keeps the owner role; a role allowing more than yours is refused."""
    user = services.user_change_role(
        actor=cast(User, ctx.actor), user=_person(ctx, user_id), role=_role_named(role)
    )
    return _person_out(user)


@tool(
    "deactivateWorkspaceUser",
    permission=PlatformPerm.ADMIN,
    title="Deactivate a person",
    markers=Marker.DESTRUCTIVE,
    idempotent=True,
)
def deactivate_workspace_user(ctx: ToolContext, *, user_id: PersonId) -> PersonOut:
    """Deactivate a person: their sessions, tokens, connected apps and API keys stop at once.

    Their records stay. The last active owner cannot be deactivated. Who is here: listWorkspaceUsers."""
    user = services.user_set_active(actor=cast(User, ctx.actor), user=_person(ctx, user_id), active=False)
    return _person_out(user)
