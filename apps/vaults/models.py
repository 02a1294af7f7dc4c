"""Credential Vaults: secrets the workspace keeps for its tools (an API key, a login, a token, a
note), encrypted at rest (apps.core.encryption), and the log of their use. Workspace schema.

An item is an `OwnedRecord`: its owner's (`private`), shared with roles (`shared_roles`: every person
of those roles sees its metadata and may refer a tool to it), or the workspace's. Its value is
written, never read back by a page or a tool: server-side parts of the service resolve a reference
to it (apps.vaults.api.resolve), each use logged (`VaultUse`).
"""

from django.conf import settings
from django.db import models
from django.db.models.functions import Lower
from django.utils.translation import gettext_lazy as _

from apps.core.records import Access, OwnedRecord, RecordQuerySet
from apps.vaults.errors import WorkspaceItemKept
from apps.vaults.permissions import VaultsPerm

USER = settings.AUTH_USER_MODEL


class VaultItem(OwnedRecord):
    class Kind(models.TextChoices):
        API_KEY = "api_key", _("API key")
        TOKEN = "token", _("token")
        LOGIN = "login", _("login")
        NOTE = "note", _("secure note")

    access = Access(
        VaultsPerm,
        also="shared_roles__users",
        label=_("Vault item"),
        find_with="vaultList",
        trash_state=_("deleted"),
        # The workspace's credentials are kept by the vault's administrators alone.
        workspace_kept_by=VaultsPerm.ADMIN,
        kept_error=WorkspaceItemKept,
    )

    name = models.CharField(_("name"), max_length=120)
    kind = models.CharField(_("kind"), max_length=12, choices=Kind.choices, default=Kind.API_KEY)
    description = models.CharField(_("description"), max_length=500, blank=True)
    # A login's user name (not secret); the secret is the value.
    username = models.CharField(_("user name"), max_length=200, blank=True)
    # Fernet-encrypted (apps.core.encryption); never returned, logged or copied.
    value_encrypted = models.TextField()
    # The hosts the value may be sent to (empty: any host a tool resolving it is configured for).
    allowed_hosts = models.JSONField(_("allowed hosts"), default=list, blank=True)
    shared_roles = models.ManyToManyField("accounts.Role", blank=True, related_name="+")
    expires_at = models.DateTimeField(_("expires"), null=True, blank=True)
    value_changed_at = models.DateTimeField(_("value changed"), null=True, blank=True)
    last_used_at = models.DateTimeField(_("last used"), null=True, blank=True)

    class Meta:
        ordering = ["name", "id"]
        verbose_name = _("vault item")
        verbose_name_plural = _("vault items")
        # Names are each owner's own: one's choice says nothing of another person's items.
        constraints = [
            models.UniqueConstraint(
                Lower("name"),
                "owner",
                condition=models.Q(deleted_at__isnull=True),
                name="vaults_item_name_once_per_owner",
            )
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def reference(self) -> str:
        return f"vault:item/{self.pk}"


class VaultUse(models.Model):
    """One look-up or use of an item: who (or which part of the service), for what, when."""

    class Action(models.TextChoices):
        LOOKUP = "lookup", _("looked up")
        USED = "used", _("used")
        CHANGED = "changed", _("value changed")

    access = Access(
        VaultsPerm,
        through="item",
        visibility="owner",
        owner="actor",
        also="item__owner",
        label=_("Vault use"),
    )

    item = models.ForeignKey(VaultItem, on_delete=models.CASCADE, related_name="uses")
    actor = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    action = models.CharField(max_length=10, choices=Action.choices)
    # What it was for ("MCP server weather", "vaultLookup"), never the value.
    purpose = models.CharField(max_length=200)
    door = models.CharField(max_length=20, blank=True)
    tool = models.CharField(max_length=100, blank=True)
    at = models.DateTimeField(auto_now_add=True)

    objects = RecordQuerySet.as_manager()

    class Meta:
        ordering = ["-at", "-id"]
        indexes = [models.Index(fields=["item", "-at"], name="vaults_use_item_at")]

    def __str__(self) -> str:
        return f"{self.action} {self.purpose}"
