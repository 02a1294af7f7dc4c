"""A workspace's own value of a provider setting (apps.integrations.api.setting reads it before
the server's): kept encrypted (apps.core.encryption), with its last four characters to tell it by."""

from django.db import models


class ProviderSetting(models.Model):
    # The setting it stands for, as the server names it: "ATRIUM_TRAVELSEARCH_BOOKING_TOKEN".
    name = models.CharField(max_length=100, unique=True)
    sealed = models.TextField()
    # Shown for a secret instead of the value ("" for a value short enough that four would tell it).
    last4 = models.CharField(max_length=4, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ("name",)

    def __str__(self) -> str:
        return self.name
