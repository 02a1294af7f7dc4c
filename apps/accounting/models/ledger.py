"""The books of a workspace: its settings, chart of accounts, journals, tax types, rates, and the
journal entries everything posts (apps.accounting.lib.ledger.post is the only writer of those).

Amounts of a journal line are signed: a debit is positive, a credit negative. `amount` is in the
entry's currency, `base_amount` in the books' base currency. A PostgreSQL constraint trigger
(migration 0001) refuses, at the latest at commit, an entry whose lines do not sum to zero in
both; another refuses to change or delete posted lines (a correction is a reversing entry).
"""

from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apps.accounting.lib.money import COLUMN_DIGITS, COLUMN_PLACES, round_money
from apps.core.records import Record

USER = settings.AUTH_USER_MODEL


def money_field(**options: Any) -> models.DecimalField:
    """An amount column: enough for 10^15 with four places (three-place currencies and a margin)."""
    return models.DecimalField(max_digits=COLUMN_DIGITS, decimal_places=COLUMN_PLACES, **options)


def rate_field() -> models.DecimalField:
    return models.DecimalField(max_digits=24, decimal_places=10)


class TaxRounding(models.TextChoices):
    LINE = "line", _("per line")
    DOCUMENT = "document", _("per document, per tax type")


class Books(models.Model):
    """The workspace's accounting settings: one row (`one` is always true and unique)."""

    one = models.BooleanField(default=True, unique=True, editable=False)
    base_currency = models.CharField(_("base currency"), max_length=3)
    tax_regime = models.CharField(_("tax regime"), max_length=40)
    # The default of new documents: prices written with their tax in them, or without.
    prices_include_tax = models.BooleanField(_("prices include tax"), default=False)
    tax_rounding = models.CharField(
        _("tax rounding"), max_length=10, choices=TaxRounding.choices, default=TaxRounding.LINE
    )
    # Nothing is posted on or before this date (null: no period is closed).
    lock_date = models.DateField(_("locked up to"), null=True, blank=True)
    payment_terms_days = models.PositiveSmallIntegerField(_("payment terms (days)"), default=30)
    vat_number = models.CharField(_("VAT number"), max_length=30, blank=True)
    # Automatic credit control: overdue invoices are chased each morning as this person (who
    # switched it on, and must still be allowed to send); null: reminders go only when asked.
    chase_as = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("reminders sent automatically as"),
    )
    # Separation of duties: who created an invoice, credit note or bill may not approve or post
    # it (another person must); nobody is exempt while it is on, accounting admins neither.
    separate_duties = models.BooleanField(_("creator may not approve"), default=False)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = _("books")
        verbose_name_plural = _("books")
        constraints = [models.CheckConstraint(condition=Q(one=True), name="accounting_books_single")]

    def __str__(self) -> str:
        return f"books in {self.base_currency}"


class Account(models.Model):
    class Type(models.TextChoices):
        ASSET = "asset", _("asset")
        LIABILITY = "liability", _("liability")
        EQUITY = "equity", _("equity")
        INCOME = "income", _("income")
        EXPENSE = "expense", _("expense")

    class Role(models.TextChoices):
        """The accounts postings look up by what they are for, not by code."""

        NONE = "", _("none")
        RECEIVABLE = "receivable", _("accounts receivable")
        PAYABLE = "payable", _("accounts payable")
        TAX = "tax", _("tax control")
        BANK = "bank", _("bank")
        SALES = "sales", _("sales")
        PURCHASES = "purchases", _("purchases")
        FX = "fx", _("foreign exchange gains and losses")
        ROUNDING = "rounding", _("rounding")
        EQUITY = "equity", _("retained earnings")

    code = models.CharField(_("code"), max_length=10, unique=True)
    name = models.CharField(_("name"), max_length=120)
    type = models.CharField(_("type"), max_length=10, choices=Type.choices)
    role = models.CharField(_("role"), max_length=12, choices=Role.choices, default=Role.NONE, blank=True)
    archived = models.BooleanField(_("archived"), default=False)

    class Meta:
        ordering = ["code"]
        verbose_name = _("account")
        constraints = [
            models.UniqueConstraint(
                fields=["role"], condition=~Q(role__in=["", "bank"]), name="accounting_account_one_per_role"
            )
        ]

    def __str__(self) -> str:
        return f"{self.code} {self.name}"


