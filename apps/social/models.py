"""The workspace's connected social accounts and the posts sent through them. Workspace schema.

A `SocialAccount` is one account on one server: a Mastodon instance with an access token, or a
Bluesky (AT Protocol) PDS with a handle and an app password. Its credential is Fernet-encrypted
(apps.core.encryption) and never shown, logged or copied; disconnecting clears it and keeps the
row, so the posts sent through it still say where they went.

A `SocialPost` is one post to one account: its text and links, the time it is due, and its state
(scheduled, sending, sent, failed with a reason), with the remote id and URL once sent. Its
`idempotency_key` goes with every try (Mastodon's Idempotency-Key header, Bluesky's record key),
so a retry after a lost answer never posts twice.
"""

import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

USER = settings.AUTH_USER_MODEL


class Network(models.TextChoices):
    MASTODON = "mastodon", _("Mastodon")
    BLUESKY = "bluesky", _("Bluesky")


class SocialAccount(models.Model):
    network = models.CharField(_("network"), max_length=16, choices=Network.choices)
    # The server's base URL: a Mastodon instance, or a Bluesky PDS (https://bsky.social).
    server = models.URLField(_("server"), max_length=300)
    # @name@instance on Mastodon, name.bsky.social on Bluesky: as the server answered it.
    handle = models.CharField(_("handle"), max_length=300)
    # The account's id on its server (Mastodon's account id, Bluesky's DID).
    remote_id = models.CharField(_("remote id"), max_length=300, blank=True)
    profile_url = models.URLField(_("profile URL"), max_length=500, blank=True)
    # Fernet-encrypted (apps.core.encryption); empty once disconnected. Never returned, logged or copied.
    credential_encrypted = models.TextField(blank=True)
    connected_by = models.ForeignKey(
        USER,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("connected by"),
    )
    connected_at = models.DateTimeField(_("connected at"), default=timezone.now)
    disconnected_at = models.DateTimeField(_("disconnected at"), null=True, blank=True)

    class Meta:
        ordering = ["network", "handle", "id"]
        verbose_name = _("social account")
        verbose_name_plural = _("social accounts")
        constraints = [
            models.UniqueConstraint(
                fields=["network", "server", "handle"],
                condition=Q(disconnected_at__isnull=True),
                name="social_account_connected_once",
            )
        ]

    def __str__(self) -> str:
        return f"{self.get_network_display()} {self.handle}"

    @property
    def connected(self) -> bool:
        return self.disconnected_at is None


class SocialPost(models.Model):
    class State(models.TextChoices):
        SCHEDULED = "scheduled", _("scheduled")
        SENDING = "sending", _("sending")
        SENT = "sent", _("sent")
        FAILED = "failed", _("failed")
        CANCELLED = "cancelled", _("cancelled")

    account = models.ForeignKey(
        SocialAccount, on_delete=models.PROTECT, related_name="posts", verbose_name=_("account")
    )
    text = models.TextField(_("text"))
    links = models.JSONField(_("links"), default=list, blank=True)
    # When the person wants it out; `next_try_at` is when the next try is due (later after a retry).
    scheduled_at = models.DateTimeField(_("scheduled at"), default=timezone.now)
    next_try_at = models.DateTimeField(_("next try at"), default=timezone.now)
    state = models.CharField(_("state"), max_length=16, choices=State.choices, default=State.SCHEDULED)
    attempts = models.PositiveSmallIntegerField(_("attempts"), default=0)
    # When a delivery took it (state "sending"); one left there by a stopped worker is taken again.
    claimed_at = models.DateTimeField(null=True, blank=True)
    reason = models.TextField(_("reason"), blank=True)
    remote_id = models.CharField(_("remote id"), max_length=300, blank=True)
    remote_url = models.URLField(_("remote URL"), max_length=500, blank=True)
    sent_at = models.DateTimeField(_("sent at"), null=True, blank=True)
    idempotency_key = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    # What asked for it ("blog:12", "marketing:content:3"), for the page and the caller's look-ups.
    source = models.CharField(_("source"), max_length=100, blank=True)
    author = models.ForeignKey(
        USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+", verbose_name=_("author")
    )
    created_at = models.DateTimeField(_("created at"), default=timezone.now)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        ordering = ["-scheduled_at", "-id"]
        verbose_name = _("social post")
        verbose_name_plural = _("social posts")
        indexes = [models.Index(fields=["state", "next_try_at"], name="social_post_due")]

    def __str__(self) -> str:
        return f"{self.account} {self.scheduled_at:%Y-%m-%d %H:%M}"
