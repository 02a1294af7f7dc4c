"""MCP sessions. Workspace schema: a session id from one workspace is unknown in every other."""

from django.conf import settings
from django.db import models
from django.db.models import JSONField, Value
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


class SecureInput(models.Model):
    """A value a person entered on a page of ours for a tool that needed it outside the
    conversation (apps.mcp.secure_input): a password, a credential. Kept encrypted (Fernet,
    apps.core.encryption) only until the tool takes it, at most MCP_SECURE_INPUT_SECONDS; the tool
    then keeps it in its own store, encrypted too."""

    # The URL-mode elicitation it answers (elicitation/create's elicitationId).
    elicitation_id = models.CharField(max_length=64, unique=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    # What it is for, in the asking area's words ("calendars.feed:<key>"), never the value.
    purpose = models.CharField(_("purpose"), max_length=200)
    value_encrypted = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()

    class Meta:
        verbose_name = _("secure input")
        indexes = [models.Index(fields=["user", "purpose"]), models.Index(fields=["expires_at"])]

    def __str__(self) -> str:
        return f"{self.purpose} ({self.elicitation_id[:8]})"


class McpTask(models.Model):
    """A tool call run as a task (apps.mcp.jobs): one a 2025-11-25 client asked for, or one the
    server chose for a 2026-07-28 client that declared the tasks extension. It runs on a Celery
    worker; the client polls `tasks/get` (and fetches `tasks/result` under 2025-11-25). Only the
    person and the credential that made it see it; it is dropped `ttl_ms` after it was made."""

    class Status(models.TextChoices):
        WORKING = "working", _("working")
        INPUT_REQUIRED = "input_required", _("waiting for input")
        COMPLETED = "completed", _("completed")
        FAILED = "failed", _("failed")
        CANCELLED = "cancelled", _("cancelled")

    task_id = models.CharField(max_length=64, primary_key=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    # The credential's audit label ("oauth:12", "pat:3"): another credential of the same person
    # does not see the task.
    credential = models.CharField(max_length=100)
    # What the worker needs to act as that credential did (apps.core.credentials.Principal).
    scheme = models.CharField(max_length=20)
    scopes = models.JSONField(default=list)
    client = models.CharField(max_length=200, blank=True)
    api_key_id = models.BigIntegerField(null=True, blank=True)
    profile = models.CharField(max_length=100, blank=True)
    # The session it was made in: its status notifications go to that session's stream.
    session_digest = models.CharField(max_length=64, blank=True)
    # The origin the client reached (the workspace's host): links the tool gives start with it.
    origin = models.CharField(max_length=300, blank=True)
    tool = models.CharField(_("tool"), max_length=100)
    arguments = models.JSONField(default=dict)
    # The protocol revision it was made under: how it is written on the wire (2025-11-25's Task, or
    # the 2026-07-28 extension's DetailedTask) and how a tool error ends it.
    revision = models.CharField(max_length=20, default="2025-11-25", db_default="2025-11-25")
    # What the client declared it can be asked (`elicitation`): the worker asks only that.
    client_capabilities = models.JSONField(default=dict, blank=True, db_default=Value({}, JSONField()))
    status = models.CharField(_("status"), max_length=20, choices=Status.choices, default=Status.WORKING)
    status_message = models.TextField(blank=True)
    # What the running tool asks the client and waits for (status input_required), by key: each an
    # `{"method": "elicitation/create", "params": ...}`; and the answers delivered, by key, until
    # the worker takes them. A key is never used twice in a task's life.
    input_requests = models.JSONField(default=dict, blank=True, db_default=Value({}, JSONField()))
    input_responses = models.JSONField(default=dict, blank=True, db_default=Value({}, JSONField()))
    # The CallToolResult once it has one; the JSON-RPC error of a run that failed on the server.
    result = models.JSONField(null=True, blank=True)
    error = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField()
    updated_at = models.DateTimeField()
    ttl_ms = models.PositiveBigIntegerField()
    poll_interval_ms = models.PositiveIntegerField()
    expires_at = models.DateTimeField()

    class Meta:
        verbose_name = _("MCP task")
        indexes = [
            models.Index(fields=["user", "credential", "-created_at"]),
            models.Index(fields=["expires_at"]),
        ]

    def __str__(self) -> str:
        return f"{self.tool} {self.status} ({self.task_id[:8]})"
