"""MCP Gateway: the outside MCP servers the workspace connects to as a client, the tools each
listed (a cache, refreshed on its time to live), and the log of calls. Workspace schema.

A server is registered by an administrator, with its credential (a vault item, resolved server side
for that server alone, or none) and who may use it (everyone of the area, or the people of its
`roles`). What a
server says (its tools' names, descriptions, annotations and results) is data from outside,
never instructions, and is answered labelled with where it came from.
"""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from apps.core.records import Access, Record, RecordQuerySet, name_once
from apps.mcpgateway.permissions import McpGatewayPerm

USER = settings.AUTH_USER_MODEL


class ExternalServer(Record):
    class Status(models.TextChoices):
        UNKNOWN = "unknown", _("not reached yet")
        OK = "ok", _("answering")
        FAILING = "failing", _("failing")

    access = Access(
        McpGatewayPerm,
        # Who may use it: everyone of the area ("workspace"), or the people of its `roles` ("private").
        owner="created_by",
        also="roles__users",
        manage=McpGatewayPerm.ADMIN,
        label=_("MCP server"),
        find_with="mcpListServers",
        trash_state=_("removed"),
    )

    # The prefix of its tools' names (server__tool): lower-case letters, digits and single hyphens.
    name = models.CharField(_("name"), max_length=40)
    title = models.CharField(_("title"), max_length=120, blank=True)
    url = models.URLField(_("URL"), max_length=2000)
    description = models.CharField(_("description"), max_length=500, blank=True)
    credential = models.ForeignKey(
        "vaults.VaultItem", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # The header the credential is sent in, and its scheme ("Bearer": "Authorization: Bearer <key>").
    auth_header = models.CharField(_("header"), max_length=60, default="Authorization")
    auth_scheme = models.CharField(_("scheme"), max_length=30, default="Bearer", blank=True)
    visibility = models.CharField(
        _("who may use it"),
        max_length=10,
        choices=[("workspace", _("everyone")), ("private", _("the roles named"))],
        default="workspace",
    )
    roles = models.ManyToManyField("accounts.Role", blank=True, related_name="+")
    # Trusted: its read-only annotations are believed (a read-only tool is called without a
    # confirmation); otherwise every call is confirmed.
    trusted = models.BooleanField(_("trusted annotations"), default=False)
    enabled = models.BooleanField(_("on"), default=True)
    allowed_tools = models.JSONField(_("allowed tools"), default=list, blank=True)
    denied_tools = models.JSONField(_("denied tools"), default=list, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.UNKNOWN)
    protocol_version = models.CharField(max_length=20, blank=True)
    server_name = models.CharField(max_length=200, blank=True)
    last_error = models.CharField(max_length=500, blank=True)
    last_checked_at = models.DateTimeField(null=True, blank=True)
    tools_fetched_at = models.DateTimeField(null=True, blank=True)
    tools_expire_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["name", "id"]
        verbose_name = _("MCP server")
        verbose_name_plural = _("MCP servers")
        constraints = [name_once("mcpgateway_server_name_once")]

    def __str__(self) -> str:
        return self.title or self.name

    def allows(self, tool: str) -> bool:
        if tool in self.denied_tools:
            return False
        return not self.allowed_tools or tool in self.allowed_tools


class DiscoveredTool(models.Model):
    """A tool a server listed, as it described it (untrusted), kept until `tools_expire_at`."""

    access = Access(McpGatewayPerm, through="server", label=_("MCP tool"), find_with="mcpDiscoverTools")

    server = models.ForeignKey(ExternalServer, on_delete=models.CASCADE, related_name="tools")
    name = models.CharField(max_length=128)
    title = models.CharField(max_length=200, blank=True)
    description = models.TextField(blank=True)
    input_schema = models.JSONField(default=dict)
    annotations = models.JSONField(default=dict)

    objects = RecordQuerySet.as_manager()

    class Meta:
        ordering = ["server", "name"]
        constraints = [models.UniqueConstraint(fields=["server", "name"], name="mcpgateway_tool_once")]

    def __str__(self) -> str:
        return self.name

    @property
    def read_only(self) -> bool:
        return bool(self.annotations.get("readOnlyHint"))

    @property
    def destructive(self) -> bool:
        # The MCP default for a tool that is not read-only: destructive unless it says otherwise.
        return not self.read_only and self.annotations.get("destructiveHint", True) is not False


class ServerCall(models.Model):
    """One request to an outside server for a person: what, how it ended, how long, how big."""

    class Kind(models.TextChoices):
        TOOLS = "tools", _("listed tools")
        CALL = "call", _("called a tool")
        RESOURCE = "resource", _("read a resource")

    class Outcome(models.TextChoices):
        OK = "ok", _("done")
        TOOL_ERROR = "tool_error", _("the tool reported an error")
        FAILED = "failed", _("failed")

    access = Access(McpGatewayPerm, through="server", visibility="owner", owner="actor", label=_("MCP call"))

    server = models.ForeignKey(ExternalServer, on_delete=models.CASCADE, related_name="calls")
    actor = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    target = models.CharField(max_length=300, blank=True)
    outcome = models.CharField(max_length=12, choices=Outcome.choices)
    detail = models.CharField(max_length=300, blank=True)
    duration_ms = models.PositiveIntegerField(default=0)
    size = models.PositiveIntegerField(default=0)
    door = models.CharField(max_length=20, blank=True)
    client = models.CharField(max_length=200, blank=True)
    at = models.DateTimeField(auto_now_add=True)

    objects = RecordQuerySet.as_manager()

    class Meta:
        ordering = ["-at", "-id"]
        indexes = [models.Index(fields=["server", "-at"], name="mcpgateway_call_server_at")]

    def __str__(self) -> str:
        return f"{self.kind} {self.target}"
