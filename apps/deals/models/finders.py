"""Deal finders: saved ideal-customer searches (Apollo's or Pipedrive Prospector's shape), run on
a schedule over the workspace's contacts and group accounts and, when one is configured, an
enrichment provider (apps.deals.enrichment). What a run finds is a `FoundLead` with its
provenance (the source, which criteria matched), deduplicated against existing contacts: a lead
whose address or company domain is a contact's is marked `existing` with that contact."""

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apps.core.records import Access, OwnedRecord, RecordQuerySet, name_once
from apps.deals.permissions import DealsPerm


class DealFinder(OwnedRecord):
    class Status(models.TextChoices):
        ACTIVE = "active", _("active")
        PAUSED = "paused", _("paused")
        STOPPED = "stopped", _("stopped")

    class Schedule(models.TextChoices):
        MANUAL = "manual", _("only when run")
        DAILY = "daily", _("daily")
        WEEKLY = "weekly", _("weekly")

    SOURCES = ("contacts", "accounts", "provider")

    access = Access(
        DealsPerm,
        label=_("Deal finder"),
        find_with="listDealFinders",
        manage=DealsPerm.FINDERS,
        trash_hint=_("It was stopped and removed; create it again with createDealFinder."),
    )

    name = models.CharField(_("name"), max_length=120)
    # The ideal-customer profile: {"keywords": [...], "industries": [...], "countries": [...],
    # "titles": [...], "tags": [...]}: a lead matches when every given list has a match.
    criteria = models.JSONField(_("criteria"), default=dict)
    sources = models.JSONField(_("sources"), default=list)  # of SOURCES
    schedule = models.CharField(
        _("schedule"), max_length=10, choices=Schedule.choices, default=Schedule.DAILY
    )
    status = models.CharField(_("status"), max_length=10, choices=Status.choices, default=Status.ACTIVE)
    max_leads = models.PositiveIntegerField(_("most leads a run"), default=50)
    next_run_at = models.DateTimeField(_("next run"), null=True, blank=True)
    last_run_at = models.DateTimeField(_("last run"), null=True, blank=True)
    # What failed in the last run (a class of problem: "the enrichment provider does not answer").
    problem = models.CharField(max_length=300, blank=True)
    credits_used = models.PositiveIntegerField(_("provider credits used"), default=0)

    class Meta:
        ordering = ["name", "id"]
        verbose_name = _("deal finder")
        constraints = [name_once("deals_finder_name_once")]

    def __str__(self) -> str:
        return self.name


class FoundLead(models.Model):
    """A prospect a finder found, once per finder (by its `key`: the address, else the company
    domain, else the provider's id), with where it came from and why it matched."""

    class Source(models.TextChoices):
        CONTACT = "contact", _("a contact")
        ACCOUNT = "account", _("a group account")
        PROVIDER = "provider", _("the enrichment provider")

    class Status(models.TextChoices):
        NEW = "new", _("new")
        EXISTING = "existing", _("already a contact")
        DISMISSED = "dismissed", _("dismissed")

    access = Access(
        DealsPerm, through="finder", change=DealsPerm.FINDERS, label=_("Lead"), find_with="getDealFinder"
    )

    finder = models.ForeignKey(DealFinder, on_delete=models.CASCADE, related_name="leads")
    key = models.CharField(max_length=300)
    source = models.CharField(max_length=10, choices=Source.choices)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.NEW)
    name = models.CharField(max_length=200, blank=True)
    email = models.CharField(max_length=254, blank=True)  # lower case
    company = models.CharField(max_length=200, blank=True)
    domain = models.CharField(max_length=253, blank=True)
    title = models.CharField(max_length=150, blank=True)
    country = models.CharField(max_length=2, blank=True)
    industry = models.CharField(max_length=100, blank=True)
    # The existing record it is, or duplicates (dedupe against contacts).
    contact = models.ForeignKey(
        "contacts.Contact", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    group_account = models.ForeignKey(
        "groupaccounts.GroupAccount", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    provider_ref = models.CharField(max_length=100, blank=True)
    matched = models.JSONField(default=list)  # the criteria it matched ("industry: software")
    score = models.PositiveSmallIntegerField(default=0)
    found_at = models.DateTimeField(default=timezone.now)

    objects = RecordQuerySet.as_manager()

    class Meta:
        ordering = ["-score", "-found_at", "-id"]
        constraints = [models.UniqueConstraint(fields=["finder", "key"], name="deals_lead_once")]

    def __str__(self) -> str:
        return f"lead {self.pk}"
