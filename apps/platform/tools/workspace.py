"""The workspace as any member reads it: who they are, what the workspace holds that they may see,
its people and its roles."""

from datetime import datetime
from typing import Annotated, cast

from django.db.models import Q
from django.utils import timezone
from pydantic import Field

from apps.accounts import selectors as people
from apps.accounts.access import effective_permissions
from apps.accounts.models import Role, User
from apps.accounts.permissions import PeoplePerm, RolesPerm
from apps.catalogue.dispatch import ToolContext
from apps.catalogue.policy import first_call_tool
from apps.catalogue.registry import tool
from apps.catalogue.shapes import Limit, Offset, Out, Page, paginate
from apps.core import permissions
from apps.core.actors import can
from apps.core.kinds import finding, kinds
from apps.core.workspaces import current_workspace
from apps.platform.permissions import PlatformPerm


class RoleRef(Out):
    key: str
    name: str


class AreaAccessOut(Out):
    area: str
    title: str
    actions: list[str] = Field(description="What you may do there: view, edit, delete, admin...")


def _access(codes: frozenset[str]) -> list[AreaAccessOut]:
    by_area: dict[str, list[str]] = {}
    for code in sorted(codes):
        area, _dot, action = code.partition(".")
        by_area.setdefault(area, []).append(action)
    return [
        AreaAccessOut(area=area, title=str(permissions.area_title(area)), actions=actions)
        for area, actions in sorted(by_area.items())
    ]


def _role(user: User) -> RoleRef | None:
    return RoleRef(key=user.role.key, name=user.role.name) if user.role else None


class ProfileOut(Out):
    name: str
    email: str
    role: RoleRef | None
    time_zone: str = Field(description="Yours, or the workspace's when you chose none")
    joined_at: datetime
    access: list[AreaAccessOut]


@tool("getMyProfile", permission=PlatformPerm.VIEW, title="Who am I", read_only=True)
def get_my_profile(ctx: ToolContext) -> ProfileOut:
    """Your own account: name, role, time zone, and what your role lets you do in each area.

    The workspace itself: getWorkspaceSummary."""
    user = User.objects.select_related("role").get(pk=ctx.actor.pk)
    workspace = current_workspace()
    return ProfileOut(
        name=user.get_full_name(),
        email=user.email,
        role=_role(user),
        time_zone=user.time_zone or (workspace.time_zone if workspace else "UTC"),
        joined_at=user.date_joined,
        access=_access(effective_permissions(user, workspace)),
    )


class KindCountOut(Out):
    kind: str = Field(description="An entityType, as searchWorkspace and links take it")
    label: str
    count: int


class AreaSummaryOut(Out):
    key: str
    title: str
    first_call: str | None
    records: list[KindCountOut]


class WorkspaceSummaryOut(Out):
    name: str
    brand_name: str
    time_zone: str
    server_time: datetime
    your_role: RoleRef | None
    people: int | None = Field(description="Active people; null: your role may not see who is here")
    areas: list[AreaSummaryOut] = Field(description="The installed areas you may use, with what you may see")


@tool("getWorkspaceSummary", permission=PlatformPerm.VIEW, title="Workspace summary", read_only=True)
def get_workspace_summary(ctx: ToolContext) -> WorkspaceSummaryOut:
    """Summarise the workspace: its areas you may use, how many records of each you may see, your role.

    Yourself: getMyProfile. Finding records by words: searchWorkspace."""
    workspace = current_workspace()
    user = User.objects.select_related("role").get(pk=ctx.actor.pk)
    codes = effective_permissions(user, workspace)
    usable = sorted({code.partition(".")[0] for code in codes})
    by_area: dict[str, list[KindCountOut]] = {}
    for kind in kinds():
        if kind.area in usable and finding.may_search(ctx.actor, kind):
            model = kind.model_class
            count = model.objects.restrict(ctx.actor, "view").count()  # type: ignore[attr-defined]
            label = str(kind.named or model._meta.verbose_name_plural)
            by_area.setdefault(kind.area, []).append(KindCountOut(kind=kind.key, label=label, count=count))
    areas = []
    for key in usable:
        area = permissions.get_area(key)
        if area is None:
            continue
        first = first_call_tool(key)
        areas.append(
            AreaSummaryOut(
                key=key,
                title=str(area.title),
                first_call=first.name if first is not None else None,
                records=by_area.get(key, []),
            )
        )
    return WorkspaceSummaryOut(
        name=workspace.name if workspace else "",
        brand_name=workspace.brand_name if workspace else "",
        time_zone=workspace.time_zone if workspace else "UTC",
        server_time=timezone.now(),
        your_role=_role(user),
        people=people.workspace_people().count() if can(ctx.actor, PeoplePerm.VIEW) else None,
        areas=areas,
    )


class PersonOut(Out):
    id: int
    name: str
    email: str | None = Field(description="null: your role may not see people's addresses")
    role: RoleRef | None
    active: bool
    joined_at: datetime


@tool("listWorkspaceUsers", permission=PlatformPerm.VIEW, title="People of the workspace", read_only=True)
def list_workspace_users(
    ctx: ToolContext,
    *,
    query: Annotated[str, Field(max_length=200, description="Words in a name or e-mail address")] = "",
    role: Annotated[str | None, Field(max_length=64, description="A role's key, from listRoles")] = None,
    include_inactive: Annotated[
        bool, Field(description="Also deactivated people (admins of people only)")
    ] = False,
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[PersonOut]:
    """List the people of the workspace with their roles; only yourself if your role may not see people.

    Their permissions per role: listRoles."""
    sees_people = can(ctx.actor, PeoplePerm.VIEW)
    me = cast(User, ctx.actor)
    rows = people.user_list(actor=me) if sees_people else User.objects.filter(pk=me.pk)
    rows = rows.select_related("role")
    if not (include_inactive and can(ctx.actor, PeoplePerm.MANAGE)):
        rows = rows.filter(is_active=True)
    if role:
        rows = rows.filter(role__key=role.strip().lower())
    for word in query.split():
        rows = rows.filter(Q(full_name__icontains=word) | Q(email__icontains=word))

    def item(user: User) -> PersonOut:
        return PersonOut(
            id=user.pk,
            name=user.get_full_name(),
            email=user.email if sees_people or user.pk == ctx.actor.pk else None,
            role=_role(user),
            active=user.is_active,
            joined_at=user.date_joined,
        )

    return paginate(rows.order_by("full_name", "email"), limit=limit, offset=offset, item=item)


class RoleOut(Out):
    key: str
    name: str
    description: str
    built_in: bool
    people: int
    permissions: list[str] = Field(description="<area>.<action> codes")


class RolesOut(Out):
    roles: list[RoleOut]


@tool("listRoles", permission=PlatformPerm.VIEW, title="Roles and permissions", read_only=True)
def list_roles(ctx: ToolContext) -> RolesOut:
    """List the workspace's roles with their permissions; only your own if your role may not see roles.

    Who has which role: listWorkspaceUsers."""
    if can(ctx.actor, RolesPerm.VIEW):
        rows = list(people.role_list(actor=cast(User, ctx.actor)))
    else:
        rows = [role for role in [Role.objects.filter(users=ctx.actor.pk).first()] if role is not None]
    return RolesOut(
        roles=[
            RoleOut(
                key=role.key,
                name=role.name,
                description=role.description,
                built_in=role.is_system,
                people=role.users.filter(is_active=True).count(),
                permissions=role.permission_list,
            )
            for role in rows
        ]
    )
