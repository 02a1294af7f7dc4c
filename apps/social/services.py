"""Social posting's writes: accounts connected and disconnected (the workspace's administrators),
posts made, changed and cancelled, and the delivery of a due post (the beat task's, or at once for
a post "now").

Delivery claims a post (state "sending") in a short transaction, calls the network outside it, and
records the answer: sent (with the remote id and URL), failed with the network's reason on a 4xx,
or back to scheduled with a later try on a 5xx, a 429 or no answer (1, 2, 4... minutes, at most
`MAX_ATTEMPTS` tries). A post left "sending" by a stopped worker is claimed again after
`STALE_MINUTES`; every try carries the post's idempotency key, so none posts twice."""

import logging
from datetime import datetime, timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.accounts.permissions import WorkspacePerm
from apps.core import encryption
from apps.core.actors import Actor, require
from apps.core.errors import invalid
from apps.social import lib
from apps.social.errors import (
    SocialAccountNameTooLong,
    SocialAlreadyConnected,
    SocialPostNotChangeable,
    SocialProviderRefused,
    SocialProviderUnavailable,
    SocialTimePast,
)
from apps.social.models import Network, SocialAccount, SocialPost
from apps.social.providers.base import Login, check_length, checked_server
from apps.social.providers.base import Network as Adapter
from apps.social.providers.bluesky import BlueskyNetwork
from apps.social.providers.mastodon import MastodonNetwork

logger = logging.getLogger(__name__)

NETWORKS: dict[str, Adapter] = {Network.MASTODON: MastodonNetwork(), Network.BLUESKY: BlueskyNetwork()}
BLUESKY_SERVER = "https://bsky.social"
MAX_ATTEMPTS = 6
STALE_MINUTES = 10
# A time this far in the past still counts as "now" (a clock apart, a slow call).
PAST_GRACE = timedelta(minutes=1)
MAX_LINKS = 4
# The longest handle and remote id kept (SocialAccount.handle, remote_id).
IDENTITY_CHARS = 300


def adapter(account: SocialAccount) -> Adapter:
    return NETWORKS[account.network]


# --- accounts ----------------------------------------------------------------------------------


def account_connect(*, actor: Any, network: str, server: str, handle: str, secret: str) -> SocialAccount:
    """Checks the credential with the network, then keeps the account (its credential encrypted)."""
    require(actor, WorkspacePerm.MANAGE)
    if network not in NETWORKS:
        raise invalid("network", _("Choose Mastodon or Bluesky."))
    secret, handle = secret.strip(), handle.strip().lstrip("@")
    if not secret:
        raise invalid("secret", _("Give the account's access token (Mastodon) or app password (Bluesky)."))
    if network == Network.BLUESKY and not handle:
        raise invalid("handle", _("Give the Bluesky handle (name.bsky.social)."))
    server = checked_server(server.strip() or (BLUESKY_SERVER if network == Network.BLUESKY else ""))
    identity = NETWORKS[network].verify(Login(server=server, handle=handle, secret=secret))
    if max(len(identity.handle), len(identity.remote_id)) > IDENTITY_CHARS:
        raise SocialAccountNameTooLong(network=NETWORKS[network].label, count=IDENTITY_CHARS)
    try:
        with transaction.atomic():
            return SocialAccount.objects.create(
                network=network,
                server=server,
                handle=identity.handle,
                remote_id=identity.remote_id,
                profile_url=lib.web_link(identity.profile_url)[:500],
                credential_encrypted=encryption.encrypt(secret),
                connected_by=actor,
            )
    except IntegrityError as error:
        raise SocialAlreadyConnected(handle=identity.handle, network=NETWORKS[network].label) from error


def account_disconnect(*, actor: Actor, account: SocialAccount) -> int:
    """Forgets the credential; the account's scheduled posts fail ("disconnected"). Answers how many."""
    require(actor, WorkspacePerm.MANAGE)
    now = timezone.now()
    with transaction.atomic():
        account.credential_encrypted, account.disconnected_at = "", now
        account.save(update_fields=["credential_encrypted", "disconnected_at"])
        return SocialPost.objects.filter(account=account, state=SocialPost.State.SCHEDULED).update(
            state=SocialPost.State.FAILED,
            reason=_("The account was disconnected before it was sent."),
            updated_at=now,
        )


# --- posts -------------------------------------------------------------------------------------


def post_check(*, account: SocialAccount, text: str, links: list[str], at: datetime | None) -> str:
    """The text as it would be posted, once it fits the network and the time is to come."""
    if len(links) > MAX_LINKS:
        raise invalid("links", _("At most {count} links."), count=MAX_LINKS)
    for link in links:
        if not lib.is_link(link.strip()):
            raise invalid("links", _("“{link}” is not an http(s) link."), link=link[:200])
    posted = lib.compose(text, [link.strip() for link in links])
    check_length(adapter(account), posted)
    if at is not None and at < timezone.now() - PAST_GRACE:
        raise SocialTimePast(at=at.isoformat())
    return posted


