"""The audit log of tool calls. Workspace schema.

One row per `tools/call` (MCP or the gateway's agent): who, through which credential and client,
the API key it was metered to, which tool, the outcome and how long it took. Never the arguments or
the result: they may hold personal data (SPEC 10.3). Rows are written in batches (apps.catalogue.audit).
"""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class ToolCall(models.Model):
    class Outcome(models.TextChoices):
        OK = "ok", _("done")
        ERROR = "error", _("refused by the tool")
        INVALID_ARGUMENTS = "invalid_arguments", _("invalid arguments")
        FIRST_CALL_REQUIRED = "first_call_required", _("mandatory first call missing")
        CONFIRMATION_REQUIRED = "confirmation_required", _("waiting for confirmation")
        INPUT_REQUIRED = "input_required", _("waiting for the client's answers")
        DECLINED = "declined", _("declined by the user")
        CANCELLED = "cancelled", _("cancelled")
        FAILED = "failed", _("failed")
        NOT_FOUND = "not_found", _("unknown or not allowed")

    class Refusal(models.TextChoices):
        """Why a call was answered "unknown or not allowed". The caller is never told (the two are
        told apart nowhere it can see, SPEC 7.2): only this log, for the people who may read it."""

        UNKNOWN_TOOL = "unknown_tool", _("no tool of that name")
        AREA_NOT_INSTALLED = "area_not_installed", _("its area is not installed in the workspace")
        ROLE = "role", _("the person's role does not allow it")
        SCOPE = "scope", _("outside the credential's scope (read-only access)")
        NO_ROLE = "no_role", _("the person has no role here or is deactivated")

    at = models.DateTimeField(_("when"), db_index=True)
    # No database constraint: rows arrive in batches, and a person removed in between must not
    # make the whole batch fail. Django still sets it to null when the person is deleted.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        db_constraint=False,
        related_name="+",
        verbose_name=_("person"),
    )
    scheme = models.CharField(_("credential scheme"), max_length=20, blank=True)
    credential = models.CharField(_("credential"), max_length=64, blank=True)
    client = models.CharField(_("client"), max_length=200, blank=True)
    # The API key the call was metered to (MCP with an access token, the message gateway); the
    # key may since be renamed or deleted, so its id, not its label.
    api_key_id = models.BigIntegerField(_("API key"), null=True, blank=True)
    tool = models.CharField(_("tool"), max_length=100)
    outcome = models.CharField(_("outcome"), max_length=24, choices=Outcome.choices)
    error_code = models.CharField(_("error code"), max_length=64, blank=True)
    # For "not_found" only: why (Refusal). Blank for the other outcomes, and for rows written
    # before it was recorded.
    refusal = models.CharField(
        _("refusal"), max_length=24, choices=Refusal.choices, blank=True, db_default=""
    )
    duration_ms = models.FloatField(_("duration (ms)"))

    class Meta:
        ordering = ["-at", "-id"]
        verbose_name = _("tool call")
        indexes = [
            models.Index(fields=["tool", "-at"], name="catalogue_call_tool_at"),
            models.Index(fields=["user", "-at"], name="catalogue_call_user_at"),
            models.Index(fields=["outcome", "-at"], name="catalogue_call_outcome_at"),
            models.Index(fields=["api_key_id", "-at"], name="catalogue_call_key_at"),
        ]

    def __str__(self) -> str:
        return f"{self.tool} {self.outcome} at {self.at:%Y-%m-%d %H:%M:%S}"
