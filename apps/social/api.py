"""Social posting, as the areas use it (Blog's shareBlogPost, Marketing's listSocialAccounts,
scheduleSocialPost and manageSocialPost): the workspace's connected accounts, a post now or at a
time, the posts an area made, and a scheduled one changed or cancelled. Who may call these is the
calling tool's permission; connecting accounts is the settings page's (the workspace's admins).

With no account connected, `accounts_or_refusal` and every call naming an account raise
`NoSocialAccount`, which says so plainly and where an administrator connects one."""

from datetime import datetime

from pydantic import Field

from apps.catalogue.shapes import Out
from apps.core.actors import Actor
from apps.social import services
from apps.social.errors import NoSocialAccount, SocialAccountNotFound, SocialPostNotFound
from apps.social.models import Network, SocialAccount, SocialPost

__all__ = [
    "AccountOut",
    "Network",
    "NoSocialAccount",
    "PostOut",
    "SocialAccount",
    "SocialPost",
    "account",
    "accounts",
    "accounts_or_refusal",
    "cancel",
    "check",
    "get_post",
    "post",
    "posts",
    "update",
]


class AccountOut(Out):
    id: int
    network: str
    handle: str
    server: str
    profile_url: str


class PostOut(Out):
    id: int
    account_id: int
    network: str
    text: str
    links: list[str]
    state: str = Field(description="scheduled, sending, sent, failed or cancelled")
    scheduled_at: datetime
    sent_at: datetime | None
    attempts: int
    reason: str = Field(description="Why it failed, or why the last try did")
    url: str = Field(description="The post on its network, once sent")

    @classmethod
    def of(cls, post: SocialPost) -> "PostOut":
        return cls(
            id=post.pk,
            account_id=post.account_id,
            network=post.account.network,
            text=post.text,
            links=list(post.links),
            state=post.state,
            scheduled_at=post.scheduled_at,
            sent_at=post.sent_at,
            attempts=post.attempts,
            reason=post.reason,
            url=post.remote_url,
        )


def accounts() -> list[SocialAccount]:
    """The connected accounts (none: an empty list)."""
    return list(SocialAccount.objects.filter(disconnected_at__isnull=True))


def accounts_or_refusal() -> list[SocialAccount]:
    found = accounts()
    if not found:
        raise NoSocialAccount()
    return found


def account(account_id: int) -> SocialAccount:
    """A connected account by id; NoSocialAccount when none is connected at all."""
    found = SocialAccount.objects.filter(pk=account_id, disconnected_at__isnull=True).first()
    if found is None:
        accounts_or_refusal()
        raise SocialAccountNotFound(id=account_id)
    return found


def check(*, account_id: int, text: str, links: list[str] | None = None, at: datetime | None = None) -> str:
    """What would be posted, once everything about it is right (for a tool's check before it asks for
    a confirmation): the account connected, the text within the network's limit, the time to come."""
    return services.post_check(account=account(account_id), text=text, links=list(links or []), at=at)


def post(
    *,
    actor: Actor | None,
    account_id: int,
    text: str,
    links: list[str] | None = None,
    at: datetime | None = None,
    source: str = "",
) -> SocialPost:
    """Posts now (`at` None: delivered before this answers) or schedules for `at` (delivered by the
    beat task). The answer's state says what happened: sent, failed with its reason, or scheduled
    (for `at`, or for a retry when the network was unavailable)."""
    made = services.post_create(
        actor=actor, account=account(account_id), text=text, links=links, at=at, source=source
    )
    if at is None:
        services.deliver(made.pk)
        made.refresh_from_db()
    return made


def posts(
    *, source: str = "", state: str = "", account_id: int | None = None, limit: int = 50
) -> list[SocialPost]:
    """The newest posts first; `source` a prefix of what made them ("blog:", "marketing:")."""
    rows = SocialPost.objects.select_related("account")
    if source:
        rows = rows.filter(source__startswith=source)
    if state:
        rows = rows.filter(state=state)
    if account_id is not None:
        rows = rows.filter(account_id=account_id)
    return list(rows.order_by("-scheduled_at", "-id")[: max(1, min(limit, 200))])


def get_post(post_id: int) -> SocialPost:
    found = SocialPost.objects.select_related("account").filter(pk=post_id).first()
    if found is None:
        raise SocialPostNotFound(id=post_id)
    return found


def update(post_id: int, *, text: str | None = None, at: datetime | None = None) -> SocialPost:
    """A scheduled post's text or time changed (SocialPostNotChangeable once it is out)."""
    return services.post_update(post=get_post(post_id), text=text, at=at)


def cancel(post_id: int) -> SocialPost:
    return services.post_cancel(post=get_post(post_id))
