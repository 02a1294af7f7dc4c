"""The client portal's tools (apps.platform.portal, docs/portal.md): its users, inviting a contact,
approving a request, revoking, and its summary. Owners and admins (platform.portal) invite,
approve and revoke; members (platform.portal_request) see the portal's users and ask for a contact
to be invited, which an admin approves."""

from datetime import datetime
from typing import Annotated, Literal, cast

from django.db.models import Q
from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import Marker, tool
from apps.catalogue.shapes import Limit, Offset, Out, Page, id_field, paginate
from apps.core import clean
from apps.platform import portal
from apps.platform.models import PortalUser
from apps.platform.permissions import PlatformPerm
from apps.tenancy import links

PortalUserId = Annotated[int, id_field("listPortalUsers")]
StateName = Literal["requested", "invited", "active", "revoked"]


class PortalContactOut(Out):
    id: int
    name: str


class PortalUserOut(Out):
    id: int
    name: str
    email: str
    state: StateName = Field(
        description="requested: waits for approvePortalUser; invited: no password chosen yet; active; revoked"
    )
    contact: PortalContactOut | None = Field(description="The contact it was made for; null once deleted")
    shared_items: int = Field(description="Documents and files shared with them (shareDocument, shareFile)")
    asked_by_themselves: bool = Field(description="Asked for on the portal's sign-up page")
    asked_at: datetime
    approved_at: datetime | None
    revoked_at: datetime | None
    last_sign_in_at: datetime | None


def _out(row: PortalUser) -> PortalUserOut:
    user = row.user
    return PortalUserOut(
        id=row.pk,
        name=user.get_full_name(),
        email=user.email,
        state=cast(StateName, str(row.state)),
        contact=PortalContactOut(id=row.contact.pk, name=row.contact.display_name) if row.contact else None,
        shared_items=portal.shared_count(user),
        asked_by_themselves=row.asked_by_themselves,
        asked_at=row.created_at,
        approved_at=row.approved_at,
        revoked_at=row.revoked_at,
        last_sign_in_at=user.last_login,
    )


@tool("listPortalUsers", permission=PlatformPerm.PORTAL_REQUEST, title="Client portal users", read_only=True)
def list_portal_users(
    ctx: ToolContext,
    *,
    state: Annotated[StateName | None, Field(description="Only those in this state")] = None,
    query: Annotated[str, Field(max_length=200, description="Words in a name or e-mail address")] = "",
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[PortalUserOut]:
    """List the client portal's external users (contacts given a sign-in) and their state.

    Invite a contact: invitePortalUser. Share a document with one: shareDocument with their e-mail."""
    rows = portal.portal_users(actor=ctx.actor, state=state)
    # Each word in the name or the address: one condition per word (at most ten words).
    for word in query.split()[:10]:
        rows = rows.filter(Q(user__full_name__icontains=word) | Q(user__email__icontains=word))
    return paginate(rows.order_by("-created_at", "-pk"), limit=limit, offset=offset, item=_out)


class PortalUserChangeOut(Out):
    changed: bool = Field(description="false: it was so already")
    portal_user: PortalUserOut


@tool(
    "invitePortalUser",
    permission=PlatformPerm.PORTAL_REQUEST,
    title="Invite a contact to the client portal",
    markers=Marker.HIGH_RISK,
)
def invite_portal_user(
    ctx: ToolContext,
    *,
    contact_id: Annotated[int, id_field("listContacts")],
    email: Annotated[str, Field(max_length=254, description="Else the contact's own address")] = "",
    full_name: Annotated[str, Field(max_length=150, description="Else the contact's name")] = "",
) -> PortalUserChangeOut:
    """Invite a contact to the client portal: they get an e-mailed link to choose a password.

    They see only documents and files shared with them. A member's invitation waits for an admin's
    approvePortalUser."""
    row = portal.invite(
        actor=ctx.actor,
        contact_id=contact_id,
        email=clean.email(email, field="email") or None,
        full_name=clean.text(full_name, field="fullName", limit=150),
        origin=links.site_origin(),
    )
    return PortalUserChangeOut(changed=True, portal_user=_out(row))


@tool(
    "approvePortalUser",
    permission=PlatformPerm.PORTAL,
    title="Approve a client portal request",
    markers=Marker.HIGH_RISK,
    idempotent=True,
)
def approve_portal_user(ctx: ToolContext, *, portal_user_id: PortalUserId) -> PortalUserChangeOut:
    """Approve a requested client portal user: their invitation e-mail goes out.

    Requests: listPortalUsers with state "requested"."""
    row, changed = portal.approve(actor=ctx.actor, portal_user_id=portal_user_id, origin=links.site_origin())
    return PortalUserChangeOut(changed=changed, portal_user=_out(row))


@tool(
    "revokePortalUser",
    permission=PlatformPerm.PORTAL,
    title="Revoke a client portal user",
    markers=Marker.DESTRUCTIVE,
    idempotent=True,
)
def revoke_portal_user(ctx: ToolContext, *, portal_user_id: PortalUserId) -> PortalUserChangeOut:
    """Revoke a client portal user's access: they are signed out everywhere at once.

    Their contact and what was shared stay."""
    row, changed = portal.revoke(actor=ctx.actor, portal_user_id=portal_user_id)
    return PortalUserChangeOut(changed=changed, portal_user=_out(row))


class PortalSignInOut(Out):
    id: int
    name: str
    signed_in_at: datetime


class PortalSummaryOut(Out):
    requested: int
    invited: int
    active: int
    revoked: int
    shared_documents: int = Field(description="Documents shared with portal users not revoked")
    shared_files: int = Field(description="Files shared with portal users not revoked")
    last_sign_ins: list[PortalSignInOut] = Field(description="The most recent first")


@tool(
    "getPortalSummary", permission=PlatformPerm.PORTAL_REQUEST, title="Client portal summary", read_only=True
)
def get_portal_summary(ctx: ToolContext) -> PortalSummaryOut:
    """Summarise the client portal: its users by state, what is shared with them, recent sign-ins.

    The users themselves: listPortalUsers."""
    found = portal.summary(actor=ctx.actor)
    return PortalSummaryOut(
        requested=found.by_state["requested"],
        invited=found.by_state["invited"],
        active=found.by_state["active"],
        revoked=found.by_state["revoked"],
        shared_documents=found.shared_documents,
        shared_files=found.shared_files,
        last_sign_ins=[
            PortalSignInOut(
                id=row.pk, name=row.user.get_full_name(), signed_in_at=cast(datetime, row.user.last_login)
            )
            for row in found.last_sign_ins
        ],
    )