def post_create(
    *,
    actor: Any,
    account: SocialAccount,
    text: str,
    links: list[str] | None = None,
    at: datetime | None = None,
    source: str = "",
) -> SocialPost:
    links = [link.strip() for link in links or []]
    post_check(account=account, text=text, links=links, at=at)
    when = at or timezone.now()
    return SocialPost.objects.create(
        account=account,
        text=text.strip(),
        links=links,
        scheduled_at=when,
        next_try_at=when,
        source=source[:100],
        author=actor,
    )


def post_update(*, post: SocialPost, text: str | None = None, at: datetime | None = None) -> SocialPost:
    with transaction.atomic():
        locked = SocialPost.objects.select_for_update().select_related("account").get(pk=post.pk)
        _changeable(locked)
        new_text = locked.text if text is None else text
        post_check(account=locked.account, text=new_text, links=locked.links, at=at)
        locked.text = new_text.strip()
        if at is not None:
            locked.scheduled_at = locked.next_try_at = at
        locked.save()
    return locked


def post_cancel(*, post: SocialPost) -> SocialPost:
    with transaction.atomic():
        locked = SocialPost.objects.select_for_update().get(pk=post.pk)
        _changeable(locked)
        locked.state = SocialPost.State.CANCELLED
        locked.save(update_fields=["state", "updated_at"])
    return locked


def _changeable(post: SocialPost) -> None:
    if post.state != SocialPost.State.SCHEDULED:
        raise SocialPostNotChangeable(id=post.pk, state=post.get_state_display())


# --- delivery ----------------------------------------------------------------------------------


def _due(now: datetime) -> Q:
    stale = now - timedelta(minutes=STALE_MINUTES)
    return Q(state=SocialPost.State.SCHEDULED, next_try_at__lte=now) | Q(
        state=SocialPost.State.SENDING, claimed_at__lt=stale
    )


def deliver_due(now: datetime | None = None) -> int:
    """Every due post of the current workspace, delivered (the beat task's). Answers how many went."""
    now = now or timezone.now()
    ids = list(
        SocialPost.objects.filter(_due(now)).order_by("next_try_at", "id").values_list("pk", flat=True)[:100]
    )
    return sum(deliver(pk, now=now) == SocialPost.State.SENT for pk in ids)


def deliver(post_id: int, *, now: datetime | None = None) -> str:
    """One post delivered if it is due and nobody else has it; answers its state afterwards."""
    now = now or timezone.now()
    with transaction.atomic():
        post = (
            SocialPost.objects.select_for_update(skip_locked=True, of=("self",))
            .select_related("account")
            .filter(_due(now), pk=post_id)
            .first()
        )
        if post is None:
            return SocialPost.objects.filter(pk=post_id).values_list("state", flat=True).first() or ""
        post.state, post.claimed_at, post.attempts = SocialPost.State.SENDING, now, post.attempts + 1
        post.save(update_fields=["state", "claimed_at", "attempts", "updated_at"])
    account = post.account
    try:
        if not account.connected:
            raise SocialProviderRefused(
                network=adapter(account).label, problem=_("the account is disconnected")
            )
        login = Login(
            server=account.server,
            handle=account.handle,
            secret=encryption.decrypt(account.credential_encrypted),
        )
        published = adapter(account).publish(
            login,
            text=lib.compose(post.text, post.links),
            key=str(post.idempotency_key),
            created_at=post.created_at.timestamp(),
        )
    except SocialProviderUnavailable as error:
        if post.attempts >= MAX_ATTEMPTS:
            _finish(post, state=SocialPost.State.FAILED, reason=str(error.message))
        else:
            later = timezone.now() + timedelta(minutes=2 ** (post.attempts - 1))
            _finish(post, state=SocialPost.State.SCHEDULED, reason=str(error.message), next_try_at=later)
        logger.warning("social post %s: try %s failed, %s", post.pk, post.attempts, error.code)
    except (SocialProviderRefused, encryption.DecryptionFailed) as error:
        reason = getattr(error, "message", "") or _(
            "The stored credential could not be read; connect the account again."
        )
        _finish(post, state=SocialPost.State.FAILED, reason=str(reason))
        logger.warning("social post %s failed", post.pk)
    else:
        _finish(
            post,
            state=SocialPost.State.SENT,
            reason="",
            remote_id=published.remote_id[:300],
            remote_url=lib.web_link(published.url)[:500],
            sent_at=timezone.now(),
        )
        logger.info("social post %s sent", post.pk)
    return post.state


def _finish(post: SocialPost, **values: object) -> None:
    for name, value in values.items():
        setattr(post, name, value)
    post.claimed_at = None
    post.save(update_fields=[*values, "claimed_at", "updated_at"])
