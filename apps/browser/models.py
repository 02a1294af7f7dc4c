"""The Agent Browser Tab's records: each headless browser session a person's agent opened
(BrowserSession: its own Chromium and profile, on the server that started it) and what was done in
it (BrowserAction)."""

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apps.browser.permissions import BrowserPerm
from apps.core.records import Access, RecordQuerySet


class BrowserSession(models.Model):
    """A browser the service runs for one person: opened by startBrowserSession, driven by the
    other tools through `handle` (minted here, checked against the caller on every call), ended
    when idle for ATRIUM_BROWSER_IDLE_SECONDS, past ATRIUM_BROWSER_LIFETIME_SECONDS or by a person."""

    # Its owner's alone: a session carries their sign-ins; the area's admins see and end every one.
    access = Access(
        BrowserPerm,
        visibility="owner",
        owner="owner",
        manage=BrowserPerm.USE,
        label=_("Browser session"),
    )

    class Status(models.TextChoices):
        OPEN = "open", _("open")
        ENDED = "ended", _("ended")

    handle = models.CharField(max_length=64, unique=True)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    # Where its Chromium runs: the server (host name), the process and its DevTools port, its profile.
    host = models.CharField(max_length=255)
    pid = models.PositiveIntegerField(default=0)
    port = models.PositiveIntegerField(default=0)
    profile = models.CharField(max_length=500, blank=True)
    url = models.CharField(_("address"), max_length=2000, blank=True)
    title = models.CharField(_("title"), max_length=300, blank=True)
    # The last examination's number and its element refs ({ref: {"role", "name", "submits"}}): a
    # ref is good only for the snapshot that gave it.
    snapshot = models.PositiveIntegerField(default=0)
    refs = models.JSONField(default=dict, blank=True)
    started_at = models.DateTimeField(default=timezone.now)
    last_used_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()
    ended_at = models.DateTimeField(null=True, blank=True)
    ended_why = models.CharField(max_length=200, blank=True)

    objects = RecordQuerySet.as_manager()

    class Meta:
        indexes = [models.Index(fields=["status", "host"], name="browser_session_open")]

    def __str__(self) -> str:
        return f"browser session {self.pk} ({self.status})"


class BrowserAction(models.Model):
    """One call in a session that answered: where it went, what it did (the values typed are never
    kept; a refused call is in the log of tool calls)."""

    access = Access(
        BrowserPerm,
        visibility="owner",
        owner="created_by",
        manage=BrowserPerm.USE,
        label=_("Browser action"),
    )

    class Kind(models.TextChoices):
        START = "start", _("opened")
        NAVIGATE = "navigate", _("went to")
        EXAMINE = "examine", _("examined")
        EXTRACT = "extract", _("read")
        INTERACT = "interact", _("acted")
        END = "end", _("ended")

    session = models.ForeignKey(BrowserSession, on_delete=models.CASCADE, related_name="actions")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    detail = models.CharField(_("what"), max_length=500, blank=True)
    url = models.CharField(_("address"), max_length=2000, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)

    objects = RecordQuerySet.as_manager()

    class Meta:
        indexes = [models.Index(fields=["session", "created_at"], name="browser_action_at")]

    def __str__(self) -> str:
        return f"{self.kind} {self.detail}"