class Journal(models.Model):
    code = models.CharField(_("code"), max_length=10, unique=True)
    name = models.CharField(_("name"), max_length=60)

    class Meta:
        ordering = ["code"]
        verbose_name = _("journal")

    def __str__(self) -> str:
        return self.code


class TaxType(models.Model):
    class Kind(models.TextChoices):
        STANDARD = "standard", _("standard or reduced rate")
        ZERO = "zero", _("zero-rated")
        EXEMPT = "exempt", _("exempt")
        REVERSE_CHARGE = "reverse_charge", _("reverse charge")
        OUT_OF_SCOPE = "out_of_scope", _("outside the scope of tax")

    code = models.CharField(_("code"), max_length=20, unique=True)
    name = models.CharField(_("name"), max_length=80)
    # Percent: 20 means 20 %. Reverse-charge lines carry the rate but charge none on the document.
    rate = models.DecimalField(_("rate (%)"), max_digits=7, decimal_places=4)
    kind = models.CharField(_("kind"), max_length=20, choices=Kind.choices, default=Kind.STANDARD)
    # The box of the tax return its amounts are reported in.
    report_box = models.CharField(_("report box"), max_length=20, blank=True)
    # Required for exempt and reverse-charge: the legal text or an EN 16931 reason code (VATEX-...).
    exemption_reason = models.CharField(_("exemption reason"), max_length=200, blank=True)
    archived = models.BooleanField(_("archived"), default=False)

    class Meta:
        ordering = ["code"]
        verbose_name = _("tax type")
        constraints = [
            models.CheckConstraint(condition=Q(rate__gte=0, rate__lte=100), name="accounting_tax_rate_range"),
            models.CheckConstraint(
                condition=~Q(kind__in=["exempt", "reverse_charge"]) | ~Q(exemption_reason=""),
                name="accounting_tax_exemption_reason",
            ),
        ]

    def __str__(self) -> str:
        return self.code

    @property
    def charged_rate(self) -> Decimal:
        """The rate charged on the document: none for reverse charge (the buyer accounts for it)."""
        return self.rate if self.kind in (self.Kind.STANDARD,) else Decimal(0)


class ExchangeRate(models.Model):
    """A reference rate fetched from a live provider: units of `currency` for one `anchor`."""

    source = models.CharField(max_length=40)
    anchor = models.CharField(max_length=3)
    currency = models.CharField(max_length=3)
    day = models.DateField()
    rate = rate_field()
    fetched_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-day", "currency"]
        constraints = [
            models.UniqueConstraint(
                fields=["source", "anchor", "currency", "day"], name="accounting_rate_once"
            )
        ]

    def __str__(self) -> str:
        return f"{self.anchor}/{self.currency} {self.day}"


class NumberSeries(models.Model):
    """The next number of one series (invoices, credit notes, quotes): read and raised under a row
    lock in the transaction that issues the document, so a rollback gives the number back."""

    key = models.CharField(max_length=30, unique=True)
    prefix = models.CharField(_("prefix"), max_length=20)
    next_number = models.PositiveIntegerField(_("next number"), default=1)
    width = models.PositiveSmallIntegerField(default=4)

    class Meta:
        ordering = ["key"]
        verbose_name = _("number series")
        verbose_name_plural = _("number series")

    def __str__(self) -> str:
        return self.key

    def format(self, number: int) -> str:
        return f"{self.prefix}{number:0{self.width}d}"


class JournalEntry(models.Model):
    journal = models.ForeignKey(Journal, on_delete=models.PROTECT, related_name="entries")
    date = models.DateField(_("date"))
    currency = models.CharField(_("currency"), max_length=3)
    # Base currency per unit of `currency`, as used for this entry, with its day and source.
    rate = rate_field()
    rate_date = models.DateField(null=True, blank=True)
    rate_source = models.CharField(max_length=40, blank=True)
    memo = models.CharField(_("memo"), max_length=300, blank=True)
    # What posted it: "invoice:12", "payment:3", "manual".
    source = models.CharField(max_length=40, blank=True)
    reverses = models.OneToOneField(
        "self", on_delete=models.PROTECT, null=True, blank=True, related_name="reversed_by"
    )
    posted_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    posted_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["date", "id"]
        verbose_name = _("journal entry")
        verbose_name_plural = _("journal entries")
        indexes = [models.Index(fields=["source"], name="accounting_entry_source")]
        constraints = [models.CheckConstraint(condition=Q(rate__gt=0), name="accounting_entry_rate_positive")]

    def __str__(self) -> str:
        return f"entry {self.pk} {self.date}"


