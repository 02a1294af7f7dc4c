"""MCP sessions. Workspace schema: a session id from one workspace is unknown in every other."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class McpSession(models.Model):
    """One Streamable HTTP session (SPEC 2.3, 3.4), bound to the person who opened it.

    The id a client holds is shown once, in the `Mcp-Session-Id` header of `initialize`; only its
    SHA-256 digest is stored (like tokens and keys). Any web process serves any session.
    """

    digest = models.CharField(max_length=64, primary_key=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="mcp_sessions")
    # Audit label of the credential that opened it ("oauth:12", "pat:3"); later requests may use
    # another credential of the same person (a refreshed token).
    credential = models.CharField(max_length=100, blank=True)
    client_name = models.CharField(_("client"), max_length=200, blank=True)
    client_version = models.CharField(max_length=100, blank=True)
    protocol_version = models.CharField(max_length=20)
    client_capabilities = models.JSONField(default=dict, blank=True)
    # What the catalogue keeps for the session (`SessionState`): mandatory first calls made,
    # confirmation tokens. Merged key by key, never rewritten whole.
    state = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # Set by `notifications/initialized` (SPEC 3.4: initialized -> ready).
    ready_at = models.DateTimeField(null=True, blank=True)
    last_seen_at = models.DateTimeField()
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("MCP session")
        indexes = [models.Index(fields=["user", "last_seen_at"]), models.Index(fields=["last_seen_at"])]

    def __str__(self) -> str:
        return f"{self.client_name or 'client'} ({self.digest[:8]})"
