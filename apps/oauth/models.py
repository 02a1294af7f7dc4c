"""What Atrium adds to django-oauth-toolkit's clients, grants and tokens. Workspace schema.

The toolkit's own models (Application = a client, Grant = an authorization code, AccessToken,
RefreshToken) live in the same schema: each workspace has its own clients and tokens.
"""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _
from oauth2_provider.settings import oauth2_settings


class Connection(models.Model):
    """A person's authorization of one client: a row of the "Connected apps" page.

    Created when the client first obtains a token for the person, kept up to date on every later
    token, and marked revoked (never deleted) when the person disconnects it, so the periodic
    clean-up can tell a client that never obtained a token from one that was disconnected.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="oauth_connections"
    )
    application = models.ForeignKey(
        oauth2_settings.APPLICATION_MODEL, on_delete=models.CASCADE, related_name="connections"
    )
    # The scopes of the latest token issued to the client for this person.
    scope = models.TextField(_("scopes"), blank=True)
    created_at = models.DateTimeField(_("connected"), auto_now_add=True)
    last_used_at = models.DateTimeField(_("last used"), null=True, blank=True)
    revoked_at = models.DateTimeField(_("disconnected"), null=True, blank=True)

    class Meta:
        ordering = ["-last_used_at", "-created_at"]
        verbose_name = _("connected app")
        constraints = [
            models.UniqueConstraint(fields=["user", "application"], name="oauth_connection_unique"),
        ]

    def __str__(self) -> str:
        return f"connection {self.pk}"

    @property
    def scopes(self) -> list[str]:
        return self.scope.split()


class SpentCode(models.Model):
    """An authorization code that was exchanged, and what the exchange issued.

    The toolkit deletes a grant once its code is used; this remembers the code (as a digest) so
    that a replay is recognised and what the code issued is revoked (RFC 6749 §4.1.2, §10.5).
    """

    digest = models.CharField(max_length=64, unique=True)
    application = models.ForeignKey(
        oauth2_settings.APPLICATION_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    access_token_id = models.BigIntegerField(null=True)
    token_family = models.UUIDField(null=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    replayed_at = models.DateTimeField(null=True)

    class Meta:
        verbose_name = _("spent authorization code")

    def __str__(self) -> str:
        return f"spent code {self.pk}"