class JournalLine(models.Model):
    entry = models.ForeignKey(JournalEntry, on_delete=models.PROTECT, related_name="lines")
    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="lines")
    # Signed: debit positive, credit negative; `amount` in the entry's currency.
    amount = money_field()
    base_amount = money_field()
    description = models.CharField(max_length=300, blank=True)
    tax_type = models.ForeignKey(TaxType, on_delete=models.PROTECT, null=True, blank=True, related_name="+")

    class Meta:
        ordering = ["entry_id", "id"]
        verbose_name = _("journal line")
        indexes = [models.Index(fields=["account", "entry"], name="accounting_line_account")]

    def __str__(self) -> str:
        return f"{self.account_id} {self.amount}"


class DraftJournal(models.Model):
    """A manual journal saved, not posted, while the books separate duties: it awaits the approval
    of another person (apps.accounting.services.journals.journal_approve posts it then), or is
    discarded. Its lines are kept as given: [{"account", "debit", "credit", "description"}] with
    the amounts as strings; posting checks them again."""

    class Status(models.TextChoices):
        AWAITING = "awaiting_approval", _("awaiting approval")
        POSTED = "posted", _("posted")
        DISCARDED = "discarded", _("discarded")

    date = models.DateField(_("date"))
    narration = models.CharField(_("narration"), max_length=300)
    currency = models.CharField(_("currency"), max_length=3)
    reverse_on = models.DateField(_("reverse on"), null=True, blank=True)
    lines = models.JSONField(default=list)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.AWAITING)
    created_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)
    # Who approved (posted) or discarded it, and when.
    decided_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    decided_at = models.DateTimeField(null=True, blank=True)
    entry = models.OneToOneField(
        JournalEntry, on_delete=models.PROTECT, null=True, blank=True, related_name="draft"
    )

    class Meta:
        ordering = ["-date", "-id"]
        verbose_name = _("draft journal")
        verbose_name_plural = _("draft journals")

    def __str__(self) -> str:
        return f"draft journal {self.pk} {self.date}"


class Totalled(Record):
    """A document whose lines (in one currency) make its totals, posted through the ledger: a sales
    document or a purchase bill. The totals are what apps.accounting.lib.tax worked out when the lines
    changed, kept with four places and read in the currency's minor units (`round_money`)."""

    MONEY_FIELDS = ("net", "tax", "total", "amount_paid")

    currency = models.CharField(_("currency"), max_length=3)
    prices_include_tax = models.BooleanField(_("prices include tax"), default=False)
    tax_rounding = models.CharField(_("tax rounding"), max_length=10, default="line")
    due_date = models.DateField(_("due date"), null=True, blank=True)
    notes = models.TextField(_("notes"), blank=True)
    net = money_field(default=0)
    tax = money_field(default=0)
    total = money_field(default=0)
    amount_paid = money_field(default=0)
    # Its posting, with its rate (base currency per unit of `currency`).
    entry = models.OneToOneField(
        JournalEntry, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    rate = models.DecimalField(max_digits=24, decimal_places=10, null=True, blank=True)

    class Meta:
        abstract = True
        ordering = ["-issue_date", "-id"]

    @classmethod
    def from_db(cls, db: Any, field_names: Any, values: Any) -> Any:
        # The columns keep four places; a document's amounts are in its currency's minor units.
        document = super().from_db(db, field_names, values)
        if "currency" in document.__dict__:
            for name in cls.MONEY_FIELDS:
                if name in document.__dict__:
                    setattr(document, name, round_money(getattr(document, name), document.currency))
        return document

    @property
    def amount_due(self) -> Decimal:
        # A void document is owed by no one: its posting is reversed.
        if getattr(self, "status", None) == "void":
            return round_money(Decimal(0), self.currency)
        return self.total - self.amount_paid
