"""The Platform area's stored APIs: outside HTTP APIs the workspace's people call through
executeApiCall, each with its hosts, methods and credential (kept encrypted, never shown), and the
log of the calls made to them."""

from django.conf import settings
from django.db import models
from django.db.models.functions import Lower
from django.utils.translation import gettext_lazy as _


class StoredApi(models.Model):
    """An outside HTTP API: where it is, what may be called, and how it is signed in to."""

    class Auth(models.TextChoices):
        NONE = "none", _("none")
        BEARER = "bearer", _("bearer token")
        BASIC = "basic", _("basic (user name and password)")
        HEADER = "header", _("a header of its own")
        QUERY = "query", _("a query parameter")

    name = models.CharField(max_length=80)
    description = models.CharField(max_length=500, blank=True)
    base_url = models.CharField(max_length=2000)
    # Lower-case host names (with ":port" where not the scheme's default) a call may reach; the base
    # URL's host is always one of them.
    allowed_hosts = models.JSONField(default=list)
    # Upper-case HTTP methods ("GET", "POST", ...).
    allowed_methods = models.JSONField(default=list)
    auth_kind = models.CharField(max_length=10, choices=Auth.choices, default=Auth.NONE)
    # The header's or query parameter's name (header, query), or the user name (basic).
    auth_name = models.CharField(max_length=200, blank=True)
    # The credential, Fernet-encrypted (apps.core.encryption); never returned, logged or copied.
    secret_encrypted = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    last_called_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(Lower("name"), name="platform_storedapi_name_once")]
        ordering = ["name", "id"]

    def __str__(self) -> str:
        return self.name


class StoredApiCall(models.Model):
    """One executeApiCall answered: who called which API, what, and what came back (never a
    credential, an auth header or a body)."""

    api = models.ForeignKey(StoredApi, null=True, on_delete=models.SET_NULL, related_name="calls")
    # The API's name at the time, kept when the API is deleted.
    api_name = models.CharField(max_length=80)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    at = models.DateTimeField(auto_now_add=True)
    method = models.CharField(max_length=10)
    # The address called, without the query key of an API signed in to by query parameter.
    url = models.CharField(max_length=2000)
    status = models.PositiveSmallIntegerField()
    response_bytes = models.PositiveIntegerField(default=0)
    duration_ms = models.FloatField(default=0)

    class Meta:
        ordering = ["-at", "-id"]
        indexes = [models.Index(fields=["api", "-at"], name="platform_apicall_api_at")]

    def __str__(self) -> str:
        return f"{self.method} {self.api_name} at {self.at:%Y-%m-%d %H:%M:%S}"
