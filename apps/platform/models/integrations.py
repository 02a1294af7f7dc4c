"""The Platform area's integrations: a person's accounts at outside services, connected by OAuth 2.0
(apps.platform.connections), and the authorizations under way."""

from django.conf import settings
from django.db import models


class IntegrationConnection(models.Model):
    """A person's connected account at a provider (apps.platform.providers): its tokens, encrypted."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    provider = models.CharField(max_length=40)
    scopes = models.JSONField(default=list)
    # Fernet-encrypted (apps.core.encryption); never returned, logged or copied.
    access_token_encrypted = models.TextField()
    refresh_token_encrypted = models.TextField(blank=True)
    token_type = models.CharField(max_length=40, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    connected_at = models.DateTimeField(auto_now_add=True)
    refreshed_at = models.DateTimeField(null=True, blank=True)
    # What the last refresh said when it failed (the provider's error code); empty when healthy.
    last_error = models.CharField(max_length=300, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "provider"], name="platform_integration_once")]
        ordering = ["provider", "id"]

    def __str__(self) -> str:
        return f"{self.provider} of user {self.user_id}"


class IntegrationGrant(models.Model):
    """An authorization a person started (connectIntegration) and completes in their browser: its
    `state` is good once, for them alone, until it expires."""

    state = models.CharField(max_length=64, unique=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    provider = models.CharField(max_length=40)
    scopes = models.JSONField(default=list)
    # The PKCE code verifier (RFC 7636), Fernet-encrypted.
    verifier_encrypted = models.TextField()
    redirect_uri = models.CharField(max_length=500)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["expires_at"], name="platform_grant_expires")]

    def __str__(self) -> str:
        return f"{self.provider} grant of user {self.user_id}"
