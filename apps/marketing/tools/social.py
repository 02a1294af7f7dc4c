"""Marketing's social posting: thin doors onto apps.social.api (the workspace's connected Mastodon
and Bluesky accounts). With no account connected each says so plainly, and where an administrator
connects one (Settings → Social accounts)."""

from datetime import datetime
from typing import Annotated, Literal

from django.utils.translation import gettext as _
from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import Marker, tool
from apps.catalogue.shapes import Out, aware, id_field
from apps.core.actors import require
from apps.core.errors import invalid
from apps.marketing.permissions import MarketingPerm
from apps.social import api as social
from apps.social.errors import SocialPostNotFound

SOURCE = "marketing:"
AccountId = Annotated[int, id_field("listSocialAccounts")]
Text = Annotated[
    str, Field(min_length=1, max_length=3000, description="Mastodon: 500 characters; Bluesky: 300 graphemes")
]
Links = Annotated[list[str], Field(max_length=4, description="URLs, each on a line after the text")]


class AccountsOut(Out):
    accounts: list[social.AccountOut]
    scheduled: list[social.PostOut] = Field(description="Marketing's posts still to go, soonest first")
    message: str


@tool("listSocialAccounts", permission=MarketingPerm.VIEW, title="List social accounts", read_only=True)
def list_social_accounts(ctx: ToolContext) -> AccountsOut:
    """The workspace's connected Mastodon and Bluesky accounts, and Marketing's scheduled posts."""
    found = social.accounts()
    waiting = sorted(
        social.posts(source=SOURCE, state=social.SocialPost.State.SCHEDULED, limit=50),
        key=lambda post: post.scheduled_at,
    )
    return AccountsOut(
        accounts=[social.AccountOut.model_validate(account) for account in found],
        scheduled=[social.PostOut.of(post) for post in waiting],
        message=""
        if found
        else _(
            "No social account is connected to this workspace: an administrator connects Mastodon or "
            "Bluesky in Settings → Social accounts."
        ),
    )


def _postable(
    ctx: ToolContext,
    *,
    account_id: int,
    text: str,
    links: list[str] | None = None,
    at: datetime | None = None,
) -> bool:
    """The account connected, the text within the network's limit, the time to come: all checked
    before the person is asked."""
    social.check(account_id=account_id, text=text, links=links, at=aware(at))
    return True


class PostedOut(Out):
    post: social.PostOut
    message: str


def _said(made: social.SocialPost) -> str:
    where = str(made.account)
    if made.state == social.SocialPost.State.SENT:
        return _("Posted to {account}: {url}").format(account=where, url=made.remote_url)
    if made.state == social.SocialPost.State.FAILED:
        return _("Not posted to {account}: {reason}").format(account=where, reason=made.reason)
    if made.state == social.SocialPost.State.CANCELLED:
        return _("Cancelled: it will not be posted to {account}.").format(account=where)
    if made.attempts:
        return _("Not posted yet: {reason} The service tries again on its own.").format(reason=made.reason)
    return _("Scheduled for {account} at {at}: the service posts it then.").format(
        account=where, at=made.scheduled_at.isoformat()
    )


@tool(
    "scheduleSocialPost",
    permission=MarketingPerm.LAUNCH,
    title="Schedule a social post",
    markers=Marker.HIGH_RISK,
    confirm_if=_postable,
    open_world=True,
)
def schedule_social_post(
    ctx: ToolContext,
    *,
    account_id: AccountId,
    text: Text,
    links: Links | None = None,
    at: Annotated[datetime | None, Field(description="Post at this time; default: now")] = None,
) -> PostedOut:
    """Post to a connected Mastodon or Bluesky account now, or at a time (posted then, on its own)."""
    made = social.post(
        actor=ctx.actor, account_id=account_id, text=text, links=links, at=aware(at), source=SOURCE + "post"
    )
    return PostedOut(post=social.PostOut.of(made), message=_said(made))


def _marketing_post(post_id: int) -> social.SocialPost:
    found = social.get_post(post_id)
    if not found.source.startswith(SOURCE):
        # Another area's post (a shared blog post) is that area's to change.
        raise SocialPostNotFound(id=post_id)
    return found


# The arguments each action of manageSocialPost takes besides the post.
TAKES = {"reschedule": ("at",), "edit": ("text",)}


@tool("manageSocialPost", permission=MarketingPerm.VIEW, title="Manage a social post", open_world=True)
def manage_social_post(
    ctx: ToolContext,
    *,
    post_id: Annotated[int, id_field("listSocialAccounts")],
    action: Annotated[
        Literal["status", "reschedule", "edit", "cancel"],
        Field(description="reschedule, edit, cancel: while scheduled"),
    ],
    at: Annotated[datetime | None, Field(description="reschedule: the new time")] = None,
    text: Annotated[str | None, Field(max_length=3000, description="edit: the new text")] = None,
) -> PostedOut:
    """A Marketing social post's status, or while scheduled: reschedule it, edit its text, cancel it."""
    takes = TAKES.get(action, ())
    for name, given in (("at", at), ("text", text)):
        if given is not None and name not in takes:
            # Dropped, it would read as done: an edit's new time, a reschedule's new text.
            raise invalid(
                name, _("{action} does not take it: reschedule takes at, edit takes text"), action=action
            )
    found = _marketing_post(post_id)
    if action != "status":
        require(ctx.actor, MarketingPerm.LAUNCH)
    if action == "reschedule":
        if at is None:
            raise invalid("at", _("reschedule needs the new time"))
        found = social.update(found.pk, at=aware(at))
    elif action == "edit":
        if not (text or "").strip():
            raise invalid("text", _("edit needs the new text"))
        found = social.update(found.pk, text=text)
    elif action == "cancel":
        found = social.cancel(found.pk)
    return PostedOut(post=social.PostOut.of(found), message=_said(found))
