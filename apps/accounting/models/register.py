"""The company register: the workspace's own legal entities, their officers and persons with
significant control, the filings they owe (with due dates computed by the jurisdiction's rules,
apps.accounting.services.register), their corporate events and their domains.

A company is a record every accounting person sees (`visibility="workspace"`); its people,
events and domains follow it. A filing is one statutory return for one period: open until it
is marked filed, when the next one of its cycle is opened.
"""

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from apps.accounting.permissions import AccountingPerm
from apps.core.records import Access, Record, live_once

USER = settings.AUTH_USER_MODEL


class RegisteredCompany(Record):
    access = Access(
        AccountingPerm,
        visibility="workspace",
        label=_("Company"),
        find_with="getCompanyFilings",
        trash_state=_("removed"),
    )

    class Jurisdiction(models.TextChoices):
        # The values of the Companies House register.
        ENGLAND_WALES = "england-wales", _("England and Wales")
        SCOTLAND = "scotland", _("Scotland")
        NORTHERN_IRELAND = "northern-ireland", _("Northern Ireland")

    class Type(models.TextChoices):
        LTD = "ltd", _("private limited company")
        PLC = "plc", _("public limited company")
        LLP = "llp", _("limited liability partnership")

    name = models.CharField(_("name"), max_length=160)
    number = models.CharField(_("company number"), max_length=8)
    jurisdiction = models.CharField(
        _("jurisdiction"), max_length=20, choices=Jurisdiction.choices, default=Jurisdiction.ENGLAND_WALES
    )
    company_type = models.CharField(_("type"), max_length=4, choices=Type.choices, default=Type.LTD)
    # As the register words it ("active", "dissolved", ...); empty when typed in by hand.
    register_status = models.CharField(_("status on the register"), max_length=40, blank=True)
    registered_office = models.TextField(_("registered office"), blank=True)
    incorporated_on = models.DateField(_("incorporated"))
    # The accounting reference date: the day and month each financial year ends.
    ard_day = models.PositiveSmallIntegerField(_("accounting reference day"))
    ard_month = models.PositiveSmallIntegerField(_("accounting reference month"))
    sic_codes = ArrayField(models.CharField(max_length=5), default=list, blank=True)
    # Days before a filing's due date on which reminders go out (none: no reminders).
    reminder_days = ArrayField(models.PositiveSmallIntegerField(), default=list, blank=True)
    checked_at = models.DateTimeField(_("last read from the register"), null=True, blank=True)

    class Meta:
        ordering = ["name", "id"]
        verbose_name = _("registered company")
        verbose_name_plural = _("registered companies")
        constraints = [
            live_once("accounting_company_number", "number"),
            models.CheckConstraint(
                condition=Q(ard_month__gte=1, ard_month__lte=12, ard_day__gte=1, ard_day__lte=31),
                name="accounting_company_ard",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.number})"


class CompanyPerson(models.Model):
    """An officer (director, secretary, LLP member) or a person with significant control."""

    class Kind(models.TextChoices):
        OFFICER = "officer", _("officer")
        PSC = "psc", _("person with significant control")

    company = models.ForeignKey(RegisteredCompany, on_delete=models.CASCADE, related_name="people")
    kind = models.CharField(_("kind"), max_length=8, choices=Kind.choices)
    name = models.CharField(_("name"), max_length=160)
    # An officer's role ("director", "secretary"); a PSC's nature of control.
    role = models.CharField(_("role"), max_length=120, blank=True)
    appointed_on = models.DateField(_("from"), null=True, blank=True)
    ceased_on = models.DateField(_("until"), null=True, blank=True)

    class Meta:
        # Current people first, then those who have gone.
        ordering = ["kind", models.F("ceased_on").asc(nulls_first=True), "name", "id"]

    def __str__(self) -> str:
        return f"{self.kind} {self.pk} of {self.company_id}"


class CorporateEvent(models.Model):
    class Kind(models.TextChoices):
        OFFICER_APPOINTED = "appointment", _("officer appointed")
        OFFICER_RESIGNED = "resignation", _("officer resigned")
        PSC_ADDED = "psc_added", _("person with significant control added")
        PSC_CEASED = "psc_ceased", _("person with significant control ceased")
        OFFICE_MOVED = "office_moved", _("registered office moved")
        NAME_CHANGED = "renamed", _("name changed")
        SHARE_ALLOTMENT = "allotment", _("shares allotted")
        OTHER = "other", _("other")

    company = models.ForeignKey(RegisteredCompany, on_delete=models.CASCADE, related_name="events")
    kind = models.CharField(_("kind"), max_length=20, choices=Kind.choices)
    date = models.DateField(_("date"))
    detail = models.TextField(_("detail"))
    person = models.ForeignKey(
        CompanyPerson, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    recorded_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    recorded_at = models.DateTimeField(_("recorded"), auto_now_add=True)

    class Meta:
        ordering = ["-date", "-id"]

    def __str__(self) -> str:
        return f"{self.kind} of {self.company_id} on {self.date}"


class Filing(Record):
    access = Access(AccountingPerm, visibility="workspace", label=_("Filing"), find_with="getCompanyFilings")

    class Kind(models.TextChoices):
        CONFIRMATION_STATEMENT = "confirmation_statement", _("confirmation statement")
        ACCOUNTS = "accounts", _("annual accounts")
        CORPORATION_TAX = "corporation_tax", _("corporation tax payment")
        TAX_RETURN = "tax_return", _("corporation tax return")
        # Notices of a corporate event the register must be told of within a time limit.
        EVENT_NOTICE = "event_notice", _("notice of a change")

    class Status(models.TextChoices):
        OPEN = "open", _("to file")
        FILED = "filed", _("filed")

    company = models.ForeignKey(RegisteredCompany, on_delete=models.CASCADE, related_name="filings")
    kind = models.CharField(_("kind"), max_length=24, choices=Kind.choices)
    form = models.CharField(_("form"), max_length=10)  # CS01, AA, CT600, AP01, SH01, ...
    period_end = models.DateField(_("made up to"))
    due_on = models.DateField(_("due"))
    status = models.CharField(_("status"), max_length=6, choices=Status.choices, default=Status.OPEN)
    event = models.ForeignKey(
        CorporateEvent, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    filed_on = models.DateField(_("filed"), null=True, blank=True)
    reference = models.CharField(_("reference"), max_length=100, blank=True)
    filed_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    # The reminder lead times (days) already sent for this filing.
    reminded = ArrayField(models.PositiveSmallIntegerField(), default=list, blank=True)

    class Meta:
        ordering = ["due_on", "id"]
        indexes = [models.Index(fields=["status", "due_on"], name="accounting_filing_due")]

    def __str__(self) -> str:
        return f"{self.form} of {self.company_id} due {self.due_on}"


class CompanyDomain(models.Model):
    class Purpose(models.TextChoices):
        WEB = "web", _("website")
        MAIL = "mail", _("e-mail")
        BOTH = "both", _("website and e-mail")

    company = models.ForeignKey(RegisteredCompany, on_delete=models.CASCADE, related_name="domains")
    # Lower case, internationalised names in their ASCII (punycode) form.
    domain = models.CharField(_("domain"), max_length=253, unique=True)
    purpose = models.CharField(_("purpose"), max_length=4, choices=Purpose.choices, default=Purpose.BOTH)
    added_at = models.DateTimeField(_("added"), auto_now_add=True)

    class Meta:
        ordering = ["domain"]

    def __str__(self) -> str:
        return self.domain
