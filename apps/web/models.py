"""The Agent Web Browser's records: what each person's agents searched and read (WebCall), and the
pages read, kept for a while so that the same address is not fetched again (CachedPage)."""

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apps.core.records import Access, RecordQuerySet
from apps.web.permissions import WebPerm


class WebCall(models.Model):
    """One webSearch or webExtract that answered: the query or the address, what came back."""

    # Its caller's alone (a search says what someone looks into); the area's admins see every one.
    access = Access(
        WebPerm,
        visibility="owner",
        owner="created_by",
        manage=WebPerm.USE,
        label=_("Web call"),
    )

    class Kind(models.TextChoices):
        SEARCH = "search", _("search")
        EXTRACT = "extract", _("page read")

    kind = models.CharField(max_length=10, choices=Kind.choices)
    query = models.CharField(_("query"), max_length=400, blank=True)
    url = models.CharField(_("address"), max_length=2000, blank=True)
    final_url = models.CharField(_("final address"), max_length=2000, blank=True)
    provider = models.CharField(_("provider"), max_length=20, blank=True)
    title = models.CharField(_("title"), max_length=300, blank=True)
    results = models.PositiveIntegerField(_("results"), default=0)
    size = models.PositiveIntegerField(_("bytes"), default=0)
    cached = models.BooleanField(_("from the cache"), default=False)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)

    objects = RecordQuerySet.as_manager()

    class Meta:
        indexes = [models.Index(fields=["created_by", "-created_at"], name="web_call_by_at")]

    def __str__(self) -> str:
        return f"{self.kind} {self.query or self.url}"


class CachedPage(models.Model):
    """A page as webExtract read it, by the address asked for, until `expires_at`."""

    url = models.CharField(max_length=2000)
    key = models.CharField(max_length=64, unique=True)  # sha256 of the address asked for
    final_url = models.CharField(max_length=2000)
    content_type = models.CharField(max_length=100)
    title = models.CharField(max_length=300, blank=True)
    text = models.TextField(blank=True)
    links = models.JSONField(default=list)
    published = models.CharField(max_length=40, blank=True)
    size = models.PositiveIntegerField(default=0)
    content_hash = models.CharField(max_length=64)
    fetched_at = models.DateTimeField()
    expires_at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["expires_at"], name="web_cache_expires")]

    def __str__(self) -> str:
        return self.url
