"""Administering the workspace through tools, as the settings pages do, through the same services
(apps.accounts.services): inviting a person, changing a role, deactivating someone. The tools are
shown to holders of platform.admin (the built-in admins and owners); each service still checks
people.manage, that nobody hands out (or takes away) more than their own role allows, and that the
workspace keeps an active owner."""

from typing import Annotated, Any, Literal, cast

from django.utils.translation import gettext_lazy as _
from pydantic import Field

from apps.accounts import selectors as people
from apps.accounts import services
from apps.accounts.models import Role, User
from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import Marker, tool
from apps.catalogue.shapes import Out, id_field
from apps.core import clean
from apps.core import permissions as registry
from apps.core.errors import NotFound, NothingToChange, RecordNotFound
from apps.core.workspaces import current_workspace
from apps.platform import errors
from apps.platform.permissions import PlatformPerm
from apps.platform.tools.workspace import PersonOut, RoleOut, _role
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
    full_name: Annotated[str, Field(max_length=150, description="Else they go by their address")] = "",
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


# --- custom roles ---------------------------------------------------------------------------------


class ManagedRoleOut(Out):
    action: str
    role: RoleOut | None = Field(description="The role as it is now; null once deleted")
    reassigned: int = Field(description="People given `reassignTo` before the role was deleted")


def _role_out(role: Role) -> RoleOut:
    return RoleOut(
        key=role.key,
        name=role.name,
        description=role.description,
        built_in=role.is_system,
        people=role.users.filter(is_active=True).count(),
        permissions=role.permission_list,
    )


@tool("manageRole", permission=PlatformPerm.ADMIN, title="Manage a custom role", markers=Marker.HIGH_RISK)
def manage_role(
    ctx: ToolContext,
    *,
    action: Annotated[Literal["create", "update", "delete"], Field(description="What to do")],
    role: Annotated[
        str, Field(max_length=64, description="update, delete: the role's key, from listRoles")
    ] = "",
    name: Annotated[str, Field(max_length=100, description="create: required; update: a new name")] = "",
    description: Annotated[str | None, Field(max_length=300, description="What the role is for")] = None,
    permissions: Annotated[
        list[Annotated[str, Field(max_length=100)]] | None,
        Field(max_length=500, description="<area>.<action> codes; update: the whole set"),
    ] = None,
    reassign_to: Annotated[
        str, Field(max_length=64, description="delete: the role its people get instead (a key)")
    ] = "",
) -> ManagedRoleOut:
    """Create, rename, set the permissions of, or delete a custom role; built-in roles stay.

    Never more permissions than your own role's. A role people hold is deleted only with reassignTo.
    The roles: listRoles."""
    actor = cast(User, ctx.actor)
    if action == "create":
        created = services.role_create(
            actor=actor, name=name, permissions=permissions or [], description=description or ""
        )
        return ManagedRoleOut(action=action, role=_role_out(created), reassigned=0)
    if not role.strip():
        raise errors.RoleKeyRequired(action=action)
    target = _role_named(role)
    if action == "update":
        if not name.strip() and description is None and permissions is None:
            raise NothingToChange()
        updated = services.role_update(
            actor=actor,
            role=target,
            name=name or target.name,
            description=target.description if description is None else description,
            permissions=list(target.permissions) if permissions is None else permissions,
        )
        return ManagedRoleOut(action=action, role=_role_out(updated), reassigned=0)
    moved = services.role_delete(
        actor=actor, role=target, reassign_to=_role_named(reassign_to) if reassign_to.strip() else None
    )
    return ManagedRoleOut(action=action, role=None, reassigned=moved)


# --- installed areas ------------------------------------------------------------------------------


class AppOut(Out):
    key: str
    title: str
    description: str
    core: bool = Field(description="In every workspace: never installed or uninstalled")
    installed: bool


class AppsOut(Out):
    apps: list[AppOut]


def _apps(installed: list[str] | None = None) -> AppsOut:
    workspace = current_workspace()
    if installed is None:
        installed = list(workspace.installed_areas) if workspace is not None else []
    return AppsOut(
        apps=[
            AppOut(
                key=area.key,
                title=str(area.title),
                description=str(area.description),
                core=area.core,
                installed=workspace is not None and (area.core or area.key in installed),
            )
            for area in registry.areas()
        ]
    )


@tool("listInstalledApps", permission=PlatformPerm.VIEW, title="Installed areas", read_only=True)
def list_installed_apps(ctx: ToolContext) -> AppsOut:
    """List the workspace's areas (apps): which are installed, which could be, which are core.

    Installing or uninstalling one: manageInstalledApps."""
    return _apps()


AreaKeys = Annotated[
    list[Annotated[str, Field(max_length=64)]],
    Field(max_length=100, description="Area keys, from listInstalledApps"),
]


@tool(
    "manageInstalledApps",
    permission=PlatformPerm.ADMIN,
    title="Install or uninstall areas",
    markers=Marker.HIGH_RISK,
    idempotent=True,
)
def manage_installed_apps(ctx: ToolContext, *, install: AreaKeys = [], uninstall: AreaKeys = []) -> AppsOut:  # noqa: B006
    """Install or uninstall areas (apps) of the workspace for everyone; uninstalling keeps the data.

    An uninstalled area's tools and pages are gone until it is installed again. Core areas stay."""
    if not install and not uninstall:
        raise NothingToChange()
    installed = services.workspace_set_areas(
        actor=cast(User, ctx.actor),
        install=[key.strip().lower() for key in install],
        uninstall=[key.strip().lower() for key in uninstall],
    )
    return _apps(installed)
